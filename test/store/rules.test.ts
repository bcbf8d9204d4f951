import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { closeDb, openDb, type Db } from '../../lib/store/db';
import { addRule, deleteRule, listRules, listSessionRules, patternMatches, ruleVerdict, verdictFromRules, type RuleAction, type StoredRule } from '../../lib/store/rules';
import { createSession } from '../../lib/store/sessions';
import { tempWorkspace } from '../helpers';

type R = { pattern: string; action: RuleAction };
const allow = (pattern: string): R => ({ pattern, action: 'allow' });
const deny = (pattern: string): R => ({ pattern, action: 'deny' });
const ask = (pattern: string): R => ({ pattern, action: 'ask' });

describe('patternMatches', () => {
  it.each([
    ['git status', 'git status', true],
    ['git', 'git status', true],
    ['git', 'git', true],
    ['git', 'gitk', false],
    ['git status', 'git', false],
    ['npm test', 'npm test -- --run', true],
    ['npm t', 'npm test', false],
    ['*', 'anything at all', true],
    ['', 'git', false],
  ])('%j covers %j: %s', (pattern, key, expected) => {
    expect(patternMatches(pattern, key)).toBe(expected);
  });
});

describe('verdictFromRules', () => {
  const cases: [string, R[], string[] | null, boolean, RuleAction | undefined][] = [
    ['no rules', [], ['git status'], false, undefined],
    ['an allow prefix covers the only sub-command', [allow('git')], ['git status'], false, 'allow'],
    ['an exact allow', [allow('git status')], ['git status'], false, 'allow'],
    ['a longer key under an allow prefix', [allow('npm test')], ['npm test -- --watch=false'], false, 'allow'],
    ['a prefix that is not a whole word does not cover', [allow('git')], ['gitk --all'], false, undefined],
    ['every sub-command must be allowed', [allow('git status')], ['git status', 'rm -rf build'], false, undefined],
    ['all sub-commands allowed by different rules', [allow('git status'), allow('npm')], ['git status', 'npm test'], false, 'allow'],
    ['an opaque command never matches an allow rule', [allow('sh')], ['sh'], true, undefined],
    ['not even a * allow rule', [allow('*')], ['eval'], true, undefined],
    ['deny still applies to an opaque command', [deny('sh')], ['sh'], true, 'deny'],
    ['ask still applies to an opaque command', [ask('sh')], ['sh'], true, 'ask'],
    ['deny on any one sub-command wins', [allow('git'), deny('git push')], ['git status', 'git push --force'], false, 'deny'],
    ['deny beats allow on the same key', [allow('git push'), deny('git push')], ['git push'], false, 'deny'],
    ['deny beats ask', [ask('git'), deny('git push')], ['git push'], false, 'deny'],
    ['ask beats allow', [allow('git'), ask('git push')], ['git push origin'], false, 'ask'],
    ['ask on one sub-command of several', [allow('npm'), ask('rm')], ['npm test', 'rm -rf dist'], false, 'ask'],
    ['* allows every sub-command', [allow('*')], ['ls', 'cat x'], false, 'allow'],
    ['* denies every sub-command', [allow('ls'), deny('*')], ['ls'], false, 'deny'],
    ['a command with no sub-command keys is not allowed', [allow('*')], [], false, undefined],
    ['a non-command tool matches *', [allow('*')], null, false, 'allow'],
    ['a non-command tool ignores command patterns', [allow('git')], null, false, undefined],
    ['a non-command tool denied by *', [allow('*'), deny('*')], null, false, 'deny'],
    ['a non-command tool asked by *', [allow('*'), ask('*')], null, false, 'ask'],
    ['a non-command tool with no rules', [], null, false, undefined],
  ];
  it.each(cases)('%s', (_name, rules, keys, opaque, expected) => {
    expect(verdictFromRules(rules, keys, opaque)).toBe(expected);
  });
});

describe('rules in the store', () => {
  let ws: ReturnType<typeof tempWorkspace>;
  let db: Db;
  beforeEach(() => {
    ws = tempWorkspace('clamp-rules-');
    db = openDb(ws.dataDir);
  });
  afterEach(() => {
    closeDb(ws.dataDir);
    ws.cleanup();
  });

  it('saves "always" rules per workspace, idempotently, and lists them after a restart', () => {
    const a = addRule(db, { workspace: ws.workspace, tool: 'run_command', pattern: ' git status ', action: 'allow' });
    expect(a).toMatchObject({ workspace: ws.workspace, sessionId: null, tool: 'run_command', pattern: 'git status', action: 'allow' });
    expect(a.id).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(addRule(db, { workspace: ws.workspace, tool: 'run_command', pattern: 'git status', action: 'allow' })).toEqual(a);
    const b = addRule(db, { workspace: ws.workspace, tool: 'write_file', pattern: '*', action: 'deny' });
    addRule(db, { workspace: '/elsewhere', tool: 'run_command', pattern: 'git', action: 'allow' });
    closeDb(ws.dataDir);
    db = openDb(ws.dataDir);
    const saved = ({ sessionId: _s, ...rule }: StoredRule) => rule;
    expect(listRules(db, ws.workspace)).toEqual([saved(a), saved(b)]);
  });

  it('keeps session rules apart from saved ones', () => {
    const s = createSession(db, { workspace: ws.workspace });
    const r = addRule(db, { workspace: ws.workspace, sessionId: s.id, tool: 'run_command', pattern: 'npm test', action: 'allow' });
    expect(r.sessionId).toBe(s.id);
    expect(listRules(db, ws.workspace)).toEqual([]);
    expect(listSessionRules(db, s.id)).toEqual([r]);
    expect(() => addRule(db, { workspace: ws.workspace, sessionId: 'nope', tool: 't', pattern: '*', action: 'allow' })).toThrow(
      'Session nope not found; cannot save a session rule for it.',
    );
  });

  it('refuses a rule without a tool, a pattern or a valid action', () => {
    expect(() => addRule(db, { workspace: ws.workspace, tool: 'run_command', pattern: '  ', action: 'allow' })).toThrow(
      'A rule needs a pattern: a command prefix, or * for every call of the tool.',
    );
    expect(() => addRule(db, { workspace: ws.workspace, tool: ' ', pattern: '*', action: 'allow' })).toThrow('A rule needs a tool name.');
    expect(() => addRule(db, { workspace: ws.workspace, tool: 't', pattern: '*', action: 'maybe' as never })).toThrow(
      "A rule's action is one of allow, deny, ask.",
    );
  });

  it('deletes a rule only in its own workspace', () => {
    const r = addRule(db, { workspace: ws.workspace, tool: 'run_command', pattern: 'git', action: 'allow' });
    expect(deleteRule(db, '/elsewhere', r.id)).toBe(false);
    expect(deleteRule(db, ws.workspace, r.id)).toBe(true);
    expect(deleteRule(db, ws.workspace, r.id)).toBe(false);
    expect(listRules(db, ws.workspace)).toEqual([]);
  });

  it('ruleVerdict combines the workspace\'s saved rules with this session\'s, for this tool only', () => {
    const s1 = createSession(db, { workspace: ws.workspace }).id;
    const s2 = createSession(db, { workspace: ws.workspace }).id;
    addRule(db, { workspace: ws.workspace, tool: 'run_command', pattern: 'git status', action: 'allow' });
    addRule(db, { workspace: ws.workspace, sessionId: s1, tool: 'run_command', pattern: 'npm test', action: 'allow' });
    addRule(db, { workspace: ws.workspace, sessionId: s2, tool: 'run_command', pattern: 'git', action: 'deny' });
    addRule(db, { workspace: '/elsewhere', tool: 'run_command', pattern: 'npm', action: 'allow' });
    addRule(db, { workspace: ws.workspace, tool: 'edit_file', pattern: '*', action: 'allow' });

    const v = (session: string | null, tool: string, keys: string[] | null, opaque = false) => ruleVerdict(db, ws.workspace, session, tool, keys, opaque);
    expect(v(s1, 'run_command', ['git status', 'npm test'])).toBe('allow');
    expect(v(null, 'run_command', ['git status', 'npm test'])).toBeUndefined();
    expect(v(s2, 'run_command', ['npm test'])).toBeUndefined();
    expect(v(s2, 'run_command', ['git status'])).toBe('deny');
    expect(v(s1, 'run_command', ['git status'], true)).toBeUndefined();
    expect(v(s1, 'edit_file', null)).toBe('allow');
    expect(v(s1, 'write_file', null)).toBeUndefined();
    expect(ruleVerdict(db, '/elsewhere', null, 'run_command', ['npm test'], false)).toBe('allow');
  });
});
