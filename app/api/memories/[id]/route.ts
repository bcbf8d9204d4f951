import type { DeletedAnswer } from '@/lib/contract/rest';
import { route } from '@/lib/server/route';
import { forgetMemory, memoryId } from '@/lib/server/saved';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** Forget a memory of this workspace: { deleted: id }; 404 when the workspace has no such memory. */
export const DELETE = route({ ids: { id: 'Memory' } }, (c): DeletedAnswer<number> => {
  const id = memoryId(c.ids.id);
  forgetMemory(c.cfg, id);
  return { deleted: id };
});
