import { BUDGET } from '@/lib/contract/budget';
import type { SessionDetail } from '@/lib/contract/protocol';
import { sessionPatchBody, type DeletedAnswer, type SessionAnswer } from '@/lib/contract/rest';
import { route } from '@/lib/server/route';
import { patchSession, removeSession, sessionDetail } from '@/lib/server/sessions';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** One session with its whole conversation and pending approvals (SessionDetail); 404 when unknown. */
export const GET = route({ ids: { id: 'Session' } }, (c): SessionDetail => sessionDetail(c.cfg, c.ids.id));

/** Rename a session and/or switch its mode ({ title?, mode? }): { session: SessionSummary }. */
export const PATCH = route({ ids: { id: 'Session' }, body: sessionPatchBody, maxBytes: BUDGET.API_BODY_MAX_BYTES }, (c): SessionAnswer => ({ session: patchSession(c.cfg, c.ids.id, c.body) }));

/** Delete a session with its messages, approvals and session rules: { deleted: id }; 404 when unknown, 409 while a turn of it runs. */
export const DELETE = route({ ids: { id: 'Session' } }, async (c): Promise<DeletedAnswer> => {
  await removeSession(c.cfg, c.ids.id);
  return { deleted: c.ids.id };
});
