/**
 * Which language servers Clamp knows: the built-in one for TypeScript and JavaScript
 * (typescript-language-server, a dependency of Clamp) and the ones the person configures in a file
 * (`CLAMP_LSP_CONFIG`, else `<data dir>/lsp.json`): command, args and file patterns per server.
 * The configuration is the person's, never the workspace's: a repository cannot name a program to run.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { z } from 'zod';

/** One language server Clamp can start for a workspace. */
export interface ServerSpec {
  /** its key in the configuration (`typescript`, `pyright` …) */
  name: string;
  /** the program (an absolute path, or a name looked up on PATH) */
  command: string;
  args: string[];
  /** globs matched against the workspace-relative path (`**` across folders; no `/`: the file name) */
  patterns: string[];
  /** the LSP language id of a file, when the extension table does not know it */
  languageId?: string;
  initializationOptions?: Record<string, unknown>;
  /** answered to the server's workspace/configuration requests */
  settings?: Record<string, unknown>;
  /** run it under bubblewrap: the file system read-only, no network (the default) */
  sandbox: boolean;
  /** 'typescript': the built-in server, asked through tsserver's synchronous diagnostics */
  kind: 'typescript' | 'generic';
  /** the built-in server: the lib folder of Clamp's own TypeScript (run where the workspace has none of its own) */
  typescriptLib?: string;
}

const serverEntry = z.strictObject({
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  patterns: z.array(z.string().min(1)).min(1),
  languageId: z.string().min(1).optional(),
  initializationOptions: z.record(z.string(), z.unknown()).optional(),
  settings: z.record(z.string(), z.unknown()).optional(),
  sandbox: z.boolean().default(true),
});
const disabledEntry = z.strictObject({ disabled: z.literal(true) });
const configFile = z.strictObject({ servers: z.record(z.string().regex(/^[\w.-]+$/, 'use letters, digits, -, _ and .'), z.unknown()) });
/** Each entry is checked on its own schema, so an error names the field that is wrong. */
const entryOf = (v: unknown) => (v && typeof v === 'object' && 'disabled' in v ? disabledEntry : serverEntry);

/** The servers in effect for a data dir, and what is wrong with the configuration file, if anything. */
export interface ServerList {
  servers: ServerSpec[];
  /** the file read (it may not exist) */
  configPath: string;
  /** why the file was not used, with the fix */
  configProblem?: string;
}

/** Where the person's server configuration lies. */
export function lspConfigPath(dataDir: string, env: NodeJS.ProcessEnv = process.env): string {
  return env.CLAMP_LSP_CONFIG ? path.resolve(env.CLAMP_LSP_CONFIG) : path.join(dataDir, 'lsp.json');
}

/**
 * Resolve a package file at run time, from Node's own module registry (inside a Next.js server chunk
 * a visible createRequire(…).resolve(…) is rewritten into a module id).
 */
export function packageFile(spec: string): string | undefined {
  const nodeModule = (process.getBuiltinModule?.('node:module') ?? { createRequire }) as typeof import('node:module');
  for (const base of [import.meta.url, path.join(process.cwd(), 'package.json')]) {
    try {
      const found: unknown = nodeModule.createRequire(base).resolve(spec);
      if (typeof found === 'string') return found;
    } catch {
      // try the next base
    }
  }
  return undefined;
}

/** A package of Clamp's: under `root` when one is given (Clamp's install folder), else where Node resolves it from Clamp. */
function clampPackageDir(name: string, root?: string): string | undefined {
  if (root) {
    const dir = path.join(root, 'node_modules', name);
    return fs.existsSync(path.join(dir, 'package.json')) ? dir : undefined;
  }
  const pkg = packageFile(`${name}/package.json`);
  return pkg ? path.dirname(pkg) : undefined;
}

/**
 * The built-in TypeScript/JavaScript server: Clamp's typescript-language-server on Clamp's Node, with
 * Clamp's TypeScript. `root`: Clamp's install folder (default: wherever Node finds Clamp's packages).
 */
export function typescriptServer(root?: string): ServerSpec | undefined {
  const tls = clampPackageDir('typescript-language-server', root);
  if (!tls) return undefined;
  const ts = clampPackageDir('typescript', root);
  return {
    name: 'typescript',
    command: process.execPath,
    args: [path.join(tls, 'lib/cli.mjs'), '--stdio'],
    patterns: ['*.{ts,tsx,mts,cts,js,jsx,mjs,cjs}'],
    sandbox: true,
    kind: 'typescript',
    ...(ts ? { typescriptLib: path.join(ts, 'lib') } : {}),
  };
}

/** The configured servers (in the file's order) before the built-in one; a broken file is reported, not thrown. */
export function loadServers(dataDir: string, env: NodeJS.ProcessEnv = process.env): ServerList {
  const configPath = lspConfigPath(dataDir, env);
  const builtin = typescriptServer();
  const configured: ServerSpec[] = [];
  const disabled = new Set<string>();
  let configProblem: string | undefined;
  let text: string | undefined;
  try {
    text = fs.readFileSync(configPath, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') configProblem = `${configPath} cannot be read (${(err as Error).message})`;
  }
  if (text !== undefined) {
    try {
      const parsed = configFile.safeParse(JSON.parse(text));
      const entries = parsed.success ? Object.entries(parsed.data.servers).map(([name, v]) => ({ name, r: entryOf(v).safeParse(v) })) : [];
      const bad = parsed.success ? entries.find((e) => !e.r.success) : undefined;
      const issue = !parsed.success ? parsed.error.issues[0] : bad && !bad.r.success ? { ...bad.r.error.issues[0], path: ['servers', bad.name, ...bad.r.error.issues[0].path] } : undefined;
      if (issue) {
        configProblem = `${configPath}: ${issue.path.join('.') || '(top)'}: ${issue.message}. Expected {"servers": {"<name>": {"command": "...", "args": [...], "patterns": ["*.py"]}}}`;
      } else {
        for (const { name, r } of entries) {
          if (!r.success) continue;
          if ('disabled' in r.data) disabled.add(name);
          else configured.push({ name, ...(r.data as z.infer<typeof serverEntry>), kind: 'generic' });
        }
      }
    } catch (err) {
      configProblem = `${configPath} is not valid JSON (${(err as Error).message})`;
    }
  }
  const servers = [...configured];
  if (builtin && !disabled.has(builtin.name) && !configured.some((s) => s.name === builtin.name)) servers.push(builtin);
  return { servers, configPath, ...(configProblem ? { configProblem } : {}) };
}

/** A glob as a regular expression over a `/`-separated relative path. */
export function globRegex(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*') {
      const slash = glob[i + 2] === '/';
      re += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '{') {
      const close = glob.indexOf('}', i);
      if (close < 0) re += '\\{';
      else {
        re += `(?:${glob.slice(i + 1, close).split(',').map((a) => a.replace(/[.+^$()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')).join('|')})`;
        i = close;
      }
    } else re += c.replace(/[.+^$()|[\]\\{}]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/** Whether a workspace-relative path matches a server's patterns (a pattern without `/` matches the file name). */
export function matchesPatterns(rel: string, patterns: readonly string[]): boolean {
  const base = rel.slice(rel.lastIndexOf('/') + 1);
  return patterns.some((p) => globRegex(p).test(p.includes('/') ? rel : base));
}

const LANGUAGE_IDS: Record<string, string> = {
  ts: 'typescript', mts: 'typescript', cts: 'typescript', tsx: 'typescriptreact',
  js: 'javascript', mjs: 'javascript', cjs: 'javascript', jsx: 'javascriptreact',
  py: 'python', pyi: 'python', go: 'go', rs: 'rust', c: 'c', h: 'c', cpp: 'cpp', cc: 'cpp', hpp: 'cpp',
  java: 'java', rb: 'ruby', php: 'php', cs: 'csharp', swift: 'swift', kt: 'kotlin', lua: 'lua', zig: 'zig',
};

/** The LSP language id of a file for a server. */
export function languageIdOf(spec: ServerSpec, rel: string): string {
  const ext = rel.slice(rel.lastIndexOf('.') + 1).toLowerCase();
  if (spec.kind === 'typescript') return LANGUAGE_IDS[ext] ?? 'typescript';
  return spec.languageId ?? LANGUAGE_IDS[ext] ?? ext;
}

