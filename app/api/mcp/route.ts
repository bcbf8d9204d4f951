import { BUDGET } from '@/lib/contract/budget';
import { mcpServerBody, type McpView } from '@/lib/contract/mcp-rest';
import { mcpView, saveMcpServer } from '@/lib/server/mcp';
import { route } from '@/lib/server/route';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** Every configured MCP server with status, tools and what their definitions cost (McpView). Starts nothing. */
export const GET = route({}, (c): McpView => mcpView(c.cfg));

/** Add or replace one of the person's servers (McpServerBody); env values and headers go to the secrets file. */
export const POST = route({ body: mcpServerBody, maxBytes: BUDGET.API_BODY_MAX_BYTES }, (c): Promise<McpView> => saveMcpServer(c.cfg, c.body));
