import { z } from 'zod';

/**
 * A session on its own git worktree of the workspace: its branch, where its folder is, the branch it started
 * from and how it stands. `pending` until its first turn names the branch (from the first message, unless a name
 * was given); `active` while the folder is there; `kept` (folder removed, branch kept), `merged` (merged into
 * its base; folder removed, branch kept) and `discarded` (folder and branch gone) after the person finished it.
 */
export const WORKTREE_STATES = ['pending', 'active', 'kept', 'merged', 'discarded'] as const;
export type WorktreeState = (typeof WORKTREE_STATES)[number];

export interface WorktreeView {
  state: WorktreeState;
  /** the session's branch; null while pending */
  branch: string | null;
  /** the branch the worktree started from (the main checkout's branch then) and is merged into */
  base: string;
  /** the worktree's folder; null while pending */
  path: string | null;
  /** the main checkout (the repository's top folder) */
  repo: string;
}

/** The name a person gives a worktree's branch (a slug is made of it). */
export const worktreeName = z.string().trim().min(1).max(100);

/** POST /api/sessions's `worktree`: start the session in its own worktree, its branch named from `name` or from the first message. */
export const worktreeRequest = z.strictObject({ name: worktreeName.optional() });
export type WorktreeRequest = z.infer<typeof worktreeRequest>;

/** POST /api/sessions/[id]/worktree: finish the worktree. `confirm` lets Discard drop uncommitted changes. */
export const worktreeFinishBody = z.strictObject({ action: z.enum(['merge', 'keep', 'discard']), confirm: z.boolean().optional() });
export type WorktreeFinishBody = z.infer<typeof worktreeFinishBody>;

/** What a finish did: the worktree as it is now, and the text of what happened (or why nothing did). */
export interface WorktreeFinishAnswer {
  ok: boolean;
  worktree: WorktreeView;
  message: string;
  /** a merge's conflicting files (the merge was aborted) */
  conflicts?: string[];
  /** Discard refused: the worktree's uncommitted files (send confirm to drop them) */
  uncommitted?: string[];
}

/** GET /api/sessions/[id]/worktree: the session's worktree, or null when it runs in the workspace itself. */
export interface WorktreeAnswer {
  worktree: WorktreeView | null;
}

/** The worktree settings: the folder worktrees go in (null: the data dir's) and the files copied into a new one. */
export interface WorktreeSettings {
  folder: string | null;
  copy: string[];
}
export const worktreeSettingsBody = z.strictObject({
  folder: z.string().trim().max(4096).nullable().optional(),
  copy: z.array(z.string().trim().min(1).max(400)).max(100).optional(),
});
export type WorktreeSettingsBody = z.infer<typeof worktreeSettingsBody>;
