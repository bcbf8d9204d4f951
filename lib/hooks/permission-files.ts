import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import type { Db } from '../store/db';
import { getSetting, setSetting } from '../store/settings';
import type { FileRuleView, FileRulesView } from '../contract/permission-rest';
import { parsePermissionRule, PermissionRuleError, type PermissionAction, type PermissionRule, type RuleRoots } from '../policy/permission-rules';
import { claudeUserSettingsPath, personHooksPath, readSmall, WORKSPACE_HOOK_FILES } from './sources';
import path from 'node:path';

/**
 * Permission rules from the settings files hooks come from (`permissions.allow/ask/deny`, Claude Code's format),
 * read when the person turns that on. The person's files (the data dir's hooks.json, ~/.claude/settings.json)
 * decide at once; a workspace's (.clamp/settings.json, .claude/settings.json, .claude/settings.local.json) deny
 * and ask at once (they only narrow), and allow only once the person approved that exact rule.
 */

const ON_KEY = 'permissions.fromFiles';
const APPROVALS_KEY = 'permissions.approvals';
const ACTIONS: readonly PermissionAction[] = ['deny', 'ask', 'allow'];

/** A rule of a file that decides calls. */
export interface FileRule {
  action: PermissionAction;
  rule: PermissionRule;
  file: string;
}

export interface FileRules {
  /** the rules that decide calls */
  active: FileRule[];
  /** every entry as the rules page lists it */
  views: FileRuleView[];
  problems: string[];
  files: string[];
}

/** Whether the files' permission rules are read (the rules page's switch; default off). */
export function fileRulesOn(db: Db): boolean {
  return getSetting<boolean>(db, ON_KEY) === true;
}

export function setFileRulesOn(db: Db, on: boolean): void {
  setSetting(db, ON_KEY, on);
}

/** A workspace allow rule's approval key: a hash of its action and exact text. */
export function fileRuleHash(action: PermissionAction, text: string): string {
  return crypto.createHash('sha256').update(JSON.stringify(['permission', action, text])).digest('hex').slice(0, 32);
}

const approvalKey = (home: string, hash: string) => `${home}\u0000${hash}`;

export function isFileRuleApproved(db: Db, home: string, hash: string): boolean {
  return (getSetting<string[]>(db, APPROVALS_KEY) ?? []).includes(approvalKey(home, hash));
}

export function setFileRuleApproval(db: Db, home: string, hash: string, approved: boolean): void {
  const all = new Set(getSetting<string[]>(db, APPROVALS_KEY) ?? []);
  if (approved) all.add(approvalKey(home, hash));
  else all.delete(approvalKey(home, hash));
  setSetting(db, APPROVALS_KEY, [...all]);
}

/** Where rules' paths are anchored: the workspace as given and as its real path, and the home folder. */
export function ruleRoots(workspace: string, env: NodeJS.ProcessEnv = process.env): RuleRoots {
  let real = workspace;
  try {
    real = fs.realpathSync(workspace);
  } catch {
    // a workspace that cannot be resolved is matched as given
  }
  return { roots: [...new Set([path.resolve(workspace), real])], home: env.HOME || os.homedir() };
}

type Source = FileRuleView['source'];

/** The `permissions` object of a file's text, or a problem; undefined when the file or the section is absent. */
function permissionsOf(file: string, source: Source): Record<string, unknown> | undefined {
  const text = readSmall(file, source === 'workspace');
  if (text === undefined) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new PermissionRuleError(`${file} is not valid JSON (${err instanceof Error ? err.message : String(err)}); its permission rules are not read until it parses.`);
  }
  if (!json || typeof json !== 'object' || Array.isArray(json)) throw new PermissionRuleError(`${file}: the file must hold a JSON object; its permission rules are not read.`);
  const p = (json as Record<string, unknown>).permissions;
  if (p === undefined) return undefined;
  if (!p || typeof p !== 'object' || Array.isArray(p)) throw new PermissionRuleError(`${file}: "permissions" must be an object with "allow", "ask" and "deny" lists; its rules are not read.`);
  return p as Record<string, unknown>;
}

/** One file's entries into `out`. Never throws: a broken file is a problem, a broken entry an error row. */
function readOne(file: string, source: Source, roots: RuleRoots, o: { db: Db; home: string }, out: FileRules): void {
  let perms: Record<string, unknown> | undefined;
  try {
    perms = permissionsOf(file, source);
  } catch (err) {
    out.problems.push(err instanceof Error ? err.message : String(err));
    return;
  }
  if (!perms) return;
  for (const action of ACTIONS) {
    const list = perms[action];
    if (list === undefined) continue;
    if (!Array.isArray(list)) {
      out.problems.push(`${file}: permissions.${action} must be a list of rules such as ["Bash(npm test:*)"]; its rules are not read.`);
      continue;
    }
    for (const entry of list) {
      const text = typeof entry === 'string' ? entry.trim() : JSON.stringify(entry);
      const view: FileRuleView = { action, text, file, source, state: 'active' };
      try {
        const rule = parsePermissionRule(entry, roots);
        if (source === 'workspace' && action === 'allow') {
          view.hash = fileRuleHash(action, text);
          if (!isFileRuleApproved(o.db, o.home, view.hash)) view.state = 'pending';
        }
        if (view.state === 'active') out.active.push({ action, rule, file });
      } catch (err) {
        view.state = 'error';
        view.error = `${err instanceof Error ? err.message : String(err)}. This rule does nothing until it is fixed in ${file}.`;
      }
      out.views.push(view);
    }
  }
}

/**
 * Every permission rule of the person's and the workspace's settings files (none when the switch is off, but
 * `views` lists them all the same, for the page). `home` is the workspace the approvals belong to (a
 * worktree's repository). Never throws.
 */
export function readFileRules(db: Db, workspace: string, dataDir: string, env: NodeJS.ProcessEnv = process.env, home = workspace): FileRules {
  const out: FileRules = { active: [], views: [], problems: [], files: [] };
  const roots = ruleRoots(workspace, env);
  const files: [string, Source][] = [
    [personHooksPath(dataDir), 'person'],
    [claudeUserSettingsPath(env), 'claude-user'],
    ...WORKSPACE_HOOK_FILES.map((rel): [string, Source] => [path.join(workspace, rel), 'workspace']),
  ];
  for (const [file, source] of files) {
    out.files.push(file);
    readOne(file, source, roots, { db, home }, out);
  }
  if (!fileRulesOn(db)) out.active = [];
  return out;
}

/** The rules page's view of the files' rules. */
export function fileRulesView(db: Db, workspace: string, dataDir: string, env: NodeJS.ProcessEnv = process.env, home = workspace): FileRulesView {
  const r = readFileRules(db, workspace, dataDir, env, home);
  return { on: fileRulesOn(db), files: r.files, rules: r.views, problems: r.problems };
}
