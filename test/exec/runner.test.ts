import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runRoot } from './run-root';
import { liveGroupMembers } from '../../lib/exec/group';
import { commandEnv, runCommand, startCommand } from '../../lib/exec/runner';

const run = runRoot('clamp-runner-');
const opts = run.opts;

/** kill(-pgid, 0) must end in ESRCH: the group is gone, zombies included (init here reaps lazily). */
async function expectGroupGone(pgid: number) {
  expect(liveGroupMembers(pgid)).toEqual([]);
  const until = Date.now() + 5000;
  let code: string | undefined;
  while (Date.now() < until) {
    try {
      process.kill(-pgid, 0);
    } catch (err) {
      code = (err as NodeJS.ErrnoException).code;
      break;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  expect(code).toBe('ESRCH');
}

describe('runner', () => {
  it('drains both pipes at once: 1 MB to stderr and 1 MB to stdout never block', async () => {
    const r = await runCommand(opts('head -c 1048576 /dev/zero | tr "\\0" e >&2; head -c 1048576 /dev/zero | tr "\\0" o; echo done'));
    expect(r.exitCode).toBe(0);
    expect(r.stderr.totalBytes).toBe(1024 * 1024);
    expect(r.stdout.totalBytes).toBe(1024 * 1024 + 5);
    expect(fs.statSync(r.logPaths.stderr).size).toBe(1024 * 1024);
    expect(fs.readFileSync(r.logPaths.stdout, 'utf8').endsWith('ooodone\n')).toBe(true);
    // memory holds at most the capture per stream
    expect(r.stdout.head.length + r.stdout.tail.length).toBe(64 * 1024);
  });

  it('stdout and stderr are pipes, as in a shell pipeline: /dev/stdout and /dev/stderr can be opened and written', async () => {
    const r = await runCommand(opts('test -p /dev/stdout && echo out-is-a-pipe; test -p /dev/stderr && echo err-is-a-pipe >&2; echo via-dev-stdout > /dev/stdout; echo via-dev-stderr > /dev/stderr'));
    expect(r.exitCode).toBe(0);
    expect(fs.readFileSync(r.logPaths.stdout, 'utf8')).toBe('out-is-a-pipe\nvia-dev-stdout\n');
    expect(fs.readFileSync(r.logPaths.stderr, 'utf8')).toBe('err-is-a-pipe\nvia-dev-stderr\n');
  });

  it('a pipe that has carried a megabyte gets a 256 KiB buffer; a quiet one keeps the 64 KiB default', async () => {
    const size = (label: string) => `perl -e 'print STDERR "${label} ", fcntl(STDOUT, 1032, 0), "\\n"'`;
    const r = await runCommand(opts(`${size('before')}; head -c 2000000 /dev/zero; sleep 0.5; ${size('after')}`));
    expect(fs.readFileSync(r.logPaths.stderr, 'utf8')).toBe('before 65536\nafter 262144\n');
    const quiet = await runCommand(opts(`echo hi; sleep 0.3; ${size('quiet')}`));
    expect(fs.readFileSync(quiet.logPaths.stderr, 'utf8')).toBe('quiet 65536\n');
  });

  it('widening a pipe leaves Clamp\'s end of it non-blocking (a blocking read would hold the event loop)', async () => {
    /** flags of this process's read ends of pipes, from /proc */
    const readEnds = () =>
      fs.readdirSync('/proc/self/fd').flatMap((fd) => {
        let link = '';
        try {
          link = fs.readlinkSync(`/proc/self/fd/${fd}`);
        } catch {
          return [];
        }
        // a named pipe whose name is gone reads as its old path, '(deleted)'
        if (!link.includes('clamp-pipes-')) return [];
        const flags = parseInt(/flags:\s+(\d+)/.exec(fs.readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'))![1], 8);
        return (flags & 3) === 0 ? [{ fd, link, nonBlocking: (flags & 0o4000) !== 0 }] : [];
      });
    const before = new Set(readEnds().map((e) => e.link));
    const h = startCommand(opts('head -c 2000000 /dev/zero; sleep 1; echo end'));
    await new Promise((r) => setTimeout(r, 600));
    const ours = readEnds().filter((e) => !before.has(e.link));
    expect(ours.length).toBeGreaterThanOrEqual(2);
    expect(ours.filter((e) => !e.nonBlocking)).toEqual([]);
    expect((await h.done).exitCode).toBe(0);
  });

  it('a command that leaves a process holding its stdout ends when the pipes are given up, and the group is stopped', async () => {
    const t0 = Date.now();
    const r = await runCommand(opts('echo started; setsid sleep 30 & echo shell-done', { killGraceMs: 200 }));
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(r.exitCode).toBe(0);
    expect(fs.readFileSync(r.logPaths.stdout, 'utf8')).toContain('shell-done');
  });

  it('runs in its own process group with prompts and pagers disabled and stdin closed', async () => {
    const r = await runCommand(opts('echo "$PAGER $GIT_PAGER $GIT_TERMINAL_PROMPT $TERM ${CLAMP_TOKEN:-none}"; ps -o pgid= -p $$; read x; echo "read=$?"', {
      env: commandEnv({ ...process.env, CLAMP_TOKEN: 'secret' }),
    }));
    const lines = Buffer.concat([r.stdout.head, r.stdout.tail]).toString().trim().split('\n');
    expect(lines[0]).toBe('cat cat 0 dumb none');
    expect(Number(lines[1].trim())).toBe(r.pid);
    expect(lines[2]).toBe('read=1');
  });

  it('a command printing 200 MB leaves memory flat and the log complete', async () => {
    const rss0 = process.memoryUsage().rss;
    let peak = rss0;
    const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
    const r = await runCommand(opts('yes | head -c 200000000', { captureMaxBytes: 256 * 1024 }));
    clearInterval(timer);
    peak = Math.max(peak, process.memoryUsage().rss);
    expect(r.exitCode).toBe(0);
    expect(r.stdout.totalBytes).toBe(200_000_000);
    expect(r.stdout.totalLines).toBe(100_000_000);
    expect(fs.statSync(r.logPaths.stdout).size).toBe(200_000_000);
    expect(fs.statSync(r.combinedLogPath).size).toBe(200_000_000);
    expect(peak - rss0).toBeLessThan(64 * 1024 * 1024);
    fs.rmSync(r.logPaths.stdout);
    fs.rmSync(r.combinedLogPath);
  }, 30_000);

  it('every byte of megabytes of varied output reaches the logs and the capture intact (each pipe read reuses one buffer)', async () => {
    // numbered lines, so a chunk overwritten by the next read or written twice shows
    const n = 3_000_000;
    const r = await runCommand(opts(`seq 1 ${n / 2}; echo between >&2; seq ${n / 2 + 1} ${n}`, { captureMaxBytes: 256 * 1024 }));
    expect(r.exitCode).toBe(0);
    let want = '';
    for (let i = 1; i <= n; i++) want += `${i}\n`;
    const out = fs.readFileSync(r.logPaths.stdout, 'utf8');
    expect(out.length).toBe(want.length);
    expect(out === want).toBe(true);
    expect(fs.readFileSync(r.logPaths.stderr, 'utf8')).toBe('between\n');
    // the combined log holds both streams: stdout's lines in order, stderr's line where it arrived
    const combined = fs.readFileSync(r.combinedLogPath, 'utf8');
    expect(combined.replace('between\n', '') === want).toBe(true);
    const snap = r.stdout;
    expect(snap.totalBytes).toBe(want.length);
    expect(snap.totalLines).toBe(n);
    expect(Buffer.concat([snap.head]).toString() === want.slice(0, snap.head.length)).toBe(true);
    expect(snap.tail.toString() === want.slice(want.length - snap.tail.length)).toBe(true);
    for (const f of [r.logPaths.stdout, r.logPaths.stderr, r.combinedLogPath]) fs.rmSync(f);
  }, 60_000);

  it('a timeout kills the whole group, grandchildren included, and reaps it', async () => {
    const t0 = Date.now();
    const r = await runCommand(opts('sleep 300 & (sleep 300 &); while true; do echo tick; sleep 0.01; done', { timeoutMs: 1000 }));
    const took = Date.now() - t0;
    expect(r.killedBy).toBe('timeout');
    expect(r.exitCode).toBeNull();
    expect(took).toBeGreaterThanOrEqual(1000);
    expect(took).toBeLessThan(2500);
    await expectGroupGone(r.pid!);
  });

  it('SIGKILL follows SIGTERM after the grace when the command ignores SIGTERM', async () => {
    const t0 = Date.now();
    const r = await runCommand(opts('trap "" TERM; while true; do sleep 0.05; done', { timeoutMs: 300, killGraceMs: 400 }));
    const took = Date.now() - t0;
    expect(r.killedBy).toBe('timeout');
    expect(r.signal).toBe('SIGKILL');
    expect(took).toBeGreaterThanOrEqual(700);
    await expectGroupGone(r.pid!);
  });

  it('an abort kills the group and is reported as the user', async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 200);
    const r = await runCommand(opts('sleep 30', { signal: ac.signal }));
    expect(r.killedBy).toBe('user');
    await expectGroupGone(r.pid!);
  });

  it('processes a command leaves behind are stopped when it exits', async () => {
    const t0 = Date.now();
    const r = await runCommand(opts('sleep 300 & sleep 300 > /dev/null 2>&1 & echo started'));
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(r.exitCode).toBe(0);
    expect(r.killedBy).toBeNull();
    expect(r.leftoverStopped).toBe(true);
    await expectGroupGone(r.pid!);
  });

  it('a process that leaves the group cannot hold the result forever', async () => {
    const t0 = Date.now();
    const r = await runCommand(opts('setsid sleep 3 & sleep 0.2; echo started', { killGraceMs: 200 }));
    expect(Date.now() - t0).toBeLessThan(2500);
    expect(r.exitCode).toBe(0);
    expect(r.pipesAbandoned).toBe(true);
  });

  it('publishes live output while it runs, batched, not only at the end', async () => {
    const seen: { at: number; stream: string; text: string }[] = [];
    const t0 = Date.now();
    const h = startCommand(
      opts('echo one; sleep 0.8; echo two >&2; sleep 0.8; echo three', {
        onOutput: (stream, text) => seen.push({ at: Date.now() - t0, stream, text }),
        progressIntervalMs: 20,
      }),
    );
    const r = await h.done;
    expect(r.exitCode).toBe(0);
    expect(seen.map((s) => [s.stream, s.text])).toEqual([
      ['stdout', 'one\n'],
      ['stderr', 'two\n'],
      ['stdout', 'three\n'],
    ]);
    // each piece arrived while the command still ran (0.8 s apart: a loaded machine delays one by 0.2 s), not all at the end
    expect(seen[1].at - seen[0].at).toBeGreaterThan(250);
    expect(seen[2].at - seen[1].at).toBeGreaterThan(250);
  });

  it('live output is bounded per interval and says what it skipped', async () => {
    const texts: string[] = [];
    const r = await runCommand(opts('head -c 3000000 /dev/zero | tr "\\0" a', { onOutput: (_s, t) => texts.push(t), progressIntervalMs: 1000, progressMaxBytes: 1000 }));
    expect(r.stdout.totalBytes).toBe(3_000_000);
    const live = texts.join('');
    expect(live.length).toBeLessThan(3_000_000);
    expect(live).toMatch(/\[… [\d.]+ (KB|MB) not shown live; the log file has them\]/);
  });

  it('a command that cannot start reports it', async () => {
    const r = await runCommand(opts('echo hi', { cwd: path.join(run.dir, 'missing') }));
    expect(r.spawnError).toMatch(/ENOENT/);
    expect(r.exitCode).toBeNull();
  });
});
