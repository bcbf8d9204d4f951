import { errorResponse, json, serverConfig } from '@/lib/server/http';
import { currentModelWithWindow } from '@/lib/server/model';
import type { StatusAnswer } from '@/lib/contract/rest';
import { sandboxView } from '@/lib/exec/sandbox';
import { sandboxNetView } from '@/lib/exec/sandbox-net';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

export async function GET() {
  try {
    const cfg = serverConfig();
    const sandbox = sandboxView();
    // the sandbox's own network (proxy, forwarded ports) matters only where commands are confined without the open network
    const net = sandbox.level !== 'off' && sandbox.available && !sandbox.network ? { net: sandboxNetView() } : {};
    return json<StatusAnswer>({ workspace: cfg.workspace, dataDir: cfg.dataDir, model: (await currentModelWithWindow(cfg)).status, defaultMode: cfg.mode, sandbox: { ...sandbox, ...net } });
  } catch (err) {
    return errorResponse(err);
  }
}
