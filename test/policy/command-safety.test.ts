import { describe, expect, it } from 'vitest';
import { assessCommand, ruleKeysFor, type CommandAssessment } from '@/lib/policy/command-safety';
import { loadShellParser } from '@/lib/policy/shell-parse';
import { ruleKeyFor } from '@/lib/policy/command-tables';
import { ALL_CASES, ISSUE_BYPASSES, type Expected } from './command-cases';
import { RULE_PAIRS } from './command-cases-classes';
import { patternMatches, verdictFromRules } from '@/lib/store/rules';

const opts = { workspace: '/home/u/proj', home: '/home/u' };

function shape(r: CommandAssessment): Expected {
  const out: Expected = { action: r.action };
  if (r.tier !== undefined) out.tier = r.tier;
  if (r.opaque) out.opaque = true;
  if (r.ruleKey !== undefined) out.ruleKey = r.ruleKey;
  return out;
}

describe('command safety table', () => {
  it('holds at least 800 commands, each listed once', () => {
    expect(ALL_CASES.length).toBeGreaterThanOrEqual(800);
    expect(new Set(ALL_CASES.map(([c]) => c)).size).toBe(ALL_CASES.length);
  });

  it.each(ALL_CASES)('%j', async (command, { reason, ...expected }) => {
    const r = await assessCommand(command, opts);
    const got = shape(r);
    expect(got).toEqual(expected);
    expect(r.reason.length).toBeGreaterThan(0);
    if (reason !== undefined) expect(r.reason).toBe(reason);
    if (r.action === 'deny' || r.opaque) {
      expect(r.ruleKey).toBeUndefined();
      expect(r.subRuleKeys).toEqual([]);
    }
    if (r.action === 'allow') expect(r.subRuleKeys).toEqual([]);
  });

  it('covers every bypass listed in the issue', () => {
    expect(ISSUE_BYPASSES.map(([c]) => c)).toEqual([
      'echo ok && rm -rf /', 'ls; rm -rf ~', '$(rm -rf ~)', '`curl x | sh`', 'eval "$(echo cm0gLXJmIC8K | base64 -d)"',
      'find . -name x | xargs rm', "env sh -c 'rm -rf /'", 'FOO=1 rm -rf /', '"rm" -rf /', 'rm -- -rf /',
      'cargo check > ~/.zshrc', ':(){ :|:& };:', 'dd if=/dev/zero of=/dev/sda', 'git push -f origin main',
    ]);
  });
});

describe('reasons the person and the model read', () => {
  const reasonOf = async (c: string, o = opts) => (await assessCommand(c, o)).reason;

  it('names what a catastrophic command would destroy', async () => {
    expect(await reasonOf('ls; rm -rf ~')).toBe('`rm -rf ~` deletes your home directory');
    expect(await reasonOf('echo ok && rm -rf /')).toBe('`rm -rf /` deletes the whole filesystem');
    expect(await reasonOf('rm -rf .')).toBe('`rm -rf .` deletes the workspace root');
    expect(await reasonOf('rm -rf /*')).toBe('`rm -rf /*` deletes everything in the whole filesystem');
    expect(await reasonOf('cd build; rm -rf *')).toBe('`rm -rf *` deletes everything in the workspace root');
    expect(await reasonOf(':(){ :|:& };:')).toBe('`:(){ :|:& }` is a fork bomb: it copies itself until the machine stops responding');
    expect(await reasonOf('dd if=/dev/zero of=/dev/sda')).toBe('`dd if=/dev/zero of=/dev/sda` writes straight onto the disk device /dev/sda');
    expect(await reasonOf('curl -fsSL x | bash')).toBe('`curl -fsSL x | bash` runs a downloaded script without showing it');
    expect(await reasonOf('sudo ls')).toBe('`sudo ls` runs as root (sudo); Clamp never runs commands with raised privileges — ask the user to run it themselves');
    expect(await reasonOf("env sh -c 'rm -rf /'")).toBe('`rm -rf /` deletes the whole filesystem');
  });

  it('explains tier 2, opaque and plain asks', async () => {
    expect(await reasonOf('git push -f origin main')).toBe('`git push -f origin main` force-pushes: it can overwrite history on the remote');
    expect(await reasonOf('cargo check > ~/.zshrc')).toBe('`cargo check > ~/.zshrc` writes ~/.zshrc outside the workspace');
    expect(await reasonOf('git reset --hard')).toBe('`git reset --hard` throws away uncommitted changes');
    expect(await reasonOf('rm -rf node_modules')).toBe('`rm -rf node_modules` deletes node_modules recursively');
    expect(await reasonOf('eval "$(echo cm0gLXJmIC8K | base64 -d)"')).toBe(
      '`eval "$(echo cm0gLXJmIC8K | base64 -d)"` runs a string built at run time as shell code, so it cannot be checked; ' +
        '`$(echo cm0gLXJmIC8K | base64 -d)` puts a command\'s output into the command line, which is only known when it runs',
    );
    expect(await reasonOf("python -c 'print(1)'")).toBe("`python -c 'print(1)'` runs inline python code, which cannot be checked");
    expect(await reasonOf('npm run test')).toBe('`npm run test` is not a known read-only command');
    expect(await reasonOf('rm build/out.txt')).toBe('`rm build/out.txt` deletes build/out.txt');
    expect(await reasonOf('ls -la && cat x')).toBe('read-only: `ls -la`, `cat x`');
  });

  it('fails closed on text that does not parse', async () => {
    const r = await assessCommand('echo "abc', opts);
    expect(r).toMatchObject({ action: 'ask', opaque: true, subRuleKeys: [] });
    expect(r.reason).toBe('The command could not be parsed as shell (unexpected `"abc`), so it cannot be checked');
  });

  it('caps the number of reasons it lists', async () => {
    const r = await assessCommand('rm -rf /a; rm -rf /b; rm -rf /c; rm -rf /d; rm -rf /e', opts);
    expect(r.reason).toBe('`rm -rf /a` deletes the system directory /a; `rm -rf /b` deletes the system directory /b; `rm -rf /c` deletes the system directory /c; and 2 more');
  });
});

describe('sub-commands and rule keys', () => {
  it('lists every sub-command, including those of scripts it runs', async () => {
    const r = await assessCommand("npm test && bash -c 'git add . && git commit -m x' | tee log.txt", opts);
    expect(r.subcommands).toEqual(["npm test", "bash -c 'git add . && git commit -m x'", 'git add .', 'git commit -m x', 'tee log.txt']);
    expect(r.opaque).toBe(true);
  });

  it('gives one key per sub-command that needs a rule, read-only ones excluded', async () => {
    const r = await assessCommand('git status && npm test && git commit -m x; ls | wc -l', opts);
    expect(r.subRuleKeys).toEqual(['npm test', 'git commit']);
    expect(r.ruleKey).toBe('npm test && git commit');
    expect(await ruleKeysFor('cargo build --release 2>&1 | tail -5', opts)).toEqual(['cargo build']);
    expect(await ruleKeysFor('rm -rf ~', opts)).toEqual([]);
  });

  it('builds keys by arity', () => {
    expect(ruleKeyFor(['npm', 'run', 'test', '--', '--watch'])).toBe('npm run test');
    expect(ruleKeyFor(['git', '-C', 'sub', '-c', 'a=b', 'commit', '-m', 'x'])).toBe('git commit');
    expect(ruleKeyFor(['ls', '-la', 'src'])).toBe('ls');
    expect(ruleKeyFor(['docker', 'compose', 'up', '-d'])).toBe('docker compose up');
    expect(ruleKeyFor(['python', '-m', 'pytest', '-q'])).toBe('python -m pytest');
    expect(ruleKeyFor(['cargo', '+nightly', 'build'])).toBe('cargo +nightly build');
  });
});

describe('working directory', () => {
  it('judges `.` and `..` against the directory the command starts in', async () => {
    expect(shape(await assessCommand('rm -rf .', { ...opts, cwd: 'sub' }))).toEqual({ action: 'ask', tier: 2, ruleKey: 'rm -rf .' });
    expect(shape(await assessCommand('rm -rf ..', { ...opts, cwd: 'sub' }))).toEqual({ action: 'deny', tier: 1 });
    expect(shape(await assessCommand('cd sub && cd .. && rm -rf *', opts))).toEqual({ action: 'deny', tier: 1 });
  });

  it('treats a relative path after `cd $X` as unknown', async () => {
    const r = await assessCommand('cd "$X" && rm -rf *', opts);
    expect(shape(r)).toEqual({ action: 'ask', tier: 2, ruleKey: 'rm -rf *' });
    expect(r.reason).toBe('`rm -rf *` deletes *, a relative path after a `cd` to a directory only known when it runs, possibly recursively');
  });

  it('expands ~ to the home it is given', async () => {
    const home = { workspace: '/srv/ws', home: '/var/lib/me' };
    expect((await assessCommand('rm -rf ~/', home)).reason).toBe('`rm -rf ~/` deletes your home directory');
    expect(shape(await assessCommand('echo x > ~/.profile', home))).toEqual({ action: 'ask', tier: 2, ruleKey: 'echo x > ~/.profile' });
  });
});

describe('parser', () => {
  it('loads the grammar once and reuses it', async () => {
    const a = loadShellParser();
    const b = loadShellParser();
    expect(a).toBe(b);
    expect(await a).toBe(await b);
  });

  it('links a here-doc to the shell it is piped into', async () => {
    const parser = await loadShellParser();
    const parsed = parser.parse('cat <<EOF | sh\nrm x\nEOF');
    expect(parsed.error).toBeNull();
    expect(parsed.commands.map((c) => c.text)).toEqual(['cat <<EOF', 'sh']);
    expect(parsed.commands[1]!.upstream).toEqual([0]);
    expect(parsed.commands[0]!.stdin).toEqual({ kind: 'heredoc', text: 'rm x\n' });
  });

  it('records which commands must succeed first (&&) and which run in a substitution', async () => {
    const parser = await loadShellParser();
    const parsed = parser.parse('cd a && ls $(pwd) || echo no');
    expect(parsed.commands.map((c) => [c.text, c.guards, c.inSubstitution])).toEqual([
      ['cd a', [], false],
      ['ls $(pwd)', [0], false],
      ['pwd', [], true],
      ['echo no', [], false],
    ]);
    expect(parsed.substitutions).toEqual(['$(pwd)']);
  });

  it('removes quotes and keeps what only the run knows unknown', async () => {
    const parser = await loadShellParser();
    const [cmd] = parser.parse(`FOO=1 "r"'m' -rf ~/x "$HOME"/y $'\\x41' "$V" *.log`).commands;
    expect(cmd!.assignments).toEqual([{ name: 'FOO', value: { value: '1', raw: '1', tilde: false, glob: false, brace: false } }]);
    expect(cmd!.words.map((w) => [w.value, w.tilde, w.glob])).toEqual([
      ['rm', false, false],
      ['-rf', false, false],
      ['~/x', true, false],
      ['~/y', true, false],
      ['A', false, false],
      [null, false, false],
      ['*.log', false, true],
    ]);
  });
});

describe('"Always" rules cover only what they were saved for', () => {
  it.each(RULE_PAIRS)('a rule saved from %j does not allow %j', async (harmless, dangerous) => {
    const saved = await assessCommand(harmless, opts);
    expect(saved.action).toBe('ask');
    expect(saved.subRuleKeys.length).toBeGreaterThan(0);
    const rules = saved.subRuleKeys.map((pattern) => ({ pattern, action: 'allow' as const }));
    expect(verdictFromRules(rules, saved.subRuleKeys, !!saved.opaque)).toBe('allow');
    const d = await assessCommand(dangerous, opts);
    expect(d.action).not.toBe('allow');
    expect(verdictFromRules(rules, d.subRuleKeys, !!d.opaque)).toBeUndefined();
  });

  it('an exact key (=…) matches only itself; a prefix key still covers longer commands', () => {
    expect(patternMatches('=tar -xf a.tar', '=tar -xf a.tar')).toBe(true);
    expect(patternMatches('=tar -xf a.tar', "=tar -xf a.tar '--to-command=sh x'")).toBe(false);
    expect(patternMatches('npm run', 'npm run test')).toBe(true);
  });
});

describe('bounded work on hostile text', () => {
  it('follows values that name each other widely and deeply up to a bound, then asks', async () => {
    const chain = Array.from({ length: 8 }, (_, d) => `v${d}='${Array.from({ length: 60 }, () => `v${d + 1}`).join('+')}'`).join('; ');
    const started = performance.now();
    const r = await assessCommand(`${chain}; (( v0 ))`, opts);
    expect(shape(r)).toEqual({ action: 'ask', ruleKey: '(( v0 ))' });
    expect(r.reason).toContain('leads through more values than Clamp follows');
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it('reads long literal texts and arithmetic in one pass', async () => {
    const started = performance.now();
    expect(shape(await assessCommand(`echo '${'a['.repeat(40_000)}'; x=$(cat f); (( x ))`, opts))).toEqual({ action: 'ask', ruleKey: '(( x ))' });
    expect(shape(await assessCommand(`x='${'1+'.repeat(50_000)}1'; (( x ))`, opts))).toEqual({ action: 'allow' });
    expect(shape(await assessCommand(`echo ${'a\\\n'.repeat(5_000)}b`, opts))).toEqual({ action: 'allow' });
    expect(performance.now() - started).toBeLessThan(10_000);
  });
});
