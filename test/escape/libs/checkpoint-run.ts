// What test/escape/checkpoint-run.mjs uses of lib (bundled with the other runners' by test/escape/load-lib.mjs).
export { shadowFor } from '../../../lib/checkpoints/shadow';
export { restorePath, restoreTree, takeSnapshot } from '../../../lib/checkpoints/snapshot';
export { changedPaths } from '../../../lib/checkpoints/diff';
