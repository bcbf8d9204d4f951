import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import type { Budget } from '../contract/budget';
import { formatDuration } from '../contract/text';
import { runCommand } from '../exec/runner';
import type { SandboxSpec } from '../exec/sandbox';
import type { CaptureSnapshot } from '../exec/ring';
import type { HookEntry } from './config';

/** How one hook's run ended, read the way Claude Code reads it. */
export type HookRun =
  /** exit code 0: its stdout (JSON when it parses as an object) */
  | { kind: 'ok'; stdout: string; json?: Record<string, unknown> }
  /** exit code 2: block, with its stderr as the reason */
  | { kind: 'block'; stderr: string }
  /** it could not start, crashed (another exit code), was killed or timed out */
  | { kind: 'failed'; why: string };

export interface HookRunOptions {
  workspace: string;
  dataDir: string;
  budget: Budget;
  signal: AbortSignal;
  /** a workspace hook's sandbox; absent: it runs on the host (the person's own hooks) */
  sandbox?: SandboxSpec;
}

function text(s: CaptureSnapshot): string {
  const head = s.head.toString('utf8');
  if (s.gapBytes === 0) return head + s.tail.toString('utf8');
  return `${head}\n[… ${s.gapBytes} bytes not kept …]\n${s.tail.toString('utf8')}`;
}

function shQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The last line-ish part of a text, for a failure's one-line reason. */
function tailOf(s: string, maxChars = 400): string {
  const t = s.trim();
  return t.length <= maxChars ? t : `…${t.slice(-maxChars)}`;
}

/**
 * Run one hook: its command in a shell (in bubblewrap when `sandbox` is given) in the workspace, the event's JSON
 * on stdin, $CLAUDE_PROJECT_DIR (and $CLAMP_PROJECT_DIR) set to the workspace, under its timeout. Never throws.
 */
export async function runHook(h: HookEntry, input: Record<string, unknown>, o: HookRunOptions): Promise<HookRun> {
  // stdin is a file in the scratch folder (the sandbox shows it): the runner's commands read no pipe
  const dir = path.join(o.dataDir, 'scratch', 'hooks');
  const id = `hook-${Date.now().toString(36)}-${crypto.randomBytes(4).toString('hex')}`;
  const stdinPath = path.join(dir, `${id}.json`);
  try {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(stdinPath, JSON.stringify(input), { mode: 0o600 });
  } catch (err) {
    return { kind: 'failed', why: `its input could not be written (${err instanceof Error ? err.message : String(err)})` };
  }
  const timeoutMs = h.timeoutMs ?? o.budget.HOOK_TIMEOUT_DEFAULT_MS;
  const ws = shQuote(o.workspace);
  const command = `CLAUDE_PROJECT_DIR=${ws}; CLAMP_PROJECT_DIR=${ws}; export CLAUDE_PROJECT_DIR CLAMP_PROJECT_DIR\nexec < ${shQuote(stdinPath)}\n${h.command}`;
  try {
    const r = await runCommand({
      command,
      cwd: o.workspace,
      logDir: path.join(o.dataDir, 'logs', 'hooks'),
      id,
      captureMaxBytes: o.budget.COMMAND_CAPTURE_MAX_BYTES,
      timeoutMs,
      killGraceMs: o.budget.COMMAND_KILL_GRACE_MS,
      signal: o.signal,
      ...(o.sandbox ? { sandbox: o.sandbox } : {}),
    });
    const stderr = text(r.stderr);
    if (r.spawnError) return { kind: 'failed', why: `it could not start: ${r.spawnError}` };
    if (r.killedBy === 'timeout') return { kind: 'failed', why: `it timed out after ${formatDuration(timeoutMs)} and was stopped` };
    if (r.killedBy) return { kind: 'failed', why: `it was stopped (${r.killedBy})` };
    if (r.exitCode === 2) return { kind: 'block', stderr: stderr.trim() || 'no reason given (exit code 2 with an empty stderr)' };
    if (r.exitCode !== 0) {
      const how = r.exitCode === null ? `it was killed by ${r.signal ?? 'a signal'}` : `it exited with code ${r.exitCode}`;
      return { kind: 'failed', why: `${how}${stderr.trim() ? `: ${tailOf(stderr)}` : ''}` };
    }
    const stdout = text(r.stdout);
    return { kind: 'ok', stdout, ...jsonOf(stdout) };
  } finally {
    fs.rm(stdinPath, { force: true }, () => {});
  }
}

/** A hook's stdout as Claude Code's JSON answer, when it is one. */
function jsonOf(stdout: string): { json?: Record<string, unknown> } {
  const t = stdout.trim();
  if (!t.startsWith('{')) return {};
  try {
    const v = JSON.parse(t);
    return v && typeof v === 'object' && !Array.isArray(v) ? { json: v as Record<string, unknown> } : {};
  } catch {
    return {};
  }
}
