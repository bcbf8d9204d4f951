import fs from 'node:fs';
import os from 'node:os';
import { createRequire } from 'node:module';
import type { ResultPromise } from 'execa';
import type { Readable } from 'node:stream';
import { closeFd, openPipes, readerOf } from './fifo';
import { groupAlive, signalGroup, signalGroupExcept, waitGroupGone } from './group';
import { trackGroup, untrackGroup } from './leftovers';
import { logPathsFor, makeLogDir, RunSinks, type LogPaths } from './run-logs';
import type { KillReason, RunHandle, RunOptions, RunResult } from './run-types';
import type { CommandCgroup } from './cgroups';
import type { SandboxLimits } from './limits';
import { BUDGET } from '../contract/budget';

/** What to spawn for one command: a program and its arguments (the shell, or the sandbox around it). */
export interface SpawnSpec {
  file: string;
  args: readonly string[];
  env: NodeJS.ProcessEnv;
  /**
   * the group leader is the sandbox's outer process: SIGTERM goes to every other member (so the
   * command can clean up), SIGKILL to the whole group
   */
  spareLeader?: boolean;
  /** descriptors the child gets as fd 3, 4 … (the sandbox's system-call filter); closed here once it started */
  fds?: number[];
  /** the sandbox's limits on the command, and the cgroup that enforces some of them */
  limits?: SandboxLimits;
  cgroup?: CommandCgroup;
  /**
   * with a cgroup: our ends of the pipes bwrap is held with — it reports the sandbox's first process on `info`
   * and waits for a byte on `block`; that process goes into the cgroup before the command starts
   */
  hold?: { info: number; block: number };
}

type Child = ResultPromise<{ buffer: false; encoding: 'buffer' }>;

type Execa = typeof import('execa').execa;
let execaFn: Execa | undefined;

/**
 * Load the process starter (execa) before the first command: a process that runs none (a read, a headless run's
 * first request) never loads it. runCommand and run_command await it; it is an import(), which works under tsx too
 * (a require of the ESM package does not there: 'No exports main defined in unicorn-magic').
 */
export async function loadRunner(): Promise<void> {
  execaFn ??= (await import('execa')).execa;
}

/** execa, loaded already (loadRunner) or now; the synchronous load serves a direct startCommand outside tsx. */
const execa = ((...args: unknown[]) => {
  execaFn ??= (createRequire(import.meta.url)('execa') as typeof import('execa')).execa;
  return (execaFn as unknown as (...a: unknown[]) => unknown)(...args);
}) as Execa;

/**
 * One command from spawn to reaped. execa starts the process (its own group: detached, so one
 * signal to -pgid reaches every child); Clamp reads both pipes itself from the first byte, owns
 * the timeout, the group kill (SIGTERM → grace → SIGKILL), the orphan journal and the result.
 * The steps: start → (exit) → stop leftovers → finalize (close logs, resolve `done`).
 */
export class CommandRun {
  readonly startedAt = Date.now();
  readonly paths: LogPaths;
  readonly done: Promise<RunResult>;
  private resolveDone!: (r: RunResult) => void;
  private child: Child | undefined;
  /** what Clamp reads the command's output from: its pipes (fifo.ts), or the child's stdio streams */
  private readers: Partial<Record<'stdout' | 'stderr', Readable>> = {};
  private openReaders = 0;
  private childClosed = false;
  private sinks!: RunSinks;
  pid: number | undefined;
  private exitCode: number | null = null;
  private exitSignal: NodeJS.Signals | null = null;
  private exitedAt: number | undefined;
  private killedBy: KillReason | null = null;
  private spawnError: string | undefined;
  private leftoverStopped = false;
  private pipesAbandoned = false;
  finished = false;
  private finalizing = false;
  private timeoutTimer: NodeJS.Timeout | undefined;
  private killTimer: NodeJS.Timeout | undefined;
  private watchdog: NodeJS.Timeout | undefined;
  private spareLeader = false;
  private limits: SandboxLimits | undefined;
  private cgroup: CommandCgroup | undefined;
  private limitTimer: NodeJS.Timeout | undefined;
  private limitHit: RunResult['limitHit'];
  private readonly onAbort = () => void this.kill('user');

  constructor(
    private readonly o: RunOptions,
    readonly id: string,
  ) {
    this.paths = logPathsFor(o.logDir, id, this.startedAt);
    this.done = new Promise<RunResult>((r) => (this.resolveDone = r));
  }

  /** Spawn and wire everything up; never throws (a failure to start resolves `done` with spawnError). */
  start(spec: SpawnSpec | { error: string }): this {
    const logError = makeLogDir(this.o.logDir);
    if ('error' in spec) this.spawnError = spec.error;
    else this.spawn(spec);
    this.sinks = new RunSinks(this.o, this.paths, !logError && this.pid !== undefined, logError);
    for (const name of ['stdout', 'stderr'] as const) {
      const r = this.readers[name];
      if (!r) continue;
      this.openReaders++;
      r.once('close', () => {
        this.openReaders--;
        this.maybeFinalize();
      });
      this.sinks.read(name, r);
    }
    this.listen();
    if (this.pid !== undefined) this.arm();
    else if (!this.child) void this.finalize();
    return this;
  }

  private spawn(spec: SpawnSpec): void {
    this.spareLeader = spec.spareLeader === true;
    this.limits = spec.limits;
    // OS pipes where they can be made (fifo.ts); else the socket pairs of stdio 'pipe'
    const pipes = openPipes();
    try {
      this.child = execa(spec.file, spec.args, {
        cwd: this.o.cwd,
        env: spec.env,
        // exactly the environment given: commandEnv has removed Clamp's token and secrets
        extendEnv: false,
        // a file descriptor is passed to the child as is; typed as 'pipe', whose streams Clamp reads the same way
        stdio: ['ignore', pipes ? pipes.stdout.write : 'pipe', pipes ? pipes.stderr.write : 'pipe', ...(spec.fds ?? [])] as unknown as ['ignore', 'pipe', 'pipe'],
        // Clamp drains the pipes itself (capture, logs, live); execa buffers nothing
        buffer: false,
        encoding: 'buffer',
        detached: true,
        // the group kill, the timeout and the orphan journal are Clamp's own
        cleanup: false,
        forceKillAfterDelay: false,
        reject: false,
      }) as unknown as Child;
      this.pid = this.child.pid;
      // execa's promise settles with the result Clamp does not use; it never rejects (reject: false)
      this.child.catch(() => undefined);
    } catch (e) {
      this.spawnError = e instanceof Error ? e.message : String(e);
    } finally {
      for (const fd of spec.fds ?? []) closeFd(fd);
    }
    if (spec.hold && spec.cgroup && this.child) {
      this.cgroup = spec.cgroup;
      void this.release(spec.hold, spec.cgroup);
    } else {
      if (spec.hold) [spec.hold.info, spec.hold.block].forEach(closeFd);
      spec.cgroup?.remove();
    }
    if (pipes) {
      // the command holds its ends now (or never started): ours close, so the reads end when the command's do
      closeFd(pipes.stdout.write);
      closeFd(pipes.stderr.write);
      if (this.child) this.readers = { stdout: readerOf(pipes.stdout.read), stderr: readerOf(pipes.stderr.read) };
      else [pipes.stdout.read, pipes.stderr.read].forEach(closeFd);
    } else if (this.child) {
      this.readers = { stdout: this.child.stdout ?? undefined, stderr: this.child.stderr ?? undefined };
    }
  }

  /**
   * bwrap waits: the sandbox's first process (named on the info pipe) goes into the command's cgroup, off the
   * event loop and while bwrap builds the sandbox, then bwrap is let go. When the cgroup cannot take it, the
   * command runs under its rlimits only; bwrap is let go whatever happens.
   */
  private async release(hold: { info: number; block: number }, cgroup: CommandCgroup): Promise<void> {
    const pid = await childPid(hold.info);
    if (pid === undefined || !(await cgroup.attach(pid))) {
      this.cgroup = undefined;
      clearInterval(this.limitTimer);
      cgroup.remove();
    }
    fs.write(hold.block, Buffer.from('g'), () => closeFd(hold.block));
  }

  private listen(): void {
    const child = this.child;
    if (!child) return;
    child.on('error', (err) => {
      if (this.pid === undefined) {
        this.spawnError = err.message;
        void this.finalize();
      }
    });
    child.on('exit', (code, sig) => this.onExit(code, sig));
    child.on('close', () => {
      this.childClosed = true;
      this.maybeFinalize();
    });
  }

  /** Timeout, abort and the orphan journal, for a process that started. */
  private arm(): void {
    const pid = this.pid!;
    this.o.signal?.addEventListener('abort', this.onAbort, { once: true });
    // the group is recorded until it is reaped, so a stopping or crashed server leaves no command behind
    trackGroup(pid, () => this.kill('shutdown'));
    if (this.o.timeoutMs && this.o.timeoutMs > 0) this.timeoutTimer = setTimeout(() => void this.kill('timeout'), this.o.timeoutMs);
    // a command that reached its cgroup's process limit is a runaway (a fork loop): it is stopped
    if (this.cgroup?.controllers.includes('pids')) {
      const cgroup = this.cgroup;
      this.limitTimer = setInterval(() => {
        if (!cgroup.hits().processes) return;
        this.limitHit = 'processes';
        clearInterval(this.limitTimer);
        void this.kill('limit');
      }, BUDGET.SANDBOX_LIMIT_POLL_MS);
      this.limitTimer.unref();
    }
    if (this.o.signal?.aborted) void this.kill('user');
  }

  private armKill(): void {
    if (this.pid === undefined) return;
    const pid = this.pid;
    if (this.spareLeader) signalGroupExcept(pid, 'SIGTERM', pid);
    else signalGroup(pid, 'SIGTERM');
    this.killTimer ??= setTimeout(() => signalGroup(pid, 'SIGKILL'), this.o.killGraceMs);
  }

  /** Stop the whole group and resolve once it is reaped. */
  kill(reason: KillReason): Promise<RunResult> {
    if (this.finished || this.pid === undefined) return this.done;
    if (this.exitedAt === undefined) this.killedBy ??= reason;
    this.armKill();
    return this.done;
  }

  private onExit(code: number | null, sig: NodeJS.Signals | null): void {
    this.exitedAt = Date.now();
    this.exitCode = code;
    this.exitSignal = sig;
    // bwrap reports a command a signal ended as 128 + the signal: read it back as the signal when Clamp sent one
    if (this.spareLeader && this.killedBy !== null && code !== null && code > 128) {
      const name = Object.entries(os.constants.signals).find(([, n]) => n === code - 128)?.[0];
      if (name) [this.exitCode, this.exitSignal] = [null, name as NodeJS.Signals];
    }
    clearTimeout(this.timeoutTimer);
    if (this.pid === undefined) return;
    // in the sandbox the end of its pid namespace takes whatever the shell left running (the kernel kills it)
    if (!this.spareLeader && groupAlive(this.pid)) {
      // the shell is gone but something it started still runs (and may hold our pipes): stop it
      if (this.killedBy === null) this.leftoverStopped = true;
      this.armKill();
    }
    // a process that left the group (setsid) may keep the pipes open forever: stop waiting for it
    this.watchdog = setTimeout(() => {
      this.pipesAbandoned = true;
      this.readers.stdout?.destroy();
      this.readers.stderr?.destroy();
      void this.finalize();
    }, this.o.killGraceMs + 1000);
  }

  /** Once the child is reaped and both of its outputs are read to their end (or abandoned). */
  private maybeFinalize(): void {
    if (this.childClosed && this.openReaders === 0) void this.finalize();
  }

  /** Whatever is left of the group goes, the logs close, `done` resolves; runs once. */
  private async finalize(): Promise<void> {
    if (this.finalizing) return;
    this.finalizing = true;
    clearTimeout(this.timeoutTimer);
    clearTimeout(this.watchdog);
    clearInterval(this.limitTimer);
    this.o.signal?.removeEventListener('abort', this.onAbort);
    await this.stopLeftovers();
    if (this.cgroup) {
      const hits = this.cgroup.hits();
      this.limitHit ??= hits.processes ? 'processes' : hits.memory ? 'memory' : undefined;
      this.cgroup.remove();
    }
    if (this.pid !== undefined) untrackGroup(this.pid);
    clearTimeout(this.killTimer);
    await this.sinks.close();
    this.finished = true;
    this.resolveDone(this.result());
  }

  /** Processes still running in the group once its pipes closed: stopped, so nothing is orphaned. */
  private async stopLeftovers(): Promise<void> {
    const pid = this.pid;
    if (pid === undefined || !groupAlive(pid)) return;
    // a sandbox's namespace is being torn down: give the kernel a moment before calling anything a leftover
    if (this.spareLeader && (await waitGroupGone(pid, 500))) return;
    this.leftoverStopped ||= this.exitedAt !== undefined && this.killedBy === null;
    this.armKill();
    if (!(await waitGroupGone(pid, this.o.killGraceMs + 1000))) signalGroup(pid, 'SIGKILL');
  }

  private result(): RunResult {
    const s = this.sinks.streams;
    const logError = this.sinks.logError;
    return {
      id: this.id,
      command: this.o.command,
      cwd: this.o.cwd,
      pid: this.pid,
      exitCode: this.exitCode,
      signal: this.exitSignal,
      killedBy: this.killedBy,
      timeoutMs: this.o.timeoutMs || undefined,
      startedAt: this.startedAt,
      durationMs: (this.exitedAt ?? Date.now()) - this.startedAt,
      stdout: s.stdout.capture.snapshot(),
      stderr: s.stderr.capture.snapshot(),
      logPaths: this.paths.logPaths,
      combinedLogPath: this.paths.combinedLogPath,
      ...(logError ? { logError } : {}),
      ...(this.spawnError ? { spawnError: this.spawnError } : {}),
      leftoverStopped: this.leftoverStopped,
      pipesAbandoned: this.pipesAbandoned,
      ...(this.o.sandbox ? { sandbox: this.o.sandbox } : {}),
      ...(this.limits ? { limits: this.limits } : {}),
      ...(this.limitHit ? { limitHit: this.limitHit } : {}),
    };
  }

  /** The caller's view of this run. */
  handle(): RunHandle {
    const isFinished = () => this.finished;
    return {
      id: this.id,
      pid: this.pid,
      startedAt: this.startedAt,
      logPaths: this.paths.logPaths,
      combinedLogPath: this.paths.combinedLogPath,
      done: this.done,
      get finished() {
        return isFinished();
      },
      kill: (reason) => this.kill(reason),
      bytes: () => this.sinks.bytes(),
    };
  }
}

/** Longest wait for bwrap to name the sandbox's first process (it does so right after making the namespaces). */
const INFO_WAIT_MS = 10_000;

/**
 * The "child-pid" bwrap writes on its info pipe; undefined when the pipe ends (bwrap failed) or stays silent.
 * The pipe is read to its end: bwrap writes more after the pid, and a closed pipe would kill it (SIGPIPE).
 */
function childPid(fd: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const reader = readerOf(fd);
    let text = '';
    let found: number | undefined;
    const timer = setTimeout(() => reader.destroy(), INFO_WAIT_MS);
    reader.on('data', (chunk: Buffer) => {
      if (found !== undefined) return;
      text += chunk.toString('utf8');
      const m = /"child-pid":\s*(\d+)/.exec(text);
      if (m) resolve((found = Number(m[1])));
    });
    reader.on('error', () => reader.destroy());
    reader.on('close', () => {
      clearTimeout(timer);
      resolve(found);
    });
  });
}
