// What test/escape/tool-batch.mjs uses of lib (bundled with the other runners' by test/escape/load-lib.mjs).
export { loadConfig } from '../../../lib/config';
export { createContext } from '../../../lib/dispatch/context';
export { dispatch } from '../../../lib/dispatch/dispatch';
export { createToolRegistry } from '../../../lib/dispatch/all-tools';
export { runShutdownHooks } from '../../../lib/contract/shutdown';
export { toolPermissions } from '../../../lib/cli/tool-permissions';
