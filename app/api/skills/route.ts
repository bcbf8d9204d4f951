import type { SkillListAnswer } from '@/lib/contract/rest';
import { route } from '@/lib/server/route';
import { skillList } from '@/lib/server/saved';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** The workspace's and the data dir's skills, for the composer's /<skill-name> commands. */
export const GET = route({}, (c): SkillListAnswer => skillList(c.cfg));
