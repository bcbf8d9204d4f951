import { defineConfig } from 'vitest/config';
import path from 'node:path';

/** Tests that measure how the server answers under a load they make themselves: they run after the rest, alone on the machine. */
const ALONE = ['test/adversarial/load.test.ts'];

/**
 * Folders whose files share their worker's loaded modules (`isolate: false`): they drive Clamp from outside (a
 * browser, the bin scripts, the escape runners, an editor over ACP) or test pure functions, so loading lib,
 * playwright-core and the stand-in servers once per worker instead of once per file changes nothing they check.
 * test/file-env.ts puts back the environment, working directory and umask after each of their files. The other
 * folders call lib in-process with process-wide state (the task manager, the build's terminal, env read at import),
 * so each of their files gets a fresh process.
 */
const SHARED = ['test/e2e/**/*.test.ts', 'test/escape/**/*.test.ts', 'test/cli/**/*.test.ts', 'test/acp/**/*.test.ts', 'test/tools/**/*.test.ts', 'test/policy/**/*.test.ts', 'test/core/**/*.test.ts'];

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
      { extends: true, test: { name: 'main', include: ['test/**/*.test.ts'], exclude: [...SHARED, ...ALONE] } },
      { extends: true, test: { name: 'alone', include: ALONE, sequence: { groupOrder: 1 } } },
    ],
  },
});
