/** The header the page names its workspace with on requests that are not about one session. */
export const WORKSPACE_HEADER = 'x-clamp-workspace';
/** The query parameter that does the same where a header cannot be sent (an EventSource, the page's own address). */
export const WORKSPACE_PARAM = 'workspace';
/** GET /api/workspaces: most recently opened workspaces listed. */
export const WORKSPACE_RECENT_MAX_ITEMS = 10;

/** POST /api/workspaces (its schema in request-bodies.ts, which the page does not load). */
export type { WorkspaceOpenBody } from './request-bodies';

/** A workspace the server has open. */
export interface WorkspaceEntry {
  /** its real path */
  path: string;
  /** the launcher's workspace (CLAMP_WORKSPACE), used when a request names none */
  isDefault: boolean;
  /** when it was last opened (ms since the epoch); null for the launcher's, until opened from the page */
  openedAt: number | null;
  /** its sessions (subagents' not counted) */
  sessions: number;
}

/** GET /api/workspaces: the launcher's workspace first, then the recently opened ones, newest first. */
export interface WorkspacesAnswer {
  workspaces: WorkspaceEntry[];
}

/** POST /api/workspaces: the workspace now open. */
export interface WorkspaceOpenAnswer {
  workspace: WorkspaceEntry;
}
