import { describe, expect, it } from 'vitest';
import type { BoardAnswer, BoardSession, InboxItem } from '../../lib/contract/board';
import { attentionEvents, titleWithCount } from '../../lib/ui/attention';

const session = (id: string, state: BoardSession['state'], extra: Partial<BoardSession> = {}): BoardSession => ({
  id,
  title: `title ${id}`,
  mode: 'default',
  updatedAt: 1,
  state,
  step: null,
  tools: [],
  elsewhere: null,
  note: null,
  waiting: 0,
  model: null,
  tokens: { input: 0, output: 0 },
  costUsd: null,
  filesChanged: 0,
  worktree: null,
  ...extra,
});
const item = (sessionId: string, toolCallId: string, extra: Partial<InboxItem> = {}): InboxItem => ({
  sessionId,
  topId: sessionId,
  topTitle: `title ${sessionId}`,
  toolCallId,
  approvalId: `${sessionId}:${toolCallId}`,
  toolName: 'run_command',
  input: { command: 'npm test' },
  info: null,
  live: false,
  createdAt: 1,
  ...extra,
});

describe('attentionEvents', () => {
  it('announces nothing for the first board: it is what was there', () => {
    expect(attentionEvents(null, { sessions: [session('a', 'working')], inbox: [item('a', 'c1')] })).toEqual([]);
  });

  it('announces each call that begins waiting, once, with its command, and opens its listed session', () => {
    const prev: BoardAnswer = { sessions: [session('a', 'waiting')], inbox: [item('a', 'c1')] };
    const next: BoardAnswer = { sessions: [session('a', 'waiting')], inbox: [item('a', 'c1'), item('child', 'c2', { topId: 'a', topTitle: 'title a', info: { question: { question: 'Which port?' } } as never })] };
    expect(attentionEvents(prev, next)).toEqual([{ tag: 'call:child/c2', title: 'Clamp: a question for you — title a', body: 'Which port?', sessionId: 'a' }]);
    expect(attentionEvents(next, next)).toEqual([]);
    const cmd = attentionEvents({ sessions: [], inbox: [] }, { sessions: [], inbox: [item('b', 'c3')] });
    expect(cmd[0]).toMatchObject({ title: 'Clamp: approval needed — title b', body: 'run_command: npm test', sessionId: 'b' });
  });

  it('announces a turn that ended or failed, but not one that stopped for a call (the call says it)', () => {
    const prev: BoardAnswer = { sessions: [session('a', 'working'), session('b', 'working'), session('c', 'working'), session('d', 'done')], inbox: [] };
    const next: BoardAnswer = {
      sessions: [session('a', 'done', { updatedAt: 5 }), session('b', 'failed', { note: 'the server is down' }), session('c', 'waiting', { waiting: 1 }), session('d', 'done')],
      inbox: [],
    };
    expect(attentionEvents(prev, next).map((e) => [e.title, e.body])).toEqual([
      ['Clamp: turn ended — title a', 'done'],
      ['Clamp: turn failed — title b', 'failed: the server is down'],
    ]);
  });
});

describe('titleWithCount', () => {
  it('puts the count in front, and nothing at 0', () => {
    expect(titleWithCount('Clamp', 2)).toBe('(2) Clamp');
    expect(titleWithCount('Clamp', 0)).toBe('Clamp');
  });
});
