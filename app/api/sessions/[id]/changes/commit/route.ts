import { BUDGET } from '@/lib/contract/budget';
import { commitChangesBody, type CommitChangesAnswer } from '@/lib/contract/rest';
import { commitChanges } from '@/lib/server/changes';
import { route } from '@/lib/server/route';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** { paths, message }: git_commit of these paths through dispatch (the click approves it): { ok, text }. */
export const POST = route({ ids: { id: 'Session' }, body: commitChangesBody, maxBytes: BUDGET.API_BODY_MAX_BYTES }, (c): Promise<CommitChangesAnswer> => commitChanges(c.cfg, c.ids.id, c.body));
