import { BUDGET } from '@/lib/contract/budget';
import { rewindBody, type RewindAnswer, type RewindPreview, type RewindTasksConflict } from '@/lib/contract/rest';
import { HttpError, json } from '@/lib/server/http';
import { rewind, rewindPreview, TasksRunningError } from '@/lib/server/rewind';
import { route } from '@/lib/server/route';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** ?messageId=M: what a rewind to before user message M would change (RewindPreview). */
export const GET = route({ ids: { id: 'Session' } }, (c): Promise<RewindPreview> => {
  const messageId = c.url.searchParams.get('messageId');
  if (!messageId) throw new HttpError(400, 'Name the user message to rewind to: ?messageId=<id>.');
  return rewindPreview(c.cfg, c.ids.id, messageId);
});

/** { messageId | checkpointId, code, conversation, stopTasks? }: RewindAnswer; 409 while a turn or (without stopTasks) a background task runs. */
export const POST = route(
  {
    ids: { id: 'Session' },
    body: rewindBody,
    maxBytes: BUDGET.API_BODY_MAX_BYTES,
    answerError: (err) => (err instanceof TasksRunningError ? json<RewindTasksConflict>({ error: err.message, runningTasks: err.runningTasks }, 409) : undefined),
  },
  (c): Promise<RewindAnswer> => rewind(c.cfg, c.ids.id, c.body),
);
