import { ConfigError, loadConfig } from '../config';
import { createContext } from '../dispatch/context';
import { dispatch } from '../dispatch/dispatch';
import { createToolRegistry } from '../dispatch/all-tools';
import { describeTool, listedTools, type Registry } from '../dispatch/registry';
import { runShutdownHooks } from '../contract/shutdown';
import { startTracing } from '../contract/trace-export';
import { BUDGET } from '../contract/budget';
import type { ToolContext } from '../contract/types';
import { TOOL_CLI_FLAGS, TOOL_CLI_USAGE as USAGE } from './tool-usage';
import { toolPermissions } from './tool-permissions';

/** Run the tool CLI; returns the process exit code. Prints the result JSON on stdout. */
export async function toolCli(argv: string[], out = process.stdout, err = process.stderr): Promise<number> {
  const flags = new Set(argv.filter((a) => a.startsWith('--')));
  const positional = argv.filter((a) => !a.startsWith('--'));
  for (const f of flags) {
    if (!TOOL_CLI_FLAGS.includes(f)) {
      err.write(`Unknown option ${f}.\n${USAGE}\n`);
      return 2;
    }
  }
  if (flags.has('--help')) {
    out.write(USAGE + '\n');
    return 0;
  }
  let cfg;
  try {
    cfg = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      err.write(`clamp-tool: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  const reg = createToolRegistry();
  if (flags.has('--list')) {
    const ctx = createContext({ workspace: cfg.workspace, dataDir: cfg.dataDir, mode: cfg.mode });
    const rows = toolRows(reg, cfg.mode, ctx);
    out.write(flags.has('--json') ? JSON.stringify(rows) + '\n' : toolTable(rows, cfg.mode, (out as { columns?: number }).columns));
    return 0;
  }
  if (flags.has('--json')) {
    err.write(`--json goes with --list.\n${USAGE}\n`);
    return 2;
  }
  if (positional.length < 1 || positional.length > 2) {
    err.write(`${USAGE}\n`);
    return 2;
  }
  const [name, json = '{}'] = positional;
  let args: unknown;
  try {
    args = JSON.parse(json);
  } catch (e) {
    err.write(`The arguments are not valid JSON (${(e as Error).message}). Quote them for the shell: '{"path":"README.md"}'.\n`);
    return 2;
  }
  const abort = new AbortController();
  const onSignal = () => abort.abort();
  process.once('SIGINT', onSignal);
  try {
    const [perms] = await Promise.all([toolPermissions(cfg.workspace, cfg.dataDir), startTracing('tool')]);
    const ctx = createContext({ workspace: cfg.workspace, dataDir: cfg.dataDir, mode: cfg.mode, signal: abort.signal, services: perms.services });
    const result = await dispatch(reg, name, args, ctx, { approver: { approved: flags.has('--approve'), ...(perms.rule ? { rule: perms.rule } : {}) } });
    out.write(JSON.stringify(result) + '\n');
    return 0;
  } finally {
    process.off('SIGINT', onSignal);
    await runShutdownHooks();
  }
}

export interface ToolRow {
  name: string;
  effect: string;
  /** the mode lists it for the model (a tool it forbids, or one not available here, is not offered) */
  offered: boolean;
  /** the first sentence of the description the model reads */
  summary: string;
  description: string;
}

function toolRows(reg: Registry, mode: string, ctx: Pick<ToolContext, 'workspace' | 'dataDir' | 'services'>): ToolRow[] {
  const offered = new Set(listedTools(reg, mode as Parameters<typeof listedTools>[1], ctx).map((t) => t.name));
  return Object.values(reg).map((t) => {
    const description = describeTool(t, BUDGET);
    const first = description.split('\n')[0];
    // a sentence ends at . ! or ? before a capital letter or the line's end ("escape . ( )" does not end one)
    const summary = (/^.*?[.!?](?=\s+[A-Z]|$)/.exec(first)?.[0] ?? first).replace(/:$/, '.');
    return { name: t.name, effect: t.effect, offered: offered.has(t.name), summary, description };
  });
}

/** The --list table: aligned columns, one tool a line; descriptions cut to the terminal's width when it has one. */
function toolTable(rows: ToolRow[], mode: string, columns?: number): string {
  const head = { name: 'tool', effect: 'effect', offered: 'offered' };
  const w1 = Math.max(head.name.length, ...rows.map((r) => r.name.length));
  const w2 = Math.max(head.effect.length, ...rows.map((r) => r.effect.length));
  const w3 = head.offered.length;
  const line = (a: string, b: string, c: string, d: string) => {
    const left = `${a.padEnd(w1)}  ${b.padEnd(w2)}  ${c.padEnd(w3)}  `;
    const room = columns ? columns - left.length : Infinity;
    return `${left}${d.length > room ? `${d.slice(0, Math.max(room - 1, 10))}…` : d}`.trimEnd();
  };
  const offered = rows.filter((r) => r.offered).length;
  return (
    [
      `${rows.length} tools; ${offered} offered in ${mode} mode (CLAMP_MODE). Run one: npm run -s tool -- <tool> '<json args>'`,
      '',
      line(head.name, head.effect, head.offered, 'what it does'),
      ...rows.map((r) => line(r.name, r.effect, r.offered ? 'yes' : 'no', r.summary)),
    ].join('\n') + '\n'
  );
}
