/**
 * Permission rules from settings files (GET/PUT /api/rules/files): Claude Code's `permissions.allow/ask/deny`
 * read from the person's and the workspace's settings files when the person turns that on, each with its file.
 */
import { z } from 'zod';

/** One entry of a file's permissions as the rules page lists it (read-only there: it is changed in its file). */
export interface FileRuleView {
  action: 'allow' | 'ask' | 'deny';
  /** the entry as written ("Bash(npm test:*)") */
  text: string;
  /** the file it is in (absolute) */
  file: string;
  source: 'person' | 'claude-user' | 'workspace';
  /**
   * active: it decides calls; pending: a workspace's allow rule waiting for the person's approval (it does
   * nothing until then); error: it does not parse (it does nothing; `error` says why)
   */
  state: 'active' | 'pending' | 'error';
  error?: string;
  /** a workspace allow rule's approval key (a hash of its action and exact text) */
  hash?: string;
}

export interface FileRulesView {
  /** whether Clamp reads the files' permission rules (the rules page's switch; default off) */
  on: boolean;
  /** the files read, in order */
  files: string[];
  rules: FileRuleView[];
  /** files that could not be read or parsed, with the fix (their rules do nothing) */
  problems: string[];
}

/** PUT /api/rules/files: turn reading the files on or off, or approve (or withdraw) one workspace allow rule. */
export const fileRulesBody = z
  .strictObject({
    on: z.boolean().optional(),
    approve: z.strictObject({ hash: z.string().regex(/^[0-9a-f]{32}$/), approved: z.boolean() }).optional(),
  })
  .refine((b) => b.on !== undefined || b.approve !== undefined, { message: 'send on or approve' });
export type FileRulesBody = z.infer<typeof fileRulesBody>;

/** The services key under which a call finds its read guard (Read deny/ask rules with paths). */
export const READ_GUARD_SERVICE = 'readGuard';

/** The rule (its text) that withholds an absolute path from a search or listing, or undefined. */
export type ReadGuard = (abs: string, isDir: boolean) => string | undefined;

/** The guard of a call's services, read once per call (undefined: nothing withheld). */
export function readGuardOf(services: Record<string, unknown> | undefined): ReadGuard | undefined {
  const s = services?.[READ_GUARD_SERVICE];
  return typeof s === 'function' ? (s as () => ReadGuard | undefined)() : undefined;
}

/** The services key under which a call finds what the settings files' rules change in the sandbox. */
export const SANDBOX_RULES_SERVICE = 'sandboxRules';

/**
 * What the settings files' rules (when they are read) change in a command's sandbox: the workspace's paths a Read
 * deny rule matches, hidden (found when the command starts); the rules' own files and settings folders, read-only;
 * the pathspecs that keep the denied paths out of the git tools' output; a note when not every path could be hidden.
 */
export interface SandboxRules {
  /** absolute paths in the workspace to hide (a folder hides everything below it) */
  hide: string[];
  /** absolute paths in the workspace a command may not change */
  readOnly: string[];
  /** git pathspecs (`:(exclude…)…`, relative to the workspace) that leave the denied paths out */
  gitExcludes: string[];
  /** what the person and the model should know (the walk stopped at its bound) */
  note?: string;
}

/** The rules' share of a call's sandbox, read once per call (undefined: the rules are off, nothing changes). */
export function sandboxRulesOf(services: Record<string, unknown> | undefined): SandboxRules | undefined {
  const s = services?.[SANDBOX_RULES_SERVICE];
  return typeof s === 'function' ? (s as () => SandboxRules | undefined)() : undefined;
}
