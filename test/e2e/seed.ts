/**
 * A long session written straight into a data dir's store, as the server itself saves one: turns of
 * a user message and an assistant message with text and finished tool calls (read_file, grep,
 * run_command with its exit code), so the page can be opened on 10 or 1,000 cards without a model.
 */
import fs from 'node:fs';
import type { ClampMessage, ToolResult } from '../../lib/contract/protocol';
import { openDb } from '../../lib/store/db';
import { saveMessages } from '../../lib/store/messages';
import { createSession } from '../../lib/store/sessions';

/** Tool calls per assistant message in a seeded session. */
export const SEED_CALLS_PER_TURN = 10;

/** The toolCallId of the i-th call (0-based) of a seeded session. */
export const seedCallId = (i: number) => `seed-${i}`;

function fileText(i: number, lines: number): string {
  return Array.from({ length: lines }, (_, k) => `${String(k + 1).padStart(4)}\texport const value${i}_${k} = ${i * 1000 + k}; // line ${k + 1} of src/mod-${i}.ts`).join('\n');
}

function call(i: number): ClampMessage['parts'][number] {
  const ok = (output: string, meta?: Record<string, unknown>): ToolResult => ({ status: 'ok', output, truncation: null, ...(meta ? { meta } : {}) });
  const base = { toolCallId: seedCallId(i), state: 'output-available' as const };
  switch (i % 5) {
    case 3:
      return { ...base, type: 'tool-grep', input: { pattern: `value${i}`, path: 'src' }, output: ok(`src/mod-${i}.ts:1:export const value${i}_0 = ${i * 1000};\n1 match in 1 file`) } as never;
    case 4:
      return {
        ...base,
        type: 'tool-run_command',
        input: { command: `npm test -- mod-${i}` },
        output: ok(`> test\n> vitest run mod-${i}\n\n ✓ test/mod-${i}.test.ts (3 tests) 12ms\n\n Test Files  1 passed (1)\n      Tests  3 passed (3)\n`, { exitCode: 0, durationMs: 900 + (i % 7) * 100 }),
      } as never;
    default:
      return { ...base, type: 'tool-read_file', input: { path: `src/mod-${i}.ts` }, output: ok(fileText(i, 40), { lines: 40 }) } as never;
  }
}

/** The messages of a session with `calls` finished tool calls, SEED_CALLS_PER_TURN to an assistant message. */
export function seededMessages(calls: number): ClampMessage[] {
  const messages: ClampMessage[] = [];
  for (let turn = 0, i = 0; i < calls; turn++) {
    messages.push({ id: `seed-u${turn}`, role: 'user', parts: [{ type: 'text', text: `Turn ${turn + 1}: look at the next modules and run their tests.` }] });
    const parts: ClampMessage['parts'] = [{ type: 'text', text: `Reading the next ${Math.min(SEED_CALLS_PER_TURN, calls - i)} modules.` }];
    for (let k = 0; k < SEED_CALLS_PER_TURN && i < calls; k++, i++) parts.push(call(i));
    parts.push({ type: 'text', text: `Turn ${turn + 1} done: every module read and its tests pass.` });
    messages.push({ id: `seed-a${turn}`, role: 'assistant', parts });
  }
  return messages;
}

/** Create a session holding `calls` finished tool calls in the store of dataDir for workspace; returns its id. */
export function seedSession(dataDir: string, workspace: string, calls: number, title: string): string {
  const db = openDb(dataDir);
  const s = createSession(db, { workspace: fs.realpathSync(workspace), title, mode: 'default' });
  saveMessages(db, s.id, seededMessages(calls));
  return s.id;
}

/** The chat's scroll box. */
export const CHAT_SCROLLER = '[data-chat-scroll]';

/**
 * Runs in the page: the time (performance.now()) if the element `sel` is inside the visible area of
 * the scroll box `box`, false if not (or either is missing). Pass it to page.evaluate or waitForFunction.
 */
export function inViewAt([sel, box]: readonly [string, string]): number | false {
  const el = document.querySelector(sel);
  const sc = document.querySelector(box);
  if (!el || !sc) return false;
  const a = el.getBoundingClientRect();
  const b = sc.getBoundingClientRect();
  return a.bottom > b.top && a.top < b.bottom ? performance.now() : false;
}
