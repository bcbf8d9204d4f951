import fs from 'node:fs';
import path from 'node:path';
import type { PolicyDecision, ToolDefinition } from '../contract/types';
import { traitsOf } from '../contract/types';
import type { ResolvedPath } from '../contract/paths';
import type { ReadGuard } from '../contract/permission-rest';
import type { Db } from '../store/db';
import { permissionVerdict, readWithheld, type PermissionAction, type RuleCall } from '../policy/permission-rules';
import { fileRulesOn, readFileRules, type FileRule } from './permission-files';

/**
 * The settings files' permission rules at work: their verdict on a call (the hosts fold it with the saved rules'),
 * and the read guard that withholds Read-denied paths from searches and listings. Read at every call.
 */

/** A rule's verdict: its action, or its action and which rule it is (dispatch's RuleAnswer). */
export type RuleVerdict = PermissionAction | { action: PermissionAction; by: string } | undefined;

export interface Place {
  workspace: string;
  dataDir: string;
  /** the workspace the approvals belong to (a worktree's repository) */
  home: string;
}

/** The call as rules see it: its Claude Code name and its declared paths, as written (absolute) and resolved. */
function ruleCall(tool: ToolDefinition, input: unknown, d: PolicyDecision, paths: ReadonlyMap<string, ResolvedPath> | undefined, workspace: string): RuleCall {
  let declared: { path: string; access: 'read' | 'write' }[] = [];
  try {
    declared = tool.paths ? tool.paths(input as never) : [];
  } catch {
    // a tool whose paths() throws was refused before policy
  }
  return {
    name: tool.name,
    effect: tool.effect,
    claudeName: traitsOf(tool).hookAs?.name,
    input,
    decision: d,
    paths: declared.map((p) => {
      const lexical = path.resolve(workspace, p.path);
      return { lexical, real: paths?.get(p.path)?.abs ?? lexical, access: p.access };
    }),
  };
}

/** A path through its links, or itself when it cannot be resolved (a file not written yet). */
function realOrSelf(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return file;
  }
}

const shortFile = (file: string, workspace: string) => (file.startsWith(`${workspace}/`) ? path.relative(workspace, file) : file);

/** The files' rules' verdict on a call (none while the switch is off). Never throws. */
export function fileRuleVerdict(db: Db, o: Place, tool: ToolDefinition, input: unknown, d: PolicyDecision, paths?: ReadonlyMap<string, ResolvedPath>): RuleVerdict {
  try {
    if (!fileRulesOn(db)) return undefined;
    const { active, files } = readFileRules(db, o.workspace, o.dataDir, process.env, o.home);
    const call = ruleCall(tool, input, d, paths, o.workspace);
    const hit = permissionVerdict<FileRule>(active, call);
    if (hit?.action === 'deny') return { action: 'deny', by: `the rule ${hit.rule.rule.text} in ${shortFile(hit.rule.file, o.workspace)}` };
    // a tool that would change a file the rules come from asks the person, whatever the mode (a removed deny widens)
    const guarded = new Set(files.flatMap((f) => [f, realOrSelf(f)]));
    const own = call.paths.find((p) => p.access === 'write' && (guarded.has(p.real) || guarded.has(p.lexical)));
    if (own) return { action: 'ask', by: `Clamp's guard of the permission rules in ${shortFile(own.real, o.workspace)}` };
    return hit && { action: hit.action, by: `the rule ${hit.rule.rule.text} in ${shortFile(hit.rule.file, o.workspace)}` };
  } catch (err) {
    // fail closed: rules that cannot be judged ask
    return { action: 'ask', by: `the settings files' permission rules (unreadable: ${err instanceof Error ? err.message : String(err)})` };
  }
}

/** Two verdicts as one: deny beats ask beats allow. */
export function strongerRule(a: RuleVerdict, b: RuleVerdict): RuleVerdict {
  const rank = (x: RuleVerdict) => (x === undefined ? 0 : { allow: 1, ask: 2, deny: 3 }[typeof x === 'object' ? x.action : x]);
  return rank(b) > rank(a) ? b : a;
}

/** The services entry of a call's read guard: read once per call from the files' Read deny and ask rules (no file is read while the switch is off). */
export function readGuardFor(db: Db, o: Place): () => ReadGuard | undefined {
  return () => {
    if (!fileRulesOn(db)) return undefined;
    const narrowing = readFileRules(db, o.workspace, o.dataDir, process.env, o.home).active.filter((r) => r.action !== 'allow' && r.rule.spec.kind === 'path');
    if (!narrowing.length) return undefined;
    const rules = narrowing.map((r) => r.rule);
    return (abs, isDir) => readWithheld(rules, abs, isDir)?.text;
  };
}

