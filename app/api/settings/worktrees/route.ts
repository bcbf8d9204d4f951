import { BUDGET } from '@/lib/contract/budget';
import { worktreeSettingsBody, type WorktreeSettings } from '@/lib/contract/worktree';
import { route } from '@/lib/server/route';
import { saveWorktreeSettings, worktreeSettings } from '@/lib/server/worktrees';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** Where new worktrees go and which files are copied into them: WorktreeSettings. */
export const GET = route({}, (c): WorktreeSettings => worktreeSettings(c.cfg));

/** Change them ({ folder?: string | null, copy?: string[] }); 400 for a folder that is not an absolute path. */
export const PUT = route({ body: worktreeSettingsBody, maxBytes: BUDGET.API_BODY_MAX_BYTES }, (c): WorktreeSettings => saveWorktreeSettings(c.cfg, c.body));
