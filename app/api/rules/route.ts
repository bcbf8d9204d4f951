import { errorResponse, json, serverConfig } from '@/lib/server/http';
import { openDb } from '@/lib/store/db';
import { listRules } from '@/lib/store/rules';
import type { RuleListAnswer } from '@/lib/contract/rest';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** The workspace's saved ("always") rules, oldest first: { rules: SavedRule[] }. */
export async function GET(): Promise<Response> {
  try {
    const cfg = serverConfig();
    return json<RuleListAnswer>({ rules: listRules(openDb(cfg.dataDir), cfg.workspace) });
  } catch (err) {
    return errorResponse(err);
  }
}
