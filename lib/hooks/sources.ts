import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Db } from '../store/db';
import { getSetting, setSetting } from '../store/settings';
import { HookConfigError, parseHooksText, type HookEntry, type HookSource } from './config';

/**
 * Where hooks come from. The person's: `<dataDir>/hooks.json` (what the settings page edits) and, when the
 * person turns it on, `~/.claude/settings.json`. The workspace's: `.clamp/settings.json`, `.claude/settings.json`
 * and `.claude/settings.local.json` — read as data, run only once the person approved each hook's exact
 * definition, and then only in the sandbox.
 */

const APPROVALS_KEY = 'hooks.approvals';
const CLAUDE_USER_KEY = 'hooks.claudeUser';
/** A settings file larger than this is not read (a hooks section is a few kilobytes). */
const HOOK_FILE_MAX_BYTES = 1024 * 1024;

export const WORKSPACE_HOOK_FILES = ['.clamp/settings.json', '.claude/settings.json', '.claude/settings.local.json'] as const;

/** The person's hooks file in the data dir. */
export function personHooksPath(dataDir: string): string {
  return path.join(dataDir, 'hooks.json');
}

/** Claude Code's user settings file (under $HOME). */
export function claudeUserSettingsPath(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(env.HOME || os.homedir(), '.claude', 'settings.json');
}

export interface HookSources {
  /** the hooks that run: the person's, and the workspace's the person approved */
  active: HookEntry[];
  /** the workspace's hooks waiting for the person's approval (they do not run) */
  pending: HookEntry[];
  /** files that could not be read or parsed, each with the fix (their hooks do not run) */
  problems: string[];
  /** events named in the files that Clamp does not run */
  skippedEvents: string[];
}

/** A file's text, or undefined when there is none; a workspace's file must be a regular file (not a link). */
export function readSmall(file: string, regularOnly: boolean): string | undefined {
  let st: fs.Stats | undefined;
  try {
    // an absent file (the usual case, at every call) is answered without building an error
    st = regularOnly ? fs.lstatSync(file, { throwIfNoEntry: false }) : fs.statSync(file, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
  if (!st) return undefined;
  if (!st.isFile()) throw new HookConfigError(`${file} is not a regular file; its hooks and permission rules are not read.`);
  if (st.size > HOOK_FILE_MAX_BYTES) throw new HookConfigError(`${file} is ${st.size} bytes (> ${HOOK_FILE_MAX_BYTES}); its hooks and permission rules are not read.`);
  return fs.readFileSync(file, 'utf8');
}

function readFile(file: string, source: HookSource, out: HookSources): HookEntry[] {
  try {
    const text = readSmall(file, source === 'workspace');
    if (text === undefined) return [];
    const parsed = parseHooksText(text, source, file);
    out.skippedEvents.push(...parsed.skippedEvents);
    return parsed.entries;
  } catch (err) {
    out.problems.push(err instanceof Error ? err.message : String(err));
    return [];
  }
}

/**
 * Every hook of the workspace and the person, sorted into the ones that run and the ones waiting for approval
 * (approvals are the home workspace's: a session's worktree shares its repository's). Never throws.
 */
export function readHookSources(db: Db, workspace: string, dataDir: string, env: NodeJS.ProcessEnv = process.env, home = workspace): HookSources {
  const out: HookSources = { active: [], pending: [], problems: [], skippedEvents: [] };
  out.active.push(...readFile(personHooksPath(dataDir), 'person', out));
  if (claudeUserHooksOn(db)) out.active.push(...readFile(claudeUserSettingsPath(env), 'claude-user', out));
  for (const rel of WORKSPACE_HOOK_FILES) {
    for (const e of readFile(path.join(workspace, rel), 'workspace', out)) {
      (isHookApproved(db, home, e.hash) ? out.active : out.pending).push(e);
    }
  }
  return out;
}

/** Whether `~/.claude/settings.json`'s hooks run (the settings page's switch; default off). */
export function claudeUserHooksOn(db: Db): boolean {
  return getSetting<boolean>(db, CLAUDE_USER_KEY) === true;
}

export function setClaudeUserHooks(db: Db, on: boolean): void {
  setSetting(db, CLAUDE_USER_KEY, on);
}

function approvalKey(workspace: string, hash: string): string {
  return `${workspace}\u0000${hash}`;
}

/** Whether the person approved a workspace hook with exactly this definition. */
export function isHookApproved(db: Db, workspace: string, hash: string): boolean {
  return (getSetting<string[]>(db, APPROVALS_KEY) ?? []).includes(approvalKey(workspace, hash));
}

/** Record (or withdraw) the person's approval of a workspace hook's definition (a changed definition asks again). */
export function setHookApproval(db: Db, workspace: string, hash: string, approved: boolean): void {
  const all = new Set(getSetting<string[]>(db, APPROVALS_KEY) ?? []);
  if (approved) all.add(approvalKey(workspace, hash));
  else all.delete(approvalKey(workspace, hash));
  setSetting(db, APPROVALS_KEY, [...all]);
}
