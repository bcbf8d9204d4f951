import { describe, expect, it } from 'vitest';
import { parsePermissionRule, permissionVerdict, readWithheld, PermissionRuleError, type PermissionAction, type RuleCall } from '../../lib/policy/permission-rules';
import type { PolicyDecision } from '../../lib/contract/types';

const where = { roots: ['/w', '/real/w'], home: '/home/me' };
const rule = (text: string) => parsePermissionRule(text, where);
const rules = (list: [PermissionAction, string][]) => list.map(([action, text]) => ({ action, rule: rule(text) }));

function bash(command: string, d: Partial<PolicyDecision> = {}): RuleCall {
  return { name: 'run_command', effect: 'system', claudeName: 'Bash', input: { command }, paths: [], decision: { action: 'ask', reason: 'x', subcommands: [command], subRuleKeys: [command.split(' ').slice(0, 2).join(' ')], ...d } };
}
function read(name: string, lexical: string, real = lexical, claudeName = 'Read'): RuleCall {
  return { name, effect: 'read', claudeName, input: {}, paths: [{ lexical, real, access: 'read' }], decision: { action: 'allow', reason: 'read-only tool' } };
}
const verdict = (list: [PermissionAction, string][], c: RuleCall) => permissionVerdict(rules(list), c)?.action;

describe('permission rules: the grammar', () => {
  it('reads tool names, prefixes, exact commands, wildcards, paths, domains, agents and MCP names', () => {
    expect(rule('Bash').spec).toEqual({ kind: 'any' });
    expect(rule('Bash()').spec).toEqual({ kind: 'any' });
    expect(rule('Bash(npm test:*)').spec).toEqual({ kind: 'command', form: 'prefix', text: 'npm test' });
    expect(rule('Bash(git  diff)').spec).toEqual({ kind: 'command', form: 'exact', text: 'git diff' });
    expect(rule('Bash(git * main)').spec).toMatchObject({ kind: 'command', form: 'wildcard' });
    expect(rule('Read(./secrets/**)').spec).toMatchObject({ kind: 'path', family: 'read', glob: './secrets/**' });
    expect(rule('Edit(src/**)').spec).toMatchObject({ kind: 'path', family: 'write' });
    expect(rule('WebFetch(domain:Example.COM)').spec).toEqual({ kind: 'domain', domain: 'example.com' });
    expect(rule('Task(reviewer)').spec).toEqual({ kind: 'agent', type: 'reviewer' });
    expect(rule('mcp__github').spec).toEqual({ kind: 'any' });
    expect(rule('mcp__github__create_issue').tool).toBe('mcp__github__create_issue');
    expect(rule('run_command').tool).toBe('run_command');
  });

  it('refuses what it cannot read, saying how to write it', () => {
    const bad = (text: unknown) => {
      try {
        parsePermissionRule(text, where);
      } catch (err) {
        expect(err).toBeInstanceOf(PermissionRuleError);
        return (err as Error).message;
      }
      throw new Error(`${String(text)} parsed`);
    };
    expect(bad(42)).toMatch(/a rule is a string such as "Bash\(npm test:\*\)"/);
    expect(bad('Bash(npm test')).toMatch(/write a tool name, optionally with a specifier/);
    expect(bad('WebFetch(example.com)')).toBe('WebFetch takes a domain, as in WebFetch(domain:example.com)');
    expect(bad('Glob(src/**)')).toMatch(/^Glob takes no specifier in parentheses; write Glob alone/);
    expect(bad('Bash(:*)')).toMatch(/":\*" needs a command before it/);
    expect(bad('Read(../outside)')).toMatch(/leads above the project; write it as \/\/absolute\/path or ~\/path/);
    expect(bad('Read({a,b)')).toMatch(/unclosed "\{"/);
    expect(bad('mcp__x(y)')).toMatch(/an MCP rule names a server or a tool without parentheses/);
  });
});

describe('permission rules: commands', () => {
  it('a prefix holds on a word boundary; an exact rule only for that command', () => {
    expect(verdict([['allow', 'Bash(npm test:*)']], bash('npm test'))).toBe('allow');
    expect(verdict([['allow', 'Bash(npm test:*)']], bash('npm test --watch', { subRuleKeys: ['npm test'] }))).toBe('allow');
    expect(verdict([['allow', 'Bash(npm test:*)']], bash('npm testing', { subRuleKeys: ['npm testing'] }))).toBeUndefined();
    expect(verdict([['allow', 'Bash(git diff)']], bash('git diff', { subRuleKeys: ['git diff'] }))).toBe('allow');
    expect(verdict([['allow', 'Bash(git diff)']], bash('git diff HEAD', { subRuleKeys: ['git diff'] }))).toBeUndefined();
    expect(verdict([['allow', 'Bash(ls *)']], bash('ls', { subRuleKeys: ['ls'] }))).toBe('allow');
  });

  it('deny beats ask beats allow, and a deny holds for any sub-command', () => {
    const list: [PermissionAction, string][] = [['allow', 'Bash'], ['ask', 'Bash(git commit:*)'], ['deny', 'Bash(git push:*)']];
    expect(verdict(list, bash('git push origin main'))).toBe('deny');
    expect(verdict(list, bash('git commit -m x'))).toBe('ask');
    expect(verdict(list, bash('make', { subRuleKeys: ['make'] }))).toBe('allow');
    const chained = bash('npm test && git push', { subcommands: ['npm test', 'git push'], subRuleKeys: ['npm test', 'git push'] });
    expect(verdict([['allow', 'Bash(npm test:*)'], ['deny', 'Bash(git push:*)']], chained)).toBe('deny');
    // allow needs every sub-command that needs a rule
    expect(verdict([['allow', 'Bash(npm test:*)']], chained)).toBeUndefined();
    // a read-only sub-command needs no rule
    expect(verdict([['allow', 'Bash(npm test:*)']], bash('npm test && echo done', { subcommands: ['npm test', 'echo done'], subRuleKeys: ['npm test'] }))).toBe('allow');
  });

  it('an allow never covers an opaque, dangerous or untied command', () => {
    expect(verdict([['allow', 'Bash']], bash('eval "$x"', { opaque: true, subRuleKeys: [] }))).toBeUndefined();
    expect(verdict([['allow', 'Bash(git push:*)']], bash('git push --force', { tier: 2, subRuleKeys: ['git push --force'] }))).toBeUndefined();
    expect(verdict([['allow', 'Bash(git push:*)']], bash('git -C . push', { subRuleKeys: ['git push'] }))).toBeUndefined();
    // a deny matches the key the judge saw even where the text differs
    expect(verdict([['deny', 'Bash(git push:*)']], bash('git -C . push', { subRuleKeys: ['git push'] }))).toBe('deny');
  });
});

describe('permission rules: paths', () => {
  it('a Read deny holds for read_file, grep, glob and list_dir on the path, as written or resolved, in any case', () => {
    const list: [PermissionAction, string][] = [['deny', 'Read(./secrets/**)']];
    expect(verdict(list, read('read_file', '/w/secrets/key.txt'))).toBe('deny');
    expect(verdict(list, read('grep', '/w/secrets', '/w/secrets', 'Grep'))).toBe('deny');
    expect(verdict(list, read('list_dir', '/w/secrets', '/w/secrets', 'LS'))).toBe('deny');
    // a link elsewhere that leads into secrets/, and the workspace's real path
    expect(verdict(list, read('read_file', '/w/docs/link', '/real/w/secrets/key.txt'))).toBe('deny');
    // case: on a file system that folds case the same file
    expect(verdict(list, read('read_file', '/w/SECRETS/key.txt'))).toBe('deny');
    expect(verdict(list, read('read_file', '/w/src/a.ts'))).toBeUndefined();
    expect(verdict(list, read('grep', '/w', '/w', 'Grep'))).toBeUndefined();
  });

  it('anchors: //absolute, ~/home, /project, a bare name at any depth, a folder with a trailing slash', () => {
    expect(verdict([['deny', 'Read(//etc/passwd)']], read('read_file', '/etc/passwd'))).toBe('deny');
    expect(verdict([['deny', 'Read(~/.ssh/**)']], read('read_file', '/home/me/.ssh/id_rsa'))).toBe('deny');
    expect(verdict([['deny', 'Read(/config/*.json)']], read('read_file', '/w/config/a.json'))).toBe('deny');
    expect(verdict([['deny', 'Read(/config/*.json)']], read('read_file', '/w/config/deep/a.json'))).toBeUndefined();
    expect(verdict([['deny', 'Read(.env)']], read('read_file', '/w/pkg/app/.env'))).toBe('deny');
    expect(verdict([['deny', 'Read(.env.*)']], read('read_file', '/w/.env.local'))).toBe('deny');
    expect(verdict([['deny', 'Read(build/)']], read('read_file', '/w/build/out.js'))).toBe('deny');
  });

  it('Edit and Write rules hold for every tool that writes the path; an allow covers every path the call writes', () => {
    const write = (name: string, ...paths: string[]): RuleCall => ({ name, effect: 'write', claudeName: name === 'write_file' ? 'Write' : name === 'edit_file' ? 'Edit' : undefined, input: {}, paths: paths.map((p) => ({ lexical: p, real: p, access: 'write' as const })), decision: { action: 'ask', reason: 'changes files' } });
    expect(verdict([['deny', 'Edit(./locked/**)']], write('apply_patch', '/w/src/a.ts', '/w/locked/b.ts'))).toBe('deny');
    expect(verdict([['deny', 'Write(./locked/**)']], write('edit_file', '/w/locked/b.ts'))).toBe('deny');
    expect(verdict([['allow', 'Edit(src/**)']], write('write_file', '/w/src/a.ts'))).toBe('allow');
    expect(verdict([['allow', 'Edit(src/**)']], write('apply_patch', '/w/src/a.ts', '/w/lib/b.ts'))).toBeUndefined();
    expect(verdict([['allow', 'Edit(src/**)'], ['allow', 'Edit(lib/**)']], write('apply_patch', '/w/src/a.ts', '/w/lib/b.ts'))).toBe('allow');
    // case is folded for a deny only
    expect(verdict([['allow', 'Edit(src/**)']], write('write_file', '/w/SRC/a.ts'))).toBeUndefined();
  });

  it('withholds paths from a search below a folder that is not denied itself', () => {
    const list = [rule('Read(./secrets/**)'), rule('Read(*.pem)')];
    expect(readWithheld(list, '/w/secrets', true)?.text).toBe('Read(./secrets/**)');
    expect(readWithheld(list, '/w/secrets/a', false)?.text).toBe('Read(./secrets/**)');
    expect(readWithheld(list, '/w/deep/x.PEM', false)?.text).toBe('Read(*.pem)');
    expect(readWithheld(list, '/w/src', true)).toBeUndefined();
  });
});

describe('permission rules: other tools', () => {
  const call = (name: string, claudeName: string | undefined, input: unknown, d: Partial<PolicyDecision> = {}): RuleCall => ({ name, effect: 'system', claudeName, input, paths: [], decision: { action: 'ask', reason: 'x', ...d } });
  it('WebFetch by domain (a deny also for subdomains), agents by type, MCP by server or tool, Clamp names as they are', () => {
    expect(verdict([['allow', 'WebFetch(domain:example.com)']], call('web_fetch', 'WebFetch', { url: 'https://example.com/a' }))).toBe('allow');
    expect(verdict([['allow', 'WebFetch(domain:example.com)']], call('web_fetch', 'WebFetch', { url: 'https://evil.example.com.attacker.net/' }))).toBeUndefined();
    expect(verdict([['deny', 'WebFetch(domain:example.com)']], call('web_fetch', 'WebFetch', { url: 'https://api.example.com/' }))).toBe('deny');
    expect(verdict([['allow', 'WebFetch']], call('web_fetch', 'WebFetch', { url: 'http://127.0.0.1/' }, { localAddresses: ['127.0.0.1'] }))).toBeUndefined();
    expect(verdict([['deny', 'Task(reviewer)']], call('agent', 'Task', { type: 'reviewer' }))).toBe('deny');
    expect(verdict([['deny', 'Agent(reviewer)']], call('agent', 'Task', { type: 'general' }))).toBeUndefined();
    expect(verdict([['deny', 'mcp__github']], call('mcp__github__create_issue', undefined, {}))).toBe('deny');
    expect(verdict([['deny', 'mcp__github__*']], call('mcp__github__create_issue', undefined, {}))).toBe('deny');
    expect(verdict([['deny', 'mcp__git']], call('mcp__github__create_issue', undefined, {}))).toBeUndefined();
    expect(verdict([['deny', 'mcp__github__create_issue']], call('mcp__github__list', undefined, {}))).toBeUndefined();
    expect(verdict([['deny', 'WebSearch']], call('web_search', 'WebSearch', { query: 'x' }))).toBe('deny');
    expect(verdict([['deny', 'run_command']], bash('ls', { action: 'allow' }))).toBe('deny');
  });
});
