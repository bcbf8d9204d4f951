import fs from 'node:fs';
import path from 'node:path';

/** Where the built-in TypeScript server's TypeScript comes from. */
export type TsSource = 'workspace' | 'clamp';

/** The TypeScript the built-in server should run: the workspace's own only inside the sandbox, else Clamp's (`clampLib`). */
export function typescriptFor(workspace: string, sandboxed: boolean, clampLib: string | undefined): { path: string; source: TsSource } | undefined {
  const own = path.join(workspace, 'node_modules/typescript/lib');
  if (sandboxed && fs.existsSync(path.join(own, 'tsserver.js'))) return { path: own, source: 'workspace' };
  return clampLib && fs.existsSync(path.join(clampLib, 'tsserver.js')) ? { path: clampLib, source: 'clamp' } : undefined;
}
