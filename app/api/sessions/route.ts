import { BUDGET } from '@/lib/contract/budget';
import { sessionCreateBody, type SessionAnswer, type SessionListAnswer } from '@/lib/contract/rest';
import { route } from '@/lib/server/route';
import { newSession, sessionList } from '@/lib/server/sessions';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** The workspace's sessions, most recently active first: { sessions: SessionSummary[] }. */
export const GET = route({}, (c): SessionListAnswer => ({ sessions: sessionList(c.cfg) }));

/** Create a session ({ title?, mode?, worktree?: { name? } }): 201 { session: SessionSummary }; 409 when the worktree cannot be made. */
export const POST = route({ body: sessionCreateBody, maxBytes: BUDGET.API_BODY_MAX_BYTES, status: 201 }, async (c): Promise<SessionAnswer> => ({ session: await newSession(c.cfg, c.body) }));
