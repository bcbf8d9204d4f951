import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { answerApproval, recordPending } from '../../lib/store/approvals';
import { createChildSession } from '../../lib/store/children';
import { closeDb, openDb, type Db } from '../../lib/store/db';
import { workspacePending } from '../../lib/store/inbox';
import { createSession } from '../../lib/store/sessions';
import { tempWorkspace } from '../helpers';

let ws: ReturnType<typeof tempWorkspace>;
let db: Db;

beforeEach(() => {
  ws = tempWorkspace('clamp-inbox-');
  db = openDb(ws.dataDir);
});
afterEach(() => {
  closeDb(ws.dataDir);
  ws.cleanup();
});

const pend = (sessionId: string, n: number) => recordPending(db, { approvalId: `ap${n}`, sessionId, toolCallId: `c${n}`, toolName: 'run_command', input: { command: `cmd ${n}` } });

describe('workspacePending', () => {
  it("lists every pending call of the workspace's sessions and their subagents, oldest first, under the listed session", () => {
    const a = createSession(db, { workspace: ws.workspace, title: 'A' });
    const b = createSession(db, { workspace: ws.workspace, title: 'B' });
    const elsewhere = createSession(db, { workspace: '/some/other/folder', title: 'Other' });
    const child = createChildSession(db, { parentId: b.id, parentCallId: 'agent-1', type: 'general', description: 'look around' });
    pend(a.id, 1);
    pend(child.id, 2);
    pend(elsewhere.id, 3);
    pend(b.id, 4);
    answerApproval(db, b.id, 'ap4', { answer: 'once' });
    const got = workspacePending(db, ws.workspace).map((p) => [p.toolCallId, p.sessionId, p.topId, p.topTitle]);
    expect(got).toEqual([
      ['c1', a.id, a.id, 'A'],
      ['c2', child.id, b.id, 'B'],
    ]);
  });
});
