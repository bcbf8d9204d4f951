import type { DeletedAnswer } from '@/lib/contract/rest';
import { route } from '@/lib/server/route';
import { removeRule } from '@/lib/server/saved';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** Remove a rule of this workspace: { deleted: id }; 404 when the workspace has no such rule. */
export const DELETE = route({ ids: { id: 'Rule' } }, (c): DeletedAnswer => {
  removeRule(c.cfg, c.ids.id);
  return { deleted: c.ids.id };
});
