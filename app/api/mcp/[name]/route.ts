import { errorResponse, json, parseJson, serverConfig } from '@/lib/server/http';
import { patchMcpServer, removeMcpServer } from '@/lib/server/mcp';
import { mcpPatchBody, type McpView } from '@/lib/contract/mcp-rest';
import { BUDGET } from '@/lib/contract/budget';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

type Params = { params: Promise<{ name: string }> };

/** Enable/disable a server, its startup, approve a workspace server, restart it, or change one tool (McpPatchBody). */
export async function PATCH(req: Request, { params }: Params): Promise<Response> {
  try {
    const name = safeDecode((await params).name);
    const body = await parseJson(req, mcpPatchBody, BUDGET.API_BODY_MAX_BYTES);
    return json<McpView>(await patchMcpServer(serverConfig(), name, body));
  } catch (err) {
    return errorResponse(err);
  }
}

/** Remove one of the person's servers (a file's or workspace's server is removed from its file). */
export async function DELETE(_req: Request, { params }: Params): Promise<Response> {
  try {
    return json<McpView>(await removeMcpServer(serverConfig(), safeDecode((await params).name)));
  } catch (err) {
    return errorResponse(err);
  }
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
