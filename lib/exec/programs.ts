import fs from 'node:fs';
import path from 'node:path';

/** Is p a file this process may execute? */
export function isRunnableFile(p: string): boolean {
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

/**
 * The program a command names, when it exists and can run: a path as given (resolved), a bare name
 * looked up in `firstDirs` and then on PATH (absolute entries only).
 */
export function findProgram(command: string, env: NodeJS.ProcessEnv = process.env, firstDirs: readonly string[] = []): string | undefined {
  if (command.includes('/')) return isRunnableFile(command) ? path.resolve(command) : undefined;
  const dirs = [...firstDirs, ...(env.PATH ?? '').split(':')].filter((d) => d.startsWith('/'));
  return dirs.map((d) => path.join(d, command)).find(isRunnableFile);
}
