import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createElement, type ReactNode } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { ClampMessage } from '../../lib/contract/protocol';
import { rowsOf } from '../../components/chat-rows';
import { RowView } from '../../components/message-view';
import { ReadOnlyRewind, RewindProvider } from '../../components/rewind-context';
import { turnOf } from '../../components/use-rewind-api';

/**
 * The rows the rewind UI adds to: a user message carries its Rewind and Edit controls (none in a
 * branch's read-only view); a call interrupted by a restart says so and offers the rewind.
 */
const messages: ClampMessage[] = [
  { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Run the long build.' }] },
  {
    id: 'a1',
    role: 'assistant',
    parts: [
      { type: 'text', text: 'Running it.' },
      {
        type: 'tool-run_command',
        toolCallId: 'c1',
        state: 'output-error',
        input: { command: 'npm run build' },
        errorText: 'Interrupted by a restart: Clamp stopped while this command ran.\nbuilding 1/3\nbuilding 2/3',
      } as never,
      { type: 'tool-run_command', toolCallId: 'c2', state: 'output-error', input: { command: 'false' }, errorText: 'Command failed with exit 1' } as never,
    ],
  },
  { id: 'u2', role: 'user', parts: [{ type: 'text', text: 'And now?' }] },
];

const NO = new Map();
const noop = () => undefined;
/** A row as the chat renders it: inside the conversation's rewind provider (busy: a turn runs). */
const render = (i: number, o: { readOnly?: boolean; busy?: boolean } = {}) => {
  let el: ReactNode = createElement(RowView, { row: rowsOf(messages)[i], cuts: NO, pruned: NO, idle: true });
  if (o.readOnly) el = createElement(ReadOnlyRewind, null, el);
  el = createElement(RewindProvider, { sessionId: 's1', messages, setMessages: noop, busy: !!o.busy, send: noop, setDraft: noop }, el);
  return renderToStaticMarkup(createElement(QueryClientProvider, { client: new QueryClient() }, el));
};

describe('rewind on the rows of the conversation', () => {
  it('a user message has Rewind and Edit controls; in a read-only branch it has none', () => {
    const rows = rowsOf(messages);
    expect(rows[0]).toMatchObject({ kind: 'user', messageId: 'u1' });
    const html = render(0);
    expect(html).toContain('aria-label="Rewind to before this message"');
    expect(html).toContain('aria-label="Edit this message"');
    expect(html).not.toContain('disabled=""');
    // while a turn runs they are disabled, and say why
    const busy = render(0, { busy: true });
    expect(busy).toContain('disabled=""');
    expect(busy).toContain('Stop the running turn first');
    const branch = render(0, { readOnly: true });
    expect(branch).toContain('Run the long build.');
    expect(branch).not.toContain('Rewind to before this message');
  });

  it('a call interrupted by a restart: labelled so, its captured output shown, the rewind offered; another error is an error', () => {
    const rows = rowsOf(messages);
    const i = rows.findIndex((r) => r.kind === 'tool' && r.part.toolCallId === 'c1');
    const html = render(i);
    expect(html).toContain('interrupted by a restart');
    expect(html).toContain('building 2/3');
    expect(html).toContain('Rewind to before this call');
    const other = render(rows.findIndex((r) => r.kind === 'tool' && r.part.toolCallId === 'c2'));
    expect(other).not.toContain('interrupted');
    expect(other).toContain('>error<');
  });

  it('the rewind before a call goes to the user message of its turn (an interrupted call\'s note names it)', () => {
    expect(turnOf(messages, 'c1')).toBe('u1');
    expect(turnOf(messages, 'nope')).toBeUndefined();
    const noted: ClampMessage[] = [...messages, { id: 'a2', role: 'assistant', parts: [{ type: 'data-interrupted', data: { toolCallId: 'c9', toolName: 'run_command', userMessageId: 'u1', checkpointId: 'k1', logPath: null } }] }];
    expect(turnOf(noted, 'c9')).toBe('u1');
  });

  it('a rewind\'s note is a divider, not a user message: what it restored, the branch to open, the undo', () => {
    const note = { messageId: 'u2', code: true, conversation: true, restored: ['a.txt', 'b.txt'], branchId: 'br1', undoCheckpointId: 'k2', cannotUndo: [], createdAt: 1 };
    const withNote: ClampMessage[] = [...messages.slice(0, 2), { id: 'rewind-1', role: 'user', parts: [{ type: 'data-rewind', data: note }] }];
    const rows = rowsOf(withNote);
    expect(rows.map((r) => r.kind)).toEqual(['user', 'text', 'tool', 'tool', 'rewind']);
    const html = renderToStaticMarkup(
      createElement(QueryClientProvider, { client: new QueryClient() }, createElement(RewindProvider, { sessionId: 's1', messages: withNote, setMessages: noop, busy: false, send: noop, setDraft: noop }, createElement(RowView, { row: rows[4], cuts: NO, pruned: NO, idle: true }))),
    );
    expect(html).toContain('Rewound code and conversation here.');
    expect(html).toContain('Restored 2 files: a.txt, b.txt.');
    expect(html).toContain('open it');
    expect(html).toContain('Undo the code rewind');
    expect(html).not.toContain('Edit this message');
  });
});
