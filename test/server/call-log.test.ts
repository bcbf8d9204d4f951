import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { callLogPath } from '../../lib/server/write-ahead';
import { logPathsFor } from '../../lib/exec/run-logs';
import { callRunPrefix } from '../../lib/exec/runner';
import { tempWorkspace } from '../helpers';

let ws: ReturnType<typeof tempWorkspace>;
beforeEach(() => (ws = tempWorkspace()));
afterEach(() => ws.cleanup());

/** A combined log as a run of the call would name it, begun at `at`. */
function log(toolCallId: string, at: number, hex: string): string {
  const dir = path.join(ws.dataDir, 'logs');
  fs.mkdirSync(dir, { recursive: true });
  const p = logPathsFor(dir, `${callRunPrefix(toolCallId)}-${hex}`, at).combinedLogPath;
  fs.writeFileSync(p, `${hex}\n`);
  return p;
}

describe("an interrupted call's log", () => {
  it('of two sessions with a call_0 each, the log begun when this call started is its own', () => {
    const t = Date.parse('2026-03-01T10:00:00.000Z');
    log('call_0', t - 60_000, 'aaaaaaaa');
    const own = log('call_0', t + 5, 'ffffffff');
    log('call_0', t + 90_000, '00000000');
    log('call_1', t + 1, 'bbbbbbbb');
    expect(callLogPath(ws.dataDir, 'call_0', t)).toBe(own);
    // without a start, the newest
    expect(path.basename(callLogPath(ws.dataDir, 'call_0')!)).toMatch(/-cmd-call_0-00000000\.log$/);
    expect(callLogPath(ws.dataDir, 'call_9', t)).toBeNull();
  });
});
