import path from 'node:path';
import type { UIMessageChunk } from 'ai';
import { ConfigError, loadConfig } from '../../config';
import { BUDGET } from '../../contract/budget';
import { runShutdownHooks } from '../../contract/shutdown';
import { createToolRegistry } from '../../dispatch/all-tools';
import { parseSandboxLevel, SandboxConfigError } from '../../exec/sandbox';
import { reapLeftoverGroups, setGroupJournal, startWatchdog, stopAllGroups } from '../../exec/leftovers';
import { closeDb, newId, openDb, StoreError } from '../../store/db';
import { createSession, getSession, requireSession } from '../../store/sessions';
import { HttpError, type ServerConfig } from '../http';
import { startSessionTurn } from '../turn';
import { EXIT, parseRunArgs, RUN_USAGE, UsageError, type RunArgs } from './args';
import { headlessHost, parseAllow } from './host';
import { modelForRun } from './model';
import { RunTracker } from './outcome';
import { Transcript } from './transcript';

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
  const cfg: ServerConfig = { workspace: full.workspace, dataDir: full.dataDir, mode: full.mode };
  const reg = createToolRegistry();
  const rules = args.allow.map((a) => parseAllow(a, reg));
  const db = openDb(cfg.dataDir);
  if (args.session) {
    try {
      requireSession(db, args.session, cfg.workspace);
    } catch (err) {
      if (err instanceof StoreError && err.code === 'not-found') {
        throw new UsageError(`Session ${args.session} not found in the workspace ${cfg.workspace} (data dir ${cfg.dataDir}). The page's sidebar lists its sessions; GET /api/sessions gives their ids.`);
      }
      throw err;
    }
  }
  // the model is checked before a new session is made: a run that cannot start leaves nothing behind
  const model = await modelForRun(cfg, args.model, args.session, io.env);
  if (!model.ok) throw new UsageError(`No usable model. ${model.status.help ?? ''}`.trim());
  const created = !args.session;
  const sessionId = args.session ?? createSession(db, { workspace: cfg.workspace, mode: args.mode }, cfg.mode).id;
  // the mode the run works in: the flag, else the session's own (a new one took the settings' or CLAMP_MODE)
  const mode = args.mode ?? getSession(db, sessionId)?.mode ?? cfg.mode;
  return { prompt, cfg, rules, model, sessionId, created, mode };
}

/**
 * `clamp run`: one turn of the agent without the page, through startSessionTurn like the page's route.
 * Prints a text transcript (or --json events) on stdout and returns the exit status (EXIT). Never
 * waits for a person: calls that need approval are decided by the flags.
 */
export async function runHeadless(argv: readonly string[], io: RunIo = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env }): Promise<number> {
  let args: RunArgs | 'help';
  let prep: Awaited<ReturnType<typeof prepare>>;
  try {
    args = parseRunArgs(argv);
    if (args === 'help') {
      io.stdout.write(RUN_USAGE + '\n');
      return EXIT.ok;
    }
    prep = await prepare(args, io);
  } catch (err) {
    if (err instanceof UsageError || err instanceof ConfigError || err instanceof SandboxConfigError || err instanceof StoreError) {
      io.stderr.write(`clamp run: ${err.message}\n`);
      return EXIT.usage;
    }
    throw err;
  }
  const { cfg, sessionId } = prep;

  // commands this run starts are recorded, watched and stopped like the server's
  const groupsDir = path.join(cfg.dataDir, 'running');
  await reapLeftoverGroups(groupsDir, BUDGET.COMMAND_KILL_GRACE_MS);
  setGroupJournal(groupsDir);
  startWatchdog(groupsDir, BUDGET.COMMAND_KILL_GRACE_MS);

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

  const tracker = new RunTracker(sessionId);
  const transcript = args.json ? undefined : new Transcript(io.stdout, createToolRegistry());
  const emit = (event: unknown) => io.stdout.write(JSON.stringify(event) + '\n');
  const mode = args.mode;
  try {
    let stream: ReadableStream<UIMessageChunk>;
    try {
      stream = await startSessionTurn(
        cfg,
        { sessionId, message: { id: `run-${newId()}`, text: prep.prompt } },
        {
          signal: stop.signal,
          abortReason: 'stopped by a signal to clamp run',
          host: (stored) => headlessHost(stored, { rules: prep.rules, approveAll: args.approveAll, mode }),
          model: prep.model,
          maxSteps: args.maxSteps,
        },
      );
    } catch (err) {
      if (err instanceof HttpError || err instanceof StoreError) {
        io.stderr.write(`clamp run: ${err.message}\n`);
        return EXIT.usage;
      }
      throw err;
    }
    const header = { type: 'clamp-session', sessionId, created: prep.created, workspace: cfg.workspace, model: prep.model.status.label, mode: prep.mode };
    if (args.json) emit(header);
    else io.stderr.write(`clamp run: ${prep.created ? 'new session' : 'session'} ${sessionId} · ${prep.model.status.label} · ${cfg.workspace}\n`);
    const reader = stream.getReader();
    for (;;) {
      const { done, value: chunk } = await reader.read();
      if (done) break;
      tracker.note(chunk);
      if (transcript) transcript.note(chunk);
      else emit(chunk);
    }
    const summary = tracker.summary({ stopped: !!stoppedBy, signalExit: stoppedBy ? SIGNAL_EXIT[stoppedBy] : undefined });
    if (args.json) emit(summary);
    else io.stderr.write(Transcript.closing(summary));
    return summary.exitCode;
  } finally {
    for (const s of signals) process.off(s, onSignal);
    // background tasks the run started stop with it, as they do with the server
    await Promise.all([runShutdownHooks(), stopAllGroups(BUDGET.COMMAND_KILL_GRACE_MS + 3000)]);
    closeDb(cfg.dataDir);
  }
}
