import { workspaceOpenBody } from '@/lib/contract/request-bodies';
import type { WorkspaceOpenAnswer, WorkspacesAnswer } from '@/lib/contract/workspace';
import { BUDGET } from '@/lib/contract/budget';
import { serverConfig } from '@/lib/server/http';
import { route } from '@/lib/server/route';
import { openWorkspace, workspaceList } from '@/lib/server/workspaces';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** The launcher's workspace and the recently opened ones, each with its session count (WorkspacesAnswer). */
export const GET = route({}, (): WorkspacesAnswer => workspaceList(serverConfig()));

/** Open a folder ({ path }): checked (exists, a readable folder, not / nor the data dir), then listed first (WorkspaceOpenAnswer); 400 says what is wrong. */
export const POST = route({ body: workspaceOpenBody, maxBytes: BUDGET.API_BODY_MAX_BYTES }, (c): WorkspaceOpenAnswer => ({ workspace: openWorkspace(serverConfig(), c.body.path) }));
