import type { SkillListAnswer } from '@/lib/contract/rest';
import { errorResponse, json, serverConfig } from '@/lib/server/http';
import { listSkills } from '@/lib/tools/skills/skills';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** The workspace's and the data dir's skills, for the composer's /<skill-name> commands. */
export async function GET(): Promise<Response> {
  try {
    const cfg = serverConfig();
    return json<SkillListAnswer>({ skills: listSkills(cfg.workspace, cfg.dataDir).map((s) => ({ name: s.name, description: s.description })) });
  } catch (err) {
    return errorResponse(err);
  }
}
