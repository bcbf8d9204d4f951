import { BUDGET } from '@/lib/contract/budget';
import { promptBody } from '@/lib/contract/request-bodies';
import { promptExpand, promptList } from '@/lib/server/mcp-prompts';
import { route } from '@/lib/server/route';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** The MCP servers' prompts, for the composer's /mcp__<server>__<prompt> commands. */
export const GET = route({}, (c) => promptList(c.cfg));

/** The text one prompt's command sends, its arguments filled in. */
export const POST = route({ body: promptBody, maxBytes: BUDGET.API_BODY_MAX_BYTES }, (c) => promptExpand(c.cfg, c.body));
