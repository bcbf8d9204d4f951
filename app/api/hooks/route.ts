import { BUDGET } from '@/lib/contract/budget';
import { hooksBody, type HooksView } from '@/lib/contract/hooks-rest';
import { hooksView, saveHooks } from '@/lib/server/hooks';
import { route } from '@/lib/server/route';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** The person's hooks file, the Claude Code switch, and every hook by where it comes from (HooksView). Runs nothing. */
export const GET = route({}, (c): HooksView => hooksView(c.cfg));

/** Save the person's hooks file (checked first), turn Claude Code's user hooks on or off, or approve a workspace hook (HooksBody). */
export const PUT = route({ body: hooksBody, maxBytes: BUDGET.API_BODY_MAX_BYTES }, (c): HooksView => saveHooks(c.cfg, c.body));
