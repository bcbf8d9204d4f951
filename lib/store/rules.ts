import type { SavedRule } from '../contract/protocol';
import { newId, stamp, StoreError, type Db } from './db';

export type RuleAction = SavedRule['action'];

/** A rule as stored: saved ("always") rules have sessionId null; session rules die with their session. */
export interface StoredRule extends SavedRule {
  sessionId: string | null;
}

interface RuleRow {
  id: string;
  workspace: string;
  session_id: string | null;
  tool: string;
  pattern: string;
  action: RuleAction;
  created_at: number;
}

const ACTIONS: readonly RuleAction[] = ['allow', 'deny', 'ask'];

function toRule(r: RuleRow): StoredRule {
  return { id: r.id, workspace: r.workspace, sessionId: r.session_id, tool: r.tool, pattern: r.pattern, action: r.action, createdAt: r.created_at };
}

function savedRule(r: StoredRule): SavedRule {
  const { sessionId: _sessionId, ...rest } = r;
  return rest;
}

/**
 * Save a rule for a workspace (sessionId null/absent: an "always" rule) or for one session.
 * Saving the same rule twice returns the first. pattern is a command prefix (a ruleKey) or '*'.
 */
export function addRule(
  db: Db,
  init: { workspace: string; sessionId?: string | null; tool: string; pattern: string; action: RuleAction },
): StoredRule {
  const pattern = init.pattern.trim();
  if (!init.tool.trim()) throw new StoreError('A rule needs a tool name.', 'invalid');
  if (!pattern) throw new StoreError('A rule needs a pattern: a command prefix, or * for every call of the tool.', 'invalid');
  if (!ACTIONS.includes(init.action)) throw new StoreError(`A rule's action is one of ${ACTIONS.join(', ')}.`, 'invalid');
  const sessionId = init.sessionId ?? null;
  return db.transaction(() => {
    if (sessionId !== null && !db.prepare('SELECT 1 FROM sessions WHERE id = ?').get(sessionId)) {
      throw new StoreError(`Session ${sessionId} not found; cannot save a session rule for it.`, 'not-found');
    }
    db.prepare(
      `INSERT INTO rules (id, workspace, session_id, tool, pattern, action, created_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
    ).run(newId(), init.workspace, sessionId, init.tool, pattern, init.action, stamp());
    const row = db
      .prepare(`SELECT * FROM rules WHERE workspace = ? AND ifnull(session_id, '') = ? AND tool = ? AND pattern = ? AND action = ?`)
      .get(init.workspace, sessionId ?? '', init.tool, pattern, init.action) as RuleRow;
    return toRule(row);
  })();
}

/** The saved ("always") rules of a workspace, oldest first (GET /api/rules). */
export function listRules(db: Db, workspace: string): SavedRule[] {
  const rows = db.prepare('SELECT * FROM rules WHERE workspace = ? AND session_id IS NULL ORDER BY created_at, rowid').all(workspace) as RuleRow[];
  return rows.map((r) => savedRule(toRule(r)));
}

/** A session's own rules, oldest first. */
export function listSessionRules(db: Db, sessionId: string): StoredRule[] {
  const rows = db.prepare('SELECT * FROM rules WHERE session_id = ? ORDER BY created_at, rowid').all(sessionId) as RuleRow[];
  return rows.map(toRule);
}

/** Delete a rule of a workspace (saved or session); false when the workspace has no rule with that id. */
export function deleteRule(db: Db, workspace: string, id: string): boolean {
  return db.prepare('DELETE FROM rules WHERE id = ? AND workspace = ?').run(id, workspace).changes > 0;
}

/**
 * Whether a rule pattern covers a sub-command key: equal, a word prefix ("git" covers "git status"), or '*'.
 * A pattern that starts with `=` (a command whose options can run code or send data) covers exactly itself.
 */
export function patternMatches(pattern: string, key: string): boolean {
  if (pattern.startsWith('=')) return key === pattern;
  return pattern === '*' || key === pattern || key.startsWith(`${pattern} `);
}

/**
 * The verdict a list of one tool's rules gives a call, checked deny → ask → allow.
 * subRuleKeys: the rule key of every sub-command for a command, null for any other tool (which only '*' matches).
 * Deny/ask: any sub-command matched. Allow: every sub-command matched, and never for an opaque command.
 * undefined when no rule decides.
 */
export function verdictFromRules(
  rules: readonly Pick<SavedRule, 'pattern' | 'action'>[],
  subRuleKeys: readonly string[] | null,
  isOpaque: boolean,
): RuleAction | undefined {
  const of = (action: RuleAction) => rules.filter((r) => r.action === action).map((r) => r.pattern);
  const anyMatch = (patterns: string[]) =>
    subRuleKeys === null ? patterns.includes('*') : subRuleKeys.some((k) => patterns.some((p) => patternMatches(p, k)));
  if (anyMatch(of('deny'))) return 'deny';
  if (anyMatch(of('ask'))) return 'ask';
  const allow = of('allow');
  if (subRuleKeys === null) return allow.includes('*') ? 'allow' : undefined;
  if (isOpaque || subRuleKeys.length === 0) return undefined;
  return subRuleKeys.every((k) => allow.some((p) => patternMatches(p, k))) ? 'allow' : undefined;
}

/**
 * The rules' verdict on a call: the workspace's saved rules plus the session's own, for this tool.
 * See verdictFromRules for the matching; undefined when no rule decides.
 */
export function ruleVerdict(
  db: Db,
  workspace: string,
  sessionId: string | null | undefined,
  toolName: string,
  subRuleKeys: readonly string[] | null,
  isOpaque: boolean,
): RuleAction | undefined {
  const rules = db
    .prepare('SELECT pattern, action FROM rules WHERE workspace = ? AND tool = ? AND (session_id IS NULL OR session_id = ?)')
    .all(workspace, toolName, sessionId ?? null) as Pick<SavedRule, 'pattern' | 'action'>[];
  return verdictFromRules(rules, subRuleKeys, isOpaque);
}
