// What test/escape/lsp-run.mjs uses of lib (bundled with the other runners' by test/escape/load-lib.mjs).
export { serverSandboxArgs } from '../../../lib/lsp/client';
export { runsFrom } from '../../../lib/lsp/runs-from';
export { typescriptServer } from '../../../lib/lsp/servers';
export { sandboxArgs, sandboxStatus, withoutSecrets } from '../../../lib/exec/sandbox';
