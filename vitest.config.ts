import { defineConfig } from 'vitest/config';
import path from 'node:path';

/** Tests that measure how the server answers under a load they make themselves: they run after the rest, alone on the machine. */
const ALONE = ['test/adversarial/load.test.ts'];

/**
 * Folders whose files share their worker's loaded modules (`isolate: false`): loading lib, playwright-core and the
 * stand-in servers once per worker instead of once per file changes nothing they check, and a fresh process per file
 * cost about 0.5 s of CPU each (bench/test-suite.md). They drive Clamp from outside (a browser, the bin scripts, the
 * escape runners, an editor over ACP), test pure functions, or call lib in-process on folders of their own.
 * test/file-env.ts puts back the environment, working directory and umask after each of their files.
 */
const SHARED = ['e2e', 'escape', 'cli', 'acp', 'tools', 'policy', 'core', 'agent', 'store', 'ui', 'mcp', 'checkpoints', 'hooks', 'lsp', 'limits'].map((d) => `test/${d}/**/*.test.ts`);

export default defineConfig({
  resolve: { alias: { '@': path.resolve(import.meta.dirname) } },
  test: {
    globalSetup: ['test/global-setup.ts'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // four files at once on two cores: an e2e or escape file spends much of its time waiting on a browser, a server
    // or a sandboxed command, and with two at once the cores stood idle a third of the run (bench/test-suite.md)
    maxWorkers: 4,
    projects: [
      { extends: true, test: { name: 'shared', include: SHARED, isolate: false, setupFiles: ['test/file-env.ts'] } },
      // the folders left, each file in a fresh process: the task manager is one per process and stays closed once a
      // file has shut it down (test/tasks); test/exec checks the runner's per-process state (its folder of pipes, its
      // group journal); bench/own-tree counts every process below its own; a file of each of these folders and of
      // test/server failed when run shared (bench/test-suite.md); test/adversarial crashes and kills whole servers.
      { extends: true, test: { name: 'main', include: ['test/**/*.test.ts'], exclude: [...SHARED, ...ALONE] } },
      { extends: true, test: { name: 'alone', include: ALONE, sequence: { groupOrder: 1 } } },
    ],
  },
});
