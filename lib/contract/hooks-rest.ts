/**
 * The hooks route's body and answer (GET/PUT /api/hooks): the person's hooks file as text, the switch for Claude
 * Code's user settings, and the workspace's hooks with their approvals.
 */
import { z } from 'zod';
import type { HookEvent } from './hooks';

/** One hook as the settings page lists it. */
export interface HookView {
  event: HookEvent;
  matcher: string;
  command: string;
  name: string;
  /** seconds, when its definition gives one */
  timeoutSeconds?: number;
  /** the file it is defined in (relative to the workspace for a workspace's) */
  file: string;
  /** the hash of its exact definition: an approval is of this */
  hash: string;
  /** a workspace's hook: approved by the person (it runs, in the sandbox) or not (it does not run) */
  approved?: boolean;
}

export interface HooksView {
  /** the person's hooks file (the data dir's hooks.json) and its text ('' when there is none) */
  personFile: string;
  personText: string;
  /** Claude Code's user settings (~/.claude/settings.json): whether its hooks run, and where it is */
  claudeUser: { on: boolean; file: string };
  /** the person's Claude Code folders (~/.claude/commands, ~/.claude/agents): whether their commands and agents are offered */
  claudeFiles: { on: boolean; commands: string; agents: string };
  /** every hook that runs without asking (the person's, Claude Code's user settings' when on) */
  person: HookView[];
  /** the workspace's hooks (.clamp/settings.json, .claude/settings.json, .claude/settings.local.json) */
  workspace: HookView[];
  /** files that could not be read or parsed, with the fix (their hooks do not run) */
  problems: string[];
  /** events named in the files that Clamp does not run */
  skippedEvents: string[];
}

/** PUT /api/hooks: the person's hooks file's new text ('' removes it), the Claude Code switches (hooks; commands and agents), or one workspace hook's approval. */
export const hooksBody = z
  .strictObject({
    personText: z.string().optional(),
    claudeUser: z.boolean().optional(),
    claudeFiles: z.boolean().optional(),
    approve: z.strictObject({ hash: z.string().regex(/^[0-9a-f]{32}$/), approved: z.boolean() }).optional(),
  })
  .refine((b) => b.personText !== undefined || b.claudeUser !== undefined || b.claudeFiles !== undefined || b.approve !== undefined, { message: 'send personText, claudeUser, claudeFiles or approve' });
export type HooksBody = z.infer<typeof hooksBody>;
