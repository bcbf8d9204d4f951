import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { escape, escapes, PLANTED_FILES, type Host } from './harness';

/**
 * The sandbox a language server runs in shows what the server runs from — Clamp's folder, Node's — wherever
 * Clamp is installed (in HOME, under /tmp). Binding it in must not bring back anything the sandbox hides: the
 * person's keys, the data dir, the rest of /tmp. Each case runs code inside the server's very sandbox (the
 * arguments lib/lsp/client.ts starts it with) as the host's user.
 */
const HERE = import.meta.dirname;
const CLAMP = path.resolve(HERE, '../..');

/** Clamp "installed" at `root`: its two packages linked into root/node_modules. */
function installClampAt(root: string, uid: number): void {
  fs.mkdirSync(path.join(root, 'node_modules'), { recursive: true });
  for (const pkg of ['typescript-language-server', 'typescript']) fs.symlinkSync(path.join(CLAMP, 'node_modules', pkg), path.join(root, 'node_modules', pkg));
  if (uid !== 0) fs.lchownSync(path.join(root, 'node_modules'), uid, uid);
}

async function inSandbox(host: Host, root: string, kind: 'server' | 'command', script: string, dataDir = host.dataDir): Promise<{ code: number; stdout: string; stderr: string; bound: string[]; error?: string }> {
  const r = await host.run(process.execPath, [path.join(HERE, 'lsp-run.mjs'), root, host.workspace, dataDir, kind, script], { timeoutMs: 60_000 });
  try {
    return JSON.parse(r.stdout);
  } catch {
    throw new Error(`lsp-run printed no result (exit ${r.code}):\n${r.stdout.slice(0, 2000)}\n${r.stderr.slice(0, 2000)}`);
  }
}

/** A script that prints every planted key it can read, one per line as `<file>: <text>`, and tries to write in HOME and outside. */
function grabScript(host: Host): string {
  const reads = PLANTED_FILES.map((rel) => `echo "${rel}: $(cat '${path.join(host.home, rel)}' 2>/dev/null)"`);
  return [...reads, `echo x > '${path.join(host.home, 'planted-by-server')}' 2>/dev/null`, `echo x > '${path.join(host.outside, 'planted-by-server')}' 2>/dev/null`, 'true'].join('\n');
}
const leakedFiles = (host: Host, out: string) => out.split('\n').filter((l) => host.leaked(l)).map((l) => l.split(':')[0]);

escapes('language servers', () => {
  escape(
    { tries: "Clamp (its language server) installed in HOME: HOME is bound into the server's sandbox, and code there reads the planted keys and writes to HOME and outside", checks: 'no key the same sandbox hides from a command is readable, ~/.ssh/id_rsa never; nothing written in HOME or outside' },
    async (host) => {
      installClampAt(host.home, host.uid);
      const server = await inSandbox(host, host.home, 'server', grabScript(host));
      expect(server.error).toBeUndefined();
      // the server's own files are there
      expect(server.bound).toContain(host.home);
      const command = await inSandbox(host, host.home, 'command', grabScript(host));
      const leaked = leakedFiles(host, server.stdout);
      expect(leaked).not.toContain('.ssh/id_rsa');
      expect(leaked.filter((f) => !leakedFiles(host, command.stdout).includes(f))).toEqual([]);
      // (the Clamp this case installed in HOME aside)
      expect(host.outsideTouched().filter((p) => !p.startsWith('home/node_modules'))).toEqual([]);
    },
  );

  escape(
    { tries: "Clamp installed under /tmp, its data dir inside its folder: the server's sandbox shows Clamp's folder, and code there reads the data dir's secrets and another folder of /tmp", checks: "the server runs (its entry is readable); the data dir's files and the other /tmp folder's file are not; nothing outside touched" },
    async (host) => {
      const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'clamp-escape-lsp-')));
      try {
        fs.chmodSync(tmp, 0o755);
        const root = path.join(tmp, 'clamp');
        const other = path.join(tmp, 'someone-else');
        fs.mkdirSync(root);
        fs.mkdirSync(other);
        fs.writeFileSync(path.join(other, 'token.txt'), `token ${'CANARY-7f3a9c1e-do-not-leak'}\n`, { mode: 0o644 });
        const dataDir = path.join(root, '.clamp');
        fs.mkdirSync(dataDir);
        fs.writeFileSync(path.join(dataDir, 'secrets.json'), JSON.stringify({ apiKey: 'CANARY-7f3a9c1e-do-not-leak' }), { mode: 0o644 });
        if (host.uid !== 0) for (const p of [root, dataDir]) fs.chownSync(p, host.uid, host.uid);
        installClampAt(root, host.uid);
        const script = [
          `test -r '${path.join(root, 'node_modules/typescript-language-server/lib/cli.mjs')}' && echo entry-readable`,
          `cat '${path.join(dataDir, 'secrets.json')}' 2>/dev/null`,
          `cat '${path.join(other, 'token.txt')}' 2>/dev/null`,
          `ls -la '${tmp}' 2>/dev/null`,
          `echo x > '${path.join(host.outside, 'planted-by-server')}' 2>/dev/null`,
          'true',
        ].join('\n');
        const r = await inSandbox(host, root, 'server', script, dataDir);
        expect(r.error).toBeUndefined();
        expect(r.stdout).toContain('entry-readable');
        expect(host.leaked(r.stdout + r.stderr)).toBe(false);
        expect(r.stdout).not.toContain('someone-else');
        expect(host.outsideTouched()).toEqual([]);
      } finally {
        fs.rmSync(tmp, { recursive: true, force: true });
      }
    },
  );
});
