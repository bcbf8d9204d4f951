import { afterAll } from 'vitest';

/**
 * Test files share their worker's module cache (`isolate: false` in vitest.config.ts): lib and the test helpers are
 * loaded once per worker, not once per file. What a file changes of the process it must not leave to the next file:
 * after each file its environment variables, its working directory and its umask are put back as they were before it.
 */
const env = { ...process.env };
const cwd = process.cwd();
const umask = process.umask();

afterAll(() => {
  for (const k of Object.keys(process.env)) if (!(k in env)) delete process.env[k];
  for (const [k, v] of Object.entries(env)) if (process.env[k] !== v) process.env[k] = v;
  if (process.cwd() !== cwd) process.chdir(cwd);
  process.umask(umask);
});
