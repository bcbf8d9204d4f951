import { describe, expect, it } from 'vitest';
import { formatRun, statusLine } from '../../lib/exec/format';
import { HeadTailCapture } from '../../lib/exec/ring';
import type { RunResult } from '../../lib/exec/runner';

function snap(text: string, cap = 256 * 1024) {
  const c = new HeadTailCapture(cap);
  const buf = Buffer.from(text, 'utf8');
  for (let i = 0; i < buf.length; i += 65536) c.push(buf.subarray(i, i + 65536));
  return c.snapshot();
}

function run(over: Partial<RunResult> & { out?: string; err?: string } = {}): RunResult {
  const { out = '', err = '', ...rest } = over;
  return {
    id: 'cmd-1',
    command: 'x',
    cwd: '/ws',
    pid: 1,
    exitCode: 0,
    signal: null,
    killedBy: null,
    timeoutMs: 120_000,
    startedAt: 0,
    durationMs: 12,
    stdout: snap(out),
    stderr: snap(err),
    logPaths: { stdout: '/data/logs/x.stdout.log', stderr: '/data/logs/x.stderr.log' },
    combinedLogPath: '/data/logs/x.log',
    leftoverStopped: false,
    pipesAbandoned: false,
    ...rest,
  };
}

const O = { maxBytes: 20_000, timeoutMaxMs: 600_000 };
const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

describe('statusLine', () => {
  it('never confuses an exit, a timeout, a user kill and a foreign signal', () => {
    expect(statusLine(run({ exitCode: 0 }))).toBe('exit code 0');
    expect(statusLine(run({ exitCode: 2 }))).toBe('exit code 2');
    expect(statusLine(run({ exitCode: null, signal: 'SIGTERM', killedBy: 'timeout', timeoutMs: 2000 }))).toBe('killed: timed out after 2 s');
    expect(statusLine(run({ exitCode: 143, killedBy: 'timeout', timeoutMs: 1500 }))).toBe('killed: timed out after 1.5 s');
    expect(statusLine(run({ exitCode: null, signal: 'SIGTERM', killedBy: 'user' }))).toBe('killed by the user');
    expect(statusLine(run({ exitCode: null, signal: 'SIGKILL', killedBy: 'shutdown' }))).toBe('killed: Clamp was shutting down');
    expect(statusLine(run({ exitCode: null, signal: 'SIGSEGV' }))).toBe('killed by signal SIGSEGV (not sent by Clamp)');
  });
});

describe('formatRun', () => {
  it('gives status, duration and both sections, "(empty)" when empty', () => {
    expect(formatRun(run({ out: 'hello\n' }), O)).toEqual({
      text: 'exit code 0\nduration: 12 ms\nstdout:\nhello\nstderr:\n(empty)',
      truncation: null,
    });
    expect(formatRun(run({ exitCode: 1, err: 'bad\n', durationMs: 2345 }), O).text).toBe('exit code 1\nduration: 2.3 s\nstdout:\n(empty)\nstderr:\nbad');
  });

  it('says what to do after a timeout or a user kill, and carries the tool notes', () => {
    const t = formatRun(run({ exitCode: null, signal: 'SIGTERM', killedBy: 'timeout', timeoutMs: 2000, durationMs: 2004, out: 'tick\n' }), {
      ...O,
      notes: ['timeout_ms 1 is below the minimum of 1,000; it was raised to 1,000 ms.'],
    });
    expect(t.text).toBe(
      'killed: timed out after 2 s\n' +
        'It did not finish within 2 s; its whole process group was stopped. If it needs longer, pass a larger timeout_ms (at most 600,000), or run it with background: true and follow it with task_output.\n' +
        'duration: 2 s\n' +
        'note: timeout_ms 1 is below the minimum of 1,000; it was raised to 1,000 ms.\n' +
        'stdout:\ntick\nstderr:\n(empty)',
    );
    const u = formatRun(run({ exitCode: null, signal: 'SIGTERM', killedBy: 'user' }), O);
    expect(u.text).toBe('killed by the user\nThe user stopped it. Do not run it again unless the user asks.\nduration: 12 ms\nstdout:\n(empty)\nstderr:\n(empty)');
    const left = formatRun(run({ leftoverStopped: true }), O);
    expect(left.text).toContain('note: processes the command left running were stopped when it exited; start servers and watchers with background: true.');
  });

  it('a successful flood keeps its tail, names the omitted lines and the log', () => {
    const out = Array.from({ length: 100_000 }, (_, i) => `${i + 1}`).join('\n') + '\n';
    const f = formatRun(run({ out }), O);
    expect(bytes(f.text)).toBeLessThanOrEqual(20_000);
    expect(f.text).toMatch(/^exit code 0\nduration: 12 ms\nstdout:\n… \[lines 1–(\d{2},\d{3}) omitted: [\d.]+ KB\] …\n(\d+)\n/);
    const [, lastOmitted, firstShown] = /lines 1–([\d,]+) omitted[^\n]*\n(\d+)\n/.exec(f.text)!;
    expect(Number(firstShown)).toBe(Number(lastOmitted.replace(/,/g, '')) + 1);
    expect(f.text).toContain('99999\n100000\n[stdout cut: ');
    expect(f.text).toMatch(/\[stdout cut: [\d.]+ KB of [\d.]+ KB shown \(the end\); [\d,]+ bytes and [\d,]+ lines omitted\. Full stdout: \/data\/logs\/x\.stdout\.log — read it with read_file \(offset\/limit\) or search it with grep\.\]\nstderr:\n\(empty\)$/);
    expect(f.truncation).toMatchObject({ unit: 'bytes', total: bytes(out), spillPath: '/data/logs/x.stdout.log', by: 'tool' });
    expect(f.truncation!.shown + Number(/; ([\d,]+) bytes and/.exec(f.text)![1].replace(/,/g, ''))).toBe(bytes(out));
    expect(f.hint).toBe('Full output: stdout /data/logs/x.stdout.log, stderr /data/logs/x.stderr.log; read a part with read_file (offset/limit) or search it with grep.');
  });

  it('a failure keeps the head and the tail with the middle marked omitted', () => {
    const out = Array.from({ length: 50_000 }, (_, i) => `step ${i + 1}`).join('\n') + '\n';
    const f = formatRun(run({ exitCode: 1, out }), O);
    expect(bytes(f.text)).toBeLessThanOrEqual(20_000);
    expect(f.text).toContain('stdout:\nstep 1\nstep 2\n');
    const [, lastHead, from, to, firstTail] = /\nstep (\d+)\n… \[lines (\d+)–([\d,]+) omitted: [\d.]+ KB\] …\nstep (\d+)\n/.exec(f.text)!;
    expect(Number(from)).toBe(Number(lastHead) + 1);
    expect(Number(firstTail)).toBe(Number(to.replace(/,/g, '')) + 1);
    expect(f.text).toContain('step 50000\n[stdout cut: ');
    expect(f.text).toContain('shown (the start and the end)');
  });

  it('a successful run whose tail reads like an error keeps its head too', () => {
    const out = 'starting build\n' + 'compiling…\n'.repeat(5000) + 'warning: 3 tests FAILED\n';
    const f = formatRun(run({ out }), O);
    expect(f.text).toContain('stdout:\nstarting build\n');
    expect(f.text).toContain('warning: 3 tests FAILED\n[stdout cut: ');
  });

  it('splits the budget between two large streams and fits any budget', () => {
    const out = 'o'.repeat(100) + '\n';
    const err = 'e'.repeat(100) + '\n';
    for (const max of [1500, 4000, 9000, 20_000]) {
      const f = formatRun(run({ exitCode: 1, out: out.repeat(3000), err: err.repeat(3000) }), { ...O, maxBytes: max });
      expect(bytes(f.text)).toBeLessThanOrEqual(max);
      expect(f.text).toContain('[stdout cut: ');
      expect(f.text).toContain('[stderr cut: ');
    }
    // a small stream is shown whole; the large one gets the rest
    const f = formatRun(run({ out: out.repeat(3000), err: 'just one warning\n' }), O);
    expect(f.text.endsWith('stderr:\njust one warning')).toBe(true);
    expect(bytes(f.text)).toBeLessThanOrEqual(20_000);
    expect(bytes(f.text)).toBeGreaterThan(18_000);
  });

  it('cuts multi-byte text on character boundaries, at the capture edges too', () => {
    const out = '日本語のテキスト\n'.repeat(20_000);
    const r = run({ exitCode: 1, out });
    // a head of 2,502 bytes ends 2 bytes into a 3-byte character: that character is dropped
    r.stdout = snap(out, 10_010);
    let f = formatRun(r, O);
    expect(f.text).not.toContain('\ufffd');
    expect(f.text).toContain('stdout:\n日本語のテキスト\n');
    expect(f.text).toContain('日本語のテキスト\n… [lines 101–');
    expect(f.text).toContain('日本語のテキスト\n[stdout cut: ');
    // a head of 2,503 bytes ends right after a whole character: it is kept
    r.stdout = snap(out, 10_012);
    f = formatRun(r, O);
    expect(f.text).not.toContain('\ufffd');
    expect(f.text).toContain('日本語のテキスト\n日\n… [');
  });

  it('output past the in-memory capture is still reported from its head and tail', () => {
    const out = Array.from({ length: 200_000 }, (_, i) => `row ${i + 1}`).join('\n') + '\n';
    const r = run({ exitCode: 2, out });
    r.stdout = snap(out, 64 * 1024);
    expect(r.stdout.gapBytes).toBeGreaterThan(0);
    const f = formatRun(r, O);
    expect(f.text).toContain('stdout:\nrow 1\nrow 2\n');
    expect(f.text).toContain('row 200000\n[stdout cut: ');
    const [, from, to, firstTail] = /\n… \[lines (\d+)–([\d,]+) omitted: [\d.]+ MB\] …\nrow (\d+)\n/.exec(f.text)!;
    expect(f.text).toContain(`\nrow ${Number(from) - 1}\n… [lines`);
    expect(Number(firstTail)).toBe(Number(to.replace(/,/g, '')) + 1);
  });
});
