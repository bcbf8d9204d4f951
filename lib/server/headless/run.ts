import fs from 'node:fs';
import type { UIMessageChunk } from 'ai';
import { ConfigError, loadConfig } from '../../config';
import { BUDGET } from '../../contract/budget';
import { createToolRegistry } from '../../dispatch/all-tools';
import { parseSandboxLevel, SandboxConfigError } from '../../exec/sandbox';
import { stopAllGroups } from '../../exec/leftovers';
import { closeDb, DamagedStoreError, newId, openDb, StoreError, type Db } from '../../store/db';
import { DiskFullError } from '../../contract/disk-full';
import { createSession, deleteSession, getSession } from '../../store/sessions';
import { getWorktree, sessionHome, sessionRoot } from '../../store/worktrees';
import { HttpError, type ServerConfig } from '../http';
import { stopEverything, takeOverCommands } from '../process-groups';
import { SessionBusyError, startSessionTurn } from '../turn';
import { EXIT, parseRunArgs, RUN_USAGE, UsageError, type RunArgs } from './args';
import { headlessHost, parseAllow } from './host';
import { modelForRun } from './model';
import { RunTracker } from './outcome';
import { Transcript } from './transcript';
import { requestWorktree } from '../worktrees';
import { spendGuard } from '../limits';
import type { SpendGuard } from '../../contract/limits';
import { runRetentionIfDue } from '../retention';

export interface RunIo {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
}

/** The exit status of a run stopped by a signal (128 + its number). */
const SIGNAL_EXIT: Record<string, number> = { SIGINT: EXIT.interrupted, SIGTERM: 143, SIGHUP: 129 };

async function readAll(stream: NodeJS.ReadableStream, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of stream) {
    const b = typeof c === 'string' ? Buffer.from(c) : (c as Buffer);
    size += b.length;
    if (size > maxBytes) throw new UsageError(`The prompt on stdin is larger than ${maxBytes} bytes. Send less.`);
    chunks.push(b);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The prompt, the configuration and the session a run needs; throws UsageError / ConfigError / StoreError. */
async function prepare(args: RunArgs, io: RunIo) {
  const prompt = args.prompt === '-' ? await readAll(io.stdin, BUDGET.CHAT_BODY_MAX_BYTES) : args.prompt;
  if (prompt.trim() === '') throw new UsageError('The prompt is empty. Say what the agent should do.');
  if (Buffer.byteLength(prompt) > BUDGET.CHAT_BODY_MAX_BYTES) throw new UsageError(`The prompt is larger than ${BUDGET.CHAT_BODY_MAX_BYTES} bytes. Send less.`);
  const full = loadConfig(io.env);
  parseSandboxLevel(io.env.CLAMP_SANDBOX);
  const reg = createToolRegistry();
  const rules = args.allow.map((a) => parseAllow(a, reg));
  const db = openDb(full.dataDir);
  const here: ServerConfig = { workspace: full.workspace, dataDir: full.dataDir, mode: full.mode };
  const cfg = args.session ? sessionConfig(db, here, args.session) : here;
  // the model is checked before a new session is made: a run that cannot start leaves nothing behind
  const model = await modelForRun(cfg, args.model, args.session, io.env);
  if (!model.ok) throw new UsageError(`No usable model. ${model.status.help ?? ''}`.trim());
  const created = !args.session;
  const sessionId = args.session ?? createSession(db, { workspace: cfg.workspace, mode: args.mode }, cfg.mode).id;
  if (args.worktree) await worktreeForRun(cfg, db, sessionId, args.worktree);
  // the mode the run works in: the flag, else the session's own (a new one took the settings' or CLAMP_MODE)
  const mode = args.mode ?? getSession(db, sessionId)?.mode ?? cfg.mode;
  return { prompt, cfg, rules, model, sessionId, created, mode };
}

type Prepared = Awaited<ReturnType<typeof prepare>>;

/**
 * --session: the run works in the session's own workspace (its rules, approvals and memories are that workspace's,
 * and its turn then works in the session's worktree while it has one), wherever the run was started; UsageError when
 * the data dir has no such session or its workspace is gone.
 */
function sessionConfig(db: Db, here: ServerConfig, sessionId: string): ServerConfig {
  const home = sessionHome(db, sessionId);
  if (!home) throw new UsageError(`Session ${sessionId} not found in the data dir ${here.dataDir}. The page's sidebar lists its sessions; GET /api/sessions gives their ids.`);
  if (!fs.existsSync(home)) throw new UsageError(`Session ${sessionId} belongs to the workspace ${home}, which is no longer there. Start a new session instead.`);
  return home === here.workspace ? here : { ...here, workspace: home };
}

/** --worktree: the new session's worktree (made with the turn, named from the prompt, unless named); UsageError, and no session left, when it cannot be. */
async function worktreeForRun(cfg: ServerConfig, db: Db, sessionId: string, req: { name?: string }): Promise<void> {
  try {
    await requestWorktree(cfg, sessionId, req);
  } catch (err) {
    deleteSession(db, cfg.workspace, sessionId);
    if (err instanceof HttpError) throw new UsageError(`--worktree: ${err.message}`);
    throw err;
  }
}

/**
 * `clamp run`: one turn of the agent without the page, through startSessionTurn like the page's route.
 * Prints a text transcript (or --json events) on stdout and returns the exit status (EXIT). Never
 * waits for a person: calls that need approval are decided by the flags.
 */
export async function runHeadless(argv: readonly string[], io: RunIo = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env }): Promise<number> {
  const started = await startRun(argv, io);
  if (typeof started === 'number') return started;
  const { args, prep } = started;
  // commands this run starts are recorded, watched and stopped like the server's
  await takeOverCommands(prep.cfg.dataDir);
  const stop = stopOnSignals(io);
  try {
    // the run's spending: its own limits (--max-tokens, --max-cost) with the settings'
    const spend = spendGuard(openDb(prep.cfg.dataDir), { sessionId: prep.sessionId, run: { maxTokens: args.maxTokens, maxCostUsd: args.maxCostUsd } });
    const stream = await turnStream(args, prep, stop.signal, io, spend);
    if (typeof stream === 'number') return stream;
    return await relayTurn(stream, args, prep, io, { stoppedBy: stop.stoppedBy, spend });
  } finally {
    stop.dispose();
    // background tasks the run started stop with it, as they do with the server
    await stopEverything();
    // the data dir stays bounded for people who only run headless: cleaned up when the latest clean-up is old enough
    await runRetentionIfDue(prep.cfg.dataDir);
    closeDb(prep.cfg.dataDir);
  }
}

/** The flags and what the run needs, or the exit status when it ends here (--help, or a usage or configuration error said on stderr). */
async function startRun(argv: readonly string[], io: RunIo): Promise<{ args: RunArgs; prep: Prepared } | number> {
  try {
    const args = parseRunArgs(argv);
    if (args === 'help') {
      io.stdout.write(RUN_USAGE + '\n');
      return EXIT.ok;
    }
    return { args, prep: await prepare(args, io) };
  } catch (err) {
    if (err instanceof DamagedStoreError || err instanceof DiskFullError) {
      io.stderr.write(`clamp run: ${err.message}\n`);
      return EXIT.store;
    }
    if (err instanceof UsageError || err instanceof ConfigError || err instanceof SandboxConfigError || err instanceof StoreError) {
      io.stderr.write(`clamp run: ${err.message}\n`);
      return EXIT.usage;
    }
    throw err;
  }
}

interface SignalStop {
  signal: AbortSignal;
  /** the signal that stopped the run, if one did */
  stoppedBy: () => string | undefined;
  dispose: () => void;
}

/** SIGINT, SIGTERM or SIGHUP stops the turn and its commands; a second one exits at once. */
function stopOnSignals(io: RunIo): SignalStop {
  const stop = new AbortController();
  let stoppedBy: string | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stoppedBy) {
      // a second signal: do not wait for the turn to wind down
      io.stderr.write(`clamp run: ${signal} again: exiting now.\n`);
      void stopAllGroups(BUDGET.COMMAND_KILL_GRACE_MS).finally(() => process.exit(SIGNAL_EXIT[signal] ?? EXIT.interrupted));
      return;
    }
    stoppedBy = signal;
    io.stderr.write(`\nclamp run: ${signal}: stopping the turn and its commands…\n`);
    stop.abort(new Error(`stopped by ${signal}`));
  };
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const s of signals) process.on(s, onSignal);
  return { signal: stop.signal, stoppedBy: () => stoppedBy, dispose: () => signals.forEach((s) => process.off(s, onSignal)) };
}

/** The turn's stream of events, started as the page's route starts one; a request it refuses is said on stderr (its exit status instead). */
async function turnStream(args: RunArgs, prep: Prepared, signal: AbortSignal, io: RunIo, spend: SpendGuard): Promise<ReadableStream<UIMessageChunk> | number> {
  try {
    return await startSessionTurn(
      prep.cfg,
      { sessionId: prep.sessionId, message: { id: `run-${newId()}`, text: prep.prompt } },
      {
        signal,
        abortReason: 'stopped by a signal to clamp run',
        host: (stored) => headlessHost(stored, { rules: prep.rules, approveAll: args.approveAll, mode: args.mode }),
        model: prep.model,
        maxSteps: args.maxSteps,
        holder: 'clamp run',
        spend,
      },
    );
  } catch (err) {
    if (err instanceof DiskFullError) {
      io.stderr.write(`clamp run: ${err.message}\n`);
      return EXIT.store;
    }
    if (err instanceof HttpError || err instanceof StoreError) {
      io.stderr.write(`clamp run: ${err.message}\n`);
      // the session runs a turn in another process (the page's server, another run): nothing ran here
      return err instanceof SessionBusyError ? EXIT.busy : EXIT.usage;
    }
    throw err;
  }
}

/** Print the turn as it happens (a transcript, or --json events) between its header and its summary; the run's exit status. */
async function relayTurn(stream: ReadableStream<UIMessageChunk>, args: RunArgs, prep: Prepared, io: RunIo, end: { stoppedBy: () => string | undefined; spend: SpendGuard }): Promise<number> {
  const { cfg, sessionId } = prep;
  const tracker = new RunTracker(sessionId);
  const transcript = args.json ? undefined : new Transcript(io.stdout, createToolRegistry());
  const emit = (event: unknown) => io.stdout.write(JSON.stringify(event) + '\n');
  // a session on its own worktree works there (made by now, its branch named)
  const db = openDb(cfg.dataDir);
  const wt = getWorktree(db, sessionId);
  const where = sessionRoot(db, sessionId, cfg.workspace);
  const header = { type: 'clamp-session', sessionId, created: prep.created, workspace: where, model: prep.model.status.label, mode: prep.mode, ...(wt ? { worktree: wt } : {}) };
  if (args.json) emit(header);
  else io.stderr.write(`clamp run: ${prep.created ? 'new session' : 'session'} ${sessionId} · ${prep.model.status.label} · ${where}${wt?.branch ? ` (worktree, branch ${wt.branch} from ${wt.base})` : ''}\n`);
  const reader = stream.getReader();
  for (;;) {
    const { done, value: chunk } = await reader.read();
    if (done) break;
    tracker.note(chunk);
    if (transcript) transcript.note(chunk);
    else emit(chunk);
  }
  const by = end.stoppedBy();
  const summary = tracker.summary({ stopped: !!by, signalExit: by ? SIGNAL_EXIT[by] : undefined, limit: end.spend.stoppedAt() });
  if (args.json) emit(summary);
  else io.stderr.write(Transcript.closing(summary));
  return summary.exitCode;
}
