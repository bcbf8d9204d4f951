// What test/escape/mcp-run.mjs uses of lib (bundled with the other runners' by test/escape/load-lib.mjs).
export { McpHub } from '../../../lib/mcp/hub';
export { approveServer } from '../../../lib/mcp/store';
export { openDb } from '../../../lib/store/db';
