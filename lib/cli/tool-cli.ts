import { ConfigError, loadConfig } from '../config';
import { createContext } from '../dispatch/context';
import { dispatch } from '../dispatch/dispatch';
import { createToolRegistry } from '../dispatch/all-tools';
import { runShutdownHooks } from '../contract/shutdown';

const USAGE = `Usage: npm run tool -- <tool-name> ['<json args>'] [--approve]
Runs one Clamp tool through dispatch and prints its ToolResult as one JSON object.
  --approve   approve a call that would otherwise need a person (status "approval-required")
  --list      list the tools this mode offers
Environment: CLAMP_WORKSPACE (default: the current directory), CLAMP_MODE, CLAMP_DATA_DIR.
Exit code: 0 whatever the tool's status; 2 for misuse of this command.`;

/** Run the tool CLI; returns the process exit code. Prints the result JSON on stdout. */
export async function toolCli(argv: string[], out = process.stdout, err = process.stderr): Promise<number> {
  const flags = new Set(argv.filter((a) => a.startsWith('--')));
  const positional = argv.filter((a) => !a.startsWith('--'));
  for (const f of flags) {
    if (!['--approve', '--help', '--list'].includes(f)) {
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
    out.write(JSON.stringify(Object.values(reg).map((t) => ({ name: t.name, effect: t.effect }))) + '\n');
    return 0;
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
    const ctx = createContext({ workspace: cfg.workspace, dataDir: cfg.dataDir, mode: cfg.mode, signal: abort.signal });
    const result = await dispatch(reg, name, args, ctx, { approver: { approved: flags.has('--approve') } });
    out.write(JSON.stringify(result) + '\n');
    return 0;
  } finally {
    process.off('SIGINT', onSignal);
    await runShutdownHooks();
  }
}
