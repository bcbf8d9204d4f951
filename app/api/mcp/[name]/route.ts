import { BUDGET } from '@/lib/contract/budget';
import { mcpPatchBody, type McpView } from '@/lib/contract/mcp-rest';
import { patchMcpServer, removeMcpServer } from '@/lib/server/mcp';
import { route } from '@/lib/server/route';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** Enable/disable a server, its startup, approve a workspace server, restart it, or change one tool (McpPatchBody). */
export const PATCH = route({ body: mcpPatchBody, maxBytes: BUDGET.API_BODY_MAX_BYTES }, (c): Promise<McpView> => patchMcpServer(c.cfg, safeDecode(c.params.name), c.body));

/** Remove one of the person's servers (a file's or workspace's server is removed from its file). */
export const DELETE = route({}, (c): Promise<McpView> => removeMcpServer(c.cfg, safeDecode(c.params.name)));

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
