import type { RuleListAnswer } from '@/lib/contract/rest';
import { route } from '@/lib/server/route';
import { ruleList } from '@/lib/server/saved';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** The workspace's saved ("always") rules, oldest first: { rules: SavedRule[] }. */
export const GET = route({}, (c): RuleListAnswer => ruleList(c.cfg));
