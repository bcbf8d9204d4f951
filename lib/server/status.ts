import type { StatusAnswer } from '../contract/rest';
import { sandboxView } from '../exec/sandbox';
import { sandboxNetView } from '../exec/sandbox-net';
import type { ServerConfig } from './http';
import { currentModelWithWindow } from './model';

/** The header's status: the workspace, the data dir, the model in use, the mode new sessions start in and the sandbox. */
export async function statusOf(cfg: ServerConfig): Promise<StatusAnswer> {
  const sandbox = sandboxView();
  // the sandbox's own network (proxy, forwarded ports) matters only where commands are confined without the open network
  const net = sandbox.level !== 'off' && sandbox.available && !sandbox.network ? { net: sandboxNetView() } : {};
  return { workspace: cfg.workspace, dataDir: cfg.dataDir, model: (await currentModelWithWindow(cfg)).status, defaultMode: cfg.mode, sandbox: { ...sandbox, ...net } };
}
