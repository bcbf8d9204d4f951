import { errorResponse, json, serverConfig } from '@/lib/server/http';
import { currentModelWithWindow } from '@/lib/server/model';
import type { StatusAnswer } from '@/lib/contract/rest';
import { sandboxView } from '@/lib/exec/sandbox';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

export async function GET() {
  try {
    const cfg = serverConfig();
    return json<StatusAnswer>({ workspace: cfg.workspace, dataDir: cfg.dataDir, model: (await currentModelWithWindow(cfg)).status, defaultMode: cfg.mode, sandbox: sandboxView() });
  } catch (err) {
    return errorResponse(err);
  }
}
