import { BUDGET } from '@/lib/contract/budget';
import { worktreeFinishBody, type WorktreeAnswer, type WorktreeFinishAnswer } from '@/lib/contract/worktree';
import { isTurnRunning } from '@/lib/server/chat';
import { route } from '@/lib/server/route';
import { finishWorktree, sessionWorktree } from '@/lib/server/worktrees';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** The session's worktree: { worktree: WorktreeView | null } (null: it works in the workspace itself). */
export const GET = route({ ids: { id: 'Session' } }, (c): WorktreeAnswer => ({ worktree: sessionWorktree(c.cfg, c.ids.id) }));

/** Finish the worktree ({ action: merge | keep | discard, confirm? }): WorktreeFinishAnswer; 409 with nothing to finish or while a turn runs. */
export const POST = route({ ids: { id: 'Session' }, body: worktreeFinishBody, maxBytes: BUDGET.API_BODY_MAX_BYTES }, (c): Promise<WorktreeFinishAnswer> =>
  finishWorktree(c.cfg, c.ids.id, c.body, isTurnRunning(c.ids.id)),
);
