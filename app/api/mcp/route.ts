import { errorResponse, json, parseJson, serverConfig } from '@/lib/server/http';
import { mcpView, saveMcpServer } from '@/lib/server/mcp';
import { mcpServerBody, type McpView } from '@/lib/contract/mcp-rest';
import { BUDGET } from '@/lib/contract/budget';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** Every configured MCP server with status, tools and what their definitions cost (McpView). Starts nothing. */
export async function GET(): Promise<Response> {
  try {
    return json<McpView>(mcpView(serverConfig()));
  } catch (err) {
    return errorResponse(err);
  }
}

/** Add or replace one of the person's servers (McpServerBody); env values and headers go to the secrets file. */
export async function POST(req: Request): Promise<Response> {
  try {
    const body = await parseJson(req, mcpServerBody, BUDGET.API_BODY_MAX_BYTES);
    return json<McpView>(await saveMcpServer(serverConfig(), body));
  } catch (err) {
    return errorResponse(err);
  }
}
