import { PERMISSION_MODES, type PermissionMode } from '../../contract/types';

/** The exit codes of `clamp run`, documented in the README and in --help. */
export const EXIT = {
  /** the turn ran to its end, and no call was refused */
  ok: 0,
  /** the provider failed (an error the turn could not recover from) */
  providerError: 1,
  /** nothing ran: a bad flag, no prompt, an unknown session, a bad configuration or no usable model */
  usage: 2,
  /** the turn ran to its end, but at least one tool call was refused */
  denied: 3,
  /** the turn hit the step limit while the model still had calls to make */
  stepLimit: 4,
  /** nothing ran: the session is running a turn in another Clamp process (the page's server, another clamp run) */
  busy: 5,
  /** a spending limit was reached (--max-tokens, --max-cost, or the settings' session or daily limit): the turn stopped before its next request */
  limit: 6,
  /** nothing ran: the data dir's database is damaged (the message names the backup to restore) or its disk is full */
  store: 7,
  /** stopped by SIGINT (Ctrl-C); SIGTERM and SIGHUP give 143 and 129 */
  interrupted: 130,
} as const;

export const RUN_USAGE = `Usage: clamp run [options] "<prompt>"      (or "-" to read the prompt from stdin)

Runs one turn of the agent on the workspace (CLAMP_WORKSPACE, else the current directory) without the
page: the same loop, tools, modes, rules and store as the server, so the session shows on the page.

Options:
  --session <id>             continue this session (default: a new session), in its own workspace and
                             worktree wherever the run is started
  --worktree[=<branch>]      the new session works in its own git worktree of the workspace, on a new
                             branch named <branch> or from the prompt (the page finishes it: merge, keep
                             or discard)
  --mode <mode>              permission mode: ${PERMISSION_MODES.join(', ')} (a new session is created in it;
                             with --session, for this run only)
  --allow <rule>             allow calls that would need approval, for this run (repeatable):
                               <tool>            every call of a tool (e.g. write_file)
                               <tool>:<pattern>  a command rule, as saved rules are written: a command
                                                 prefix ("run_command:npm test") or =exact ("run_command:=make")
                               mcp__<server>__<tool>  one MCP tool; mcp__<server> every tool of a server
  --dangerously-approve-all  approve every call that would need approval, a command's request to leave
                             the sandbox included (blocked commands stay blocked)
  --model <provider:model>   the model for this run (default: the session's, the settings page's, then
                             CLAMP_MODEL)
  --max-steps <n>            most model steps in this turn (default: CLAMP_MAX_STEPS, else 100)
  --max-tokens <n>           most tokens this run may use (input, cached input and output, subagents'
                             included); reached, the turn stops before its next request (exit 6)
  --max-cost <usd>           most US dollars this run may spend (models with catalogue prices); as above
  --json                     one JSON event per line: the page's UI message stream chunks, a first
                             "clamp-session" event and a final "clamp-summary" event
  -h, --help                 this text

A call that needs approval and is not allowed by a flag is refused: the model is told nobody is there
to approve it and which flag would allow it. Nothing waits for a person.

Exit status: 0 the turn ended normally; 1 provider error; 2 nothing ran (bad flags, unknown session,
no usable model); 3 at least one tool call was refused (for want of approval, by the mode or by the
safety policy); 4 the step limit was reached with calls still to make; 5 nothing ran: the session is
running a turn in another Clamp process (the page's server or another clamp run; a process that died
does not hold it); 6 a spending limit was reached (--max-tokens, --max-cost, or the settings' session or
daily limit): the turn stopped before its next model request; 7 nothing ran: the data dir's database is
damaged (the message names the backup to restore and the command) or its disk is full; 130 stopped by Ctrl-C (SIGINT), 143 by SIGTERM.`;

export interface RunArgs {
  prompt: string;
  session?: string;
  /** a new session on its own worktree, its branch named or (no name) from the prompt */
  worktree?: { name?: string };
  mode?: PermissionMode;
  allow: string[];
  approveAll: boolean;
  model?: string;
  maxSteps?: number;
  /** this run's own spending limits */
  maxTokens?: number;
  maxCostUsd?: number;
  json: boolean;
}

/** Thrown for a command line that cannot run: the message says what to fix. */
export class UsageError extends Error {}

const VALUED = new Set(['--session', '--mode', '--allow', '--model', '--max-steps', '--max-tokens', '--max-cost']);

/**
 * Parse `clamp run`'s arguments (after "run"): flags anywhere, `--flag value` or `--flag=value`, `--` ends
 * the flags. Returns 'help' for -h/--help. The prompt "-" is read by the caller. Throws UsageError.
 */
export function parseRunArgs(argv: readonly string[]): RunArgs | 'help' {
  const out: RunArgs = { prompt: '', allow: [], approveAll: false, json: false };
  const words: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') {
      words.push(...argv.slice(i + 1));
      break;
    }
    if (a === '-h' || a === '--help') return 'help';
    if (!a.startsWith('--')) {
      words.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const name = eq === -1 ? a : a.slice(0, eq);
    if (name === '--json' || name === '--dangerously-approve-all' || name === '--worktree') {
      bareFlag(out, name, a, eq);
      continue;
    }
    if (!VALUED.has(name)) throw new UsageError(`Unknown option ${name}. See clamp run --help.`);
    let value: string | undefined;
    if (eq !== -1) value = a.slice(eq + 1);
    else if (i + 1 < argv.length) value = argv[++i];
    if (value === undefined || value === '') throw new UsageError(`${name} needs a value. See clamp run --help.`);
    switch (name) {
      case '--session':
        out.session = value;
        break;
      case '--mode':
        if (!(PERMISSION_MODES as readonly string[]).includes(value)) {
          throw new UsageError(`--mode ${value} is not a permission mode. Use one of: ${PERMISSION_MODES.join(', ')}.`);
        }
        out.mode = value as PermissionMode;
        break;
      case '--allow':
        out.allow.push(value);
        break;
      case '--model':
        out.model = value;
        break;
      case '--max-steps':
      case '--max-tokens':
      case '--max-cost':
        numberFlag(out, name, value);
        break;
    }
  }
  if (words.length === 0) throw new UsageError('No prompt. Give it as an argument (clamp run "fix the failing test"), or "-" to read it from stdin.');
  if (words.length > 1) throw new UsageError(`One prompt, in quotes: clamp run "${words.join(' ')}" (got ${words.length} words).`);
  out.prompt = words[0];
  if (out.worktree && out.session) throw new UsageError('--worktree starts a new session on its own worktree; a session given with --session keeps the folder it works in. Leave out one of them.');
  return out;
}

/** --max-steps, --max-tokens (commas allowed: 200,000) and --max-cost (a leading $ allowed). Throws UsageError. */
function numberFlag(out: RunArgs, name: '--max-steps' | '--max-tokens' | '--max-cost', value: string): void {
  if (name === '--max-cost') {
    const usd = Number(value.replace(/^\$/, ''));
    if (!Number.isFinite(usd) || usd <= 0) throw new UsageError(`--max-cost ${value} is not an amount of US dollars above 0 (e.g. --max-cost 0.50).`);
    out.maxCostUsd = usd;
    return;
  }
  const n = Number(name === '--max-tokens' ? value.replace(/[,_]/g, '') : value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`${name} ${value} is not a whole number of ${name === '--max-steps' ? 'steps' : 'tokens'} of at least 1.`);
  if (name === '--max-steps') out.maxSteps = n;
  else out.maxTokens = n;
}

/** A flag that takes no value (`--json`, `--dangerously-approve-all`), or `--worktree` whose value is optional (`--worktree=<branch>`). Throws UsageError. */
function bareFlag(out: RunArgs, name: string, a: string, eq: number): void {
  if (name === '--worktree') {
    const branch = eq === -1 ? undefined : a.slice(eq + 1).trim();
    if (branch === '') throw new UsageError('--worktree= needs a branch name, or leave out the "=" to name it from the prompt.');
    out.worktree = branch ? { name: branch } : {};
    return;
  }
  if (eq !== -1) throw new UsageError(`${name} takes no value.`);
  if (name === '--json') out.json = true;
  else out.approveAll = true;
}
