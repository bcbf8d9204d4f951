import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ClampMessage } from '../../lib/contract/protocol';
import { closeDb, openDb, StoreError, type Db } from '../../lib/store/db';
import { appendMessage, loadMessages, saveMessages } from '../../lib/store/messages';
import {
  clipTitle,
  createSession,
  deleteSession,
  getSession,
  getSessionMode,
  getSessionModel,
  listSessions,
  PLACEHOLDER_TITLE,
  requireSession,
  updateSession,
} from '../../lib/store/sessions';
import { loadSessionDetail } from '../../lib/store/session-detail';
import { recordPending } from '../../lib/store/approvals';
import { addRule, listSessionRules } from '../../lib/store/rules';
import { setModelSettings } from '../../lib/store/settings';
import { tempWorkspace } from '../helpers';

let ws: ReturnType<typeof tempWorkspace>;
let db: Db;

/** Close and reopen the database, as a server restart would. */
function restart(): Db {
  closeDb(ws.dataDir);
  db = openDb(ws.dataDir);
  return db;
}

const user = (id: string, text: string): ClampMessage => ({ id, role: 'user', parts: [{ type: 'text', text }] });
const assistant = (id: string, text: string): ClampMessage => ({ id, role: 'assistant', parts: [{ type: 'text', text }] });

beforeEach(() => {
  ws = tempWorkspace('clamp-sessions-');
  db = openDb(ws.dataDir);
});
afterEach(() => {
  closeDb(ws.dataDir);
  ws.cleanup();
});

describe('sessions', () => {
  it('creates a session with a url-safe random id, the placeholder title and the given mode', () => {
    const s = createSession(db, { workspace: ws.workspace, mode: 'plan' });
    expect(s.id).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(s).toMatchObject({ workspace: ws.workspace, title: PLACEHOLDER_TITLE, mode: 'plan', messageCount: 0, pendingApprovals: 0 });
    expect(s.createdAt).toBe(s.updatedAt);
    expect(createSession(db, { workspace: ws.workspace, mode: 'plan' }).id).not.toBe(s.id);
  });

  it('starts in the saved default mode, else the launch mode', () => {
    expect(createSession(db, { workspace: ws.workspace }, 'debug').mode).toBe('debug');
    setModelSettings(db, { defaultMode: 'accept-edits' });
    expect(createSession(db, { workspace: ws.workspace }, 'debug').mode).toBe('accept-edits');
    expect(createSession(db, { workspace: ws.workspace, mode: 'auto' }, 'debug').mode).toBe('auto');
  });

  it('refuses a mode that does not exist', () => {
    expect(() => createSession(db, { workspace: ws.workspace, mode: 'yolo' as never })).toThrow(
      '"yolo" is not a permission mode. Use one of: default, accept-edits, plan, debug, auto.',
    );
  });

  it('lists a workspace\'s sessions most recently active first, with message and pending-approval counts', () => {
    const a = createSession(db, { workspace: ws.workspace, title: 'a' });
    const b = createSession(db, { workspace: ws.workspace, title: 'b' });
    createSession(db, { workspace: '/elsewhere', title: 'other' });
    expect(listSessions(db, ws.workspace).map((s) => s.title)).toEqual(['b', 'a']);
    saveMessages(db, a.id, [user('m1', 'hi'), assistant('m2', 'hello')]);
    recordPending(db, { approvalId: 'ap1', sessionId: a.id, toolCallId: 'c1', toolName: 'run_command', input: { command: 'ls' } });
    const list = listSessions(db, ws.workspace);
    expect(list.map((s) => s.title)).toEqual(['a', 'b']);
    expect(list[0]).toMatchObject({ id: a.id, messageCount: 2, pendingApprovals: 1 });
    expect(list[1]).toMatchObject({ id: b.id, messageCount: 0, pendingApprovals: 0 });
    expect(list[0]).not.toHaveProperty('workspace');
  });

  it('is named after its first user message, once, cut to 80 characters', () => {
    const s = createSession(db, { workspace: ws.workspace });
    saveMessages(db, s.id, [user('m1', '  Fix the\n flaky   test in src/app.ts  ')]);
    expect(getSession(db, s.id)?.title).toBe('Fix the flaky test in src/app.ts');
    saveMessages(db, s.id, [user('m1', 'Something else entirely')]);
    expect(getSession(db, s.id)?.title).toBe('Fix the flaky test in src/app.ts');

    const long = createSession(db, { workspace: ws.workspace });
    appendMessage(db, long.id, user('m1', 'é'.repeat(200)));
    const title = getSession(db, long.id)!.title;
    expect(Array.from(title)).toHaveLength(80);
    expect(title).toBe(`${'é'.repeat(79)}…`);
  });

  it('keeps a given title over the first message', () => {
    const s = createSession(db, { workspace: ws.workspace, title: 'Mine' });
    appendMessage(db, s.id, user('m1', 'hello there'));
    expect(getSession(db, s.id)?.title).toBe('Mine');
  });

  it('clipTitle collapses whitespace and leaves short titles alone', () => {
    expect(clipTitle(' a \t b ')).toBe('a b');
    expect(clipTitle('abcdef', 4)).toBe('abc…');
    expect(clipTitle('abcd', 4)).toBe('abcd');
  });

  it('renames and switches mode, and both survive a restart', () => {
    const s = createSession(db, { workspace: ws.workspace });
    const renamed = updateSession(db, ws.workspace, s.id, { title: '  Refactor  ', mode: 'accept-edits' });
    expect(renamed).toMatchObject({ id: s.id, title: 'Refactor', mode: 'accept-edits' });
    expect(renamed.updatedAt).toBeGreaterThanOrEqual(s.updatedAt);
    // a renamed session is not renamed again by its first message
    appendMessage(db, s.id, user('m1', 'first words'));
    restart();
    expect(getSession(db, s.id)).toMatchObject({ title: 'Refactor', mode: 'accept-edits', messageCount: 1 });
  });

  it('reads a session\'s mode and picked model alone, as getSession gives them, and follows each change', () => {
    const s = createSession(db, { workspace: ws.workspace, mode: 'plan' });
    expect(getSessionMode(db, s.id)).toBe('plan');
    expect(getSessionModel(db, s.id)).toBeUndefined();
    updateSession(db, ws.workspace, s.id, { mode: 'auto', model: 'openai:gpt-5' });
    expect(getSessionMode(db, s.id)).toBe(getSession(db, s.id)!.mode);
    expect(getSessionMode(db, s.id)).toBe('auto');
    expect(getSessionModel(db, s.id)).toBe('openai:gpt-5');
    updateSession(db, ws.workspace, s.id, { model: null });
    expect(getSessionModel(db, s.id)).toBeUndefined();
    restart();
    expect(getSessionMode(db, s.id)).toBe('auto');
    expect(getSessionMode(db, 'no-such-session')).toBeUndefined();
    expect(getSessionModel(db, 'no-such-session')).toBeUndefined();
  });

  it('saves only the messages after a prefix the caller says is stored, and the whole conversation when the store does not hold it', () => {
    const s = createSession(db, { workspace: ws.workspace });
    const history = [user('m1', 'first'), assistant('m2', 'one'), user('m3', 'second')];
    saveMessages(db, s.id, history);
    const grown = [...history, assistant('m4', 'two')];
    saveMessages(db, s.id, grown, { storedBefore: 3 });
    expect(loadMessages(db, s.id)).toEqual(grown);
    // the prefix is taken as stored: a changed copy of it is not serialised or written
    const stale = [user('m1', 'changed'), ...grown.slice(1, 3), assistant('m4', 'three')];
    saveMessages(db, s.id, stale, { storedBefore: 3 });
    expect(loadMessages(db, s.id).map((m) => JSON.stringify(m.parts))).toEqual([history[0], history[1], history[2], stale[3]].map((m) => JSON.stringify(m.parts)));
    // ids that do not match what is stored, a claim past the stored rows, or past the messages: saved whole
    const other = [user('x1', 'other'), assistant('x2', 'reply')];
    saveMessages(db, s.id, other, { storedBefore: 2 });
    expect(loadMessages(db, s.id)).toEqual(other);
    const longer = [...other, user('x3', 'more'), assistant('x4', 'again')];
    saveMessages(db, s.id, longer, { storedBefore: 4 });
    expect(loadMessages(db, s.id)).toEqual(longer);
    saveMessages(db, s.id, longer.slice(0, 1), { storedBefore: 9 });
    expect(loadMessages(db, s.id)).toEqual(longer.slice(0, 1));
  });

  it('refuses to update a session of another workspace or an unknown one, and an empty title', () => {
    const s = createSession(db, { workspace: '/elsewhere' });
    expect(() => updateSession(db, ws.workspace, s.id, { title: 'x' })).toThrow(StoreError);
    expect(() => updateSession(db, ws.workspace, 'nope', { title: 'x' })).toThrow('Session nope not found. List the sessions with GET /api/sessions.');
    const mine = createSession(db, { workspace: ws.workspace });
    expect(() => updateSession(db, ws.workspace, mine.id, { title: '   ' })).toThrow('A session title cannot be empty.');
    expect(() => requireSession(db, s.id, ws.workspace)).toThrow(expect.objectContaining({ code: 'not-found' }));
  });

  it('deletes a session with its messages, approvals and session rules', () => {
    const s = createSession(db, { workspace: ws.workspace });
    const keep = createSession(db, { workspace: ws.workspace });
    saveMessages(db, s.id, [user('m1', 'hi')]);
    saveMessages(db, keep.id, [user('m1', 'hi')]);
    recordPending(db, { approvalId: 'ap1', sessionId: s.id, toolCallId: 'c1', toolName: 'write_file', input: {} });
    addRule(db, { workspace: ws.workspace, sessionId: s.id, tool: 'run_command', pattern: 'npm test', action: 'allow' });
    addRule(db, { workspace: ws.workspace, tool: 'run_command', pattern: 'git status', action: 'allow' });
    expect(deleteSession(db, '/elsewhere', s.id)).toBe(false);
    expect(deleteSession(db, ws.workspace, s.id)).toBe(true);
    expect(deleteSession(db, ws.workspace, s.id)).toBe(false);
    const count = (table: string) => (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
    expect(count('messages')).toBe(1);
    expect(count('approvals')).toBe(0);
    expect(count('rules')).toBe(1);
    expect(listSessionRules(db, s.id)).toEqual([]);
    expect(listSessions(db, ws.workspace).map((x) => x.id)).toEqual([keep.id]);
  });

  it('loads the whole session after a restart: summary, conversation and pending approvals', () => {
    const s = createSession(db, { workspace: ws.workspace });
    const msgs = [user('m1', 'run the tests'), assistant('m2', 'ok')];
    saveMessages(db, s.id, msgs);
    recordPending(db, { approvalId: 'ap1', sessionId: s.id, toolCallId: 'c1', toolName: 'run_command', input: { command: 'npm test' } });
    restart();
    const detail = loadSessionDetail(db, ws.workspace, s.id);
    expect(detail.session).toMatchObject({ id: s.id, title: 'run the tests', messageCount: 2, pendingApprovals: 1 });
    expect(detail.messages).toEqual(msgs);
    expect(detail.pendingApprovals.map((a) => a.approvalId)).toEqual(['ap1']);
    expect(() => loadSessionDetail(db, '/elsewhere', s.id)).toThrow(`Session ${s.id} not found.`);
  });
});

describe('messages', () => {
  it('saveMessages stores the whole list in order and is idempotent', () => {
    const s = createSession(db, { workspace: ws.workspace });
    const msgs: ClampMessage[] = [
      user('u1', 'read app.ts'),
      {
        id: 'a1',
        role: 'assistant',
        metadata: { model: 'scripted', createdAt: 1 },
        parts: [
          { type: 'step-start' },
          { type: 'dynamic-tool', toolName: 'read_file', toolCallId: 'c1', state: 'output-available', input: { path: 'app.ts' }, output: { status: 'ok' } },
          { type: 'data-context', data: { usedTokens: 10, windowTokens: 100, windowSource: { kind: 'settings', detail: 'test' }, step: 1, estimated: false, breakdown: { systemAndTools: 0, projectDocs: 0, conversation: 0, toolResults: 0 } } },
          { type: 'text', text: 'done' },
        ],
      },
    ];
    saveMessages(db, s.id, msgs);
    const before = getSession(db, s.id)!.updatedAt;
    saveMessages(db, s.id, msgs);
    expect(loadMessages(db, s.id)).toEqual(msgs);
    expect(getSession(db, s.id)!.updatedAt).toBe(before);
    restart();
    expect(loadMessages(db, s.id)).toEqual(msgs);
  });

  it('saveMessages replaces changed rows, and drops rows past the new end', () => {
    const s = createSession(db, { workspace: ws.workspace });
    saveMessages(db, s.id, [user('u1', 'a'), assistant('a1', 'b'), user('u2', 'c')]);
    saveMessages(db, s.id, [user('u1', 'a'), assistant('a1b', 'regenerated')]);
    expect(loadMessages(db, s.id)).toEqual([user('u1', 'a'), assistant('a1b', 'regenerated')]);
    saveMessages(db, s.id, []);
    expect(loadMessages(db, s.id)).toEqual([]);
  });

  it('appendMessage adds at the end, and replaces a message with the same id in place', () => {
    const s = createSession(db, { workspace: ws.workspace });
    expect(appendMessage(db, s.id, user('u1', 'hi'))).toBe(0);
    expect(appendMessage(db, s.id, assistant('a1', 'partial'))).toBe(1);
    expect(appendMessage(db, s.id, assistant('a1', 'partial and then more'))).toBe(1);
    expect(appendMessage(db, s.id, user('u2', 'next'))).toBe(2);
    restart();
    expect(loadMessages(db, s.id)).toEqual([user('u1', 'hi'), assistant('a1', 'partial and then more'), user('u2', 'next')]);
  });

  it('refuses messages for an unknown session, and loads none for it', () => {
    expect(() => saveMessages(db, 'nope', [user('u1', 'x')])).toThrow('Session nope not found. Create it first (POST /api/sessions).');
    expect(() => appendMessage(db, 'nope', user('u1', 'x'))).toThrow(expect.objectContaining({ code: 'not-found' }));
    expect(loadMessages(db, 'nope')).toEqual([]);
  });
});
