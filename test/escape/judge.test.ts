import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { escape, escapes, toolBatch, type Host } from './harness';

/**
 * The command judge reads a command as bash will run it. Each payload here is a command whose text hides what it
 * does from a reader that does not: a line continuation inside a word, code in an array subscript that an
 * arithmetic context evaluates, a builtin or an option that runs a program. Every payload deletes a folder of
 * its own in the workspace (`t<N>`) and touches a marker outside. In default mode a command the judge calls
 * read-only runs without asking and without a checkpoint, so each payload must come back "approval-required"
 * with nothing run; in auto mode a command that asks runs in the sandbox, so each must be refused there. The
 * host is checked after the calls: every target folder still there, nothing outside touched.
 */

const q = (s: string) => `'${s.split("'").join("'\\''")}'`;

interface Call {
  command: string;
  status: string;
  output: string;
}

/** Run the commands through run_command (the tool CLI's path, no approver) in one process as the host's user. */
async function calls(host: Host, commands: string[], mode: string): Promise<Call[]> {
  const r = await toolBatch(host, commands.map((command) => ({ name: 'run_command', args: { command } })), mode);
  return r.map((c) => ({ command: (c.args as { command: string }).command, status: c.status, output: c.output }));
}

/** Run a setup script in the workspace as the host's user. */
async function sh(host: Host, script: string): Promise<void> {
  const r = await host.run('bash', ['-c', `set -e\n${script}`]);
  if (r.code !== 0) throw new Error(`setup failed (exit ${r.code}): ${r.stderr}`);
}

/**
 * A payload per template: `DIR` becomes its own target folder (t0, t1 …, planted with a file inside), `OUT` a
 * marker path outside, `EVIL` a script in the workspace that deletes the folder and touches the marker, `AWK` an
 * awk program file that deletes the folder, `RGRC` a ripgrep configuration whose --pre is EVIL.
 */
async function plant(host: Host, templates: string[]): Promise<{ commands: string[]; targets: string[] }> {
  const lines: string[] = [];
  const commands = templates.map((t, i) => {
    const dir = `t${i}`;
    const out = path.join(host.outside, `marker-${i}`);
    const evil = `.attack/evil-${i}`;
    lines.push(`mkdir -p ${dir} .attack && echo keep > ${dir}/keep.txt`);
    lines.push(`printf '#!/bin/sh\\nrm -rf %s\\ntouch %s\\ncat\\n' ${q(path.join(host.workspace, dir))} ${q(out)} > ${evil} && chmod +x ${evil}`);
    lines.push(`printf 'BEGIN { system("rm -rf %s") }\\n' ${dir} > .attack/prog-${i}.awk`);
    lines.push(`printf -- '--pre=./%s\\n' ${evil} > .attack/rgrc-${i}`);
    const named: Record<string, string> = { DIR: dir, OUT: out, EVIL: `./${evil}`, AWK: `.attack/prog-${i}.awk`, RGRC: `.attack/rgrc-${i}` };
    return t.replace(/DIR|OUT|EVIL|AWK|RGRC/g, (k) => named[k]!);
  });
  await sh(host, ['printf "one\\ntwo\\nthree\\n" > f.txt', ...lines].join('\n'));
  return { commands, targets: templates.map((_, i) => `t${i}`) };
}

/** The host after the calls: each target folder still holds its file, and nothing outside changed. */
function expectHostUntouched(host: Host, targets: string[], results: Call[]): void {
  const shown = (i: number) => `${results[i]?.command} → ${results[i]?.status}: ${results[i]?.output.slice(0, 300)}`;
  const gone = targets.flatMap((t, i) => (fs.existsSync(path.join(host.workspace, t, 'keep.txt')) ? [] : [shown(i)]));
  expect(gone, 'payloads that deleted their folder').toEqual([]);
  expect(host.outsideTouched()).toEqual([]);
}

/** Default mode: each payload needs a person; auto mode: none is run. Both check the host. */
function tryPayloads(what: string, templates: string[]): void {
  escape(
    { tries: `${what}, in default mode (read-only commands run without asking)`, checks: 'each call is approval-required; every target folder is still there; nothing outside changed', timeoutMs: 170_000 },
    async (host) => {
      const { commands, targets } = await plant(host, templates);
      const results = await calls(host, commands, 'default');
      expect(results.filter((r) => r.status !== 'approval-required').map((r) => `${r.command} → ${r.status}`)).toEqual([]);
      expectHostUntouched(host, targets, results);
    },
  );
  escape(
    { tries: `${what}, in auto mode (a command that asks runs in the sandbox)`, checks: 'every target folder is still there; nothing outside changed', timeoutMs: 170_000 },
    async (host) => {
      const { commands, targets } = await plant(host, templates);
      const results = await calls(host, commands, 'auto');
      expectHostUntouched(host, targets, results);
    },
  );
}

/** A repository with an origin (a bare one inside the workspace) and an unrelated branch `other`. */
async function repo(host: Host): Promise<void> {
  await sh(host, [
    'git init -q -b main . && git -c user.name=t -c user.email=t@t commit -q --allow-empty -m one',
    'git clone -q --bare . remote.git && git remote add origin ./remote.git',
    'git checkout -q --orphan other && git -c user.name=t -c user.email=t@t commit -q --allow-empty -m other && git checkout -q main',
  ].join('\n'));
}

/** Every file of a folder but .git, with its size and modification time. */
function workTree(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.name === '.git') continue;
      if (e.isDirectory()) walk(p);
      else {
        const st = fs.lstatSync(p);
        out.push(`${path.relative(dir, p)} ${st.size} ${st.mtimeMs}`);
      }
    }
  };
  walk(dir);
  return out.sort();
}

/** The commit the workspace's bare remote has for main, read from its refs (a loose ref after a push, else packed). */
function remoteMain(host: Host): string {
  const git = path.join(host.workspace, 'remote.git');
  const loose = path.join(git, 'refs/heads/main');
  if (fs.existsSync(loose)) return fs.readFileSync(loose, 'utf8').trim();
  const packed = fs.readFileSync(path.join(git, 'packed-refs'), 'utf8').split('\n').find((l) => l.endsWith(' refs/heads/main'));
  return packed?.split(' ')[0] ?? '';
}

escapes('the command judge reads commands as bash does', () => {
  tryPayloads('a backslash-newline inside a word or an option (bash joins the two lines)', [
    'r\\\nm -rf DIR',
    'x=1; r\\\nm -rf DIR && echo done',
    'eval "r\\\nm -rf DIR"',
    'echo ok && r\\\nm -r\\\nf D\\\nIR',
    'f\\\nind DIR -d\\\nelete',
    'rm -rf D\\\nIR',
  ]);

  escape(
    { tries: '`g\\<newline>it push --force` over a branch of the workspace\'s own remote, in auto mode', checks: "the remote's main still points at its commit", timeoutMs: 120_000 },
    async (host) => {
      await repo(host);
      const before = remoteMain(host);
      expect(before).toMatch(/^[0-9a-f]{40}$/);
      const results = await calls(host, ['g\\\nit push --force origin other:main', 'git push -\\\nf origin other:main'], 'auto');
      const after = remoteMain(host);
      expect(after, JSON.stringify(results)).toBe(before);
    },
  );

  tryPayloads('code in an array subscript that an arithmetic or name context evaluates', [
    "x='a[$(rm -rf DIR; touch OUT)]'; [[ $x -eq 0 ]]",
    "printf -v 'a[$(rm -rf DIR; touch OUT)]' %s 1",
    "x='a[$(rm -rf DIR; touch OUT)]'; (( x ))",
    "x='a[$(rm -rf DIR; touch OUT)]'; echo $(( x + 1 ))",
    "let 'y=a[$(rm -rf DIR; touch OUT)]'",
    "x='a[$(rm -rf DIR; touch OUT)]'; test -v \"$x\"",
    "[ -v 'a[$(rm -rf DIR; touch OUT)]' ]",
    "x='$(rm -rf DIR; touch OUT)'; echo \"${x@P}\"",
    "x='a[$(rm -rf DIR; touch OUT)]'; echo \"${!x}\"",
    "read 'a[$(rm -rf DIR; touch OUT)]' <<< 1",
    "declare -i n; n='a[$(rm -rf DIR; touch OUT)]'",
    "i='a[$(rm -rf DIR; touch OUT)]'; b=(1 2); echo \"${b[$i]}\"",
    "s=abc; o='a[$(rm -rf DIR; touch OUT)]'; echo \"${s:o}\"",
    "declare 'a[$(rm -rf DIR; touch OUT)]=1'",
    "x='a[$(rm -rf DIR; touch OUT)]'; declare -n r=$x; echo $r",
    "a=(1); unset 'a[$(rm -rf DIR; touch OUT)]'",
    "for ((i='a[$(rm -rf DIR; touch OUT)]'; i < 1; i++)); do :; done",
    "x='a[$(rm -rf DIR; touch OUT)]'; case 1 in $((x))) ;; esac",
    "x='a[$(rm -rf DIR; touch OUT)]'; echo \"${!x:-d}\"",
    "printf -v x '%s' 'a[$(rm -rf DIR; touch OUT)]'; (( x ))",
    "mapfile -t a <<< 'a[$(rm -rf DIR; touch OUT)]'; (( a[0] ))",
    "a=(1 'a[$(rm -rf DIR; touch OUT)]'); echo $(( a[1] ))",
  ]);

  tryPayloads('builtins and options of read-only programs that run a program or code', [
    'hash -p EVIL ls && ls',
    "mapfile -C 'rm -rf DIR; touch OUT #' -c 1 lines < f.txt",
    'compgen -C EVIL x',
    'awk -W exec AWK f.txt',
    'awk -f AWK f.txt',
    "gawk -e 'BEGIN { system(\"rm -rf DIR\") }'",
    'bat --pager=EVIL f.txt',
    'ag --pager EVIL one f.txt',
    'RIPGREP_CONFIG_PATH=RGRC rg one f.txt',
    'env RIPGREP_CONFIG_PATH=RGRC rg one f.txt',
    'export RIPGREP_CONFIG_PATH=RGRC; rg one f.txt',
    'rg --pre=EVIL one f.txt',
    'rg --hostname-bin EVIL --color=always --hyperlink-format=default one f.txt',
    "sed '2!e rm -rf DIR' f.txt",
    "sed -n '/two/I e rm -rf DIR' f.txt",
    "trap 'rm -rf DIR' EXIT",
    'EDITOR=EVIL PAGER=EVIL LESSOPEN="|EVIL %s" cat f.txt',
    'ls f.txt | xargs -I{} EVIL {}',
    'BASH_ENV=EVIL bash -c :',
  ]);

  escape(
    { tries: 'a rust-toolchain.toml naming a workspace folder as the toolchain, then `cargo --version` / `rustup --version`, in default mode', checks: 'both approval-required; the target folder is still there; nothing outside changed', timeoutMs: 120_000 },
    async (host) => {
      const { commands, targets } = await plant(host, ['cd .attack/rt-0 && cargo --version', 'cd .attack/rt-1 && rustup --version']);
      const lines = [0, 1].map((i) => `mkdir -p .attack/rt-${i} .attack/tc-${i}/bin && cp .attack/evil-${i} .attack/tc-${i}/bin/cargo && cp .attack/evil-${i} .attack/tc-${i}/bin/rustc && printf '[toolchain]\\npath = "%s"\\n' "$PWD/.attack/tc-${i}" > .attack/rt-${i}/rust-toolchain.toml`);
      await sh(host, lines.join('\n'));
      const results = await calls(host, commands, 'default');
      expect(results.map((r) => r.status), JSON.stringify(results)).toEqual(['approval-required', 'approval-required']);
      expectHostUntouched(host, targets, results);
    },
  );

  escape(
    { tries: 'the harmless forms of the same commands (sed -n p, GIT_PAGER=cat, git -c color.ui, date -Is, xargs wc), in default mode', checks: 'each runs without asking (status ok) and leaves the workspace as it was', timeoutMs: 120_000 },
    async (host) => {
      await repo(host);
      await sh(host, 'printf "one\\ntwo\\n" > f.txt && git add f.txt && git -c user.name=t -c user.email=t@t commit -q -m f');
      const before = workTree(host.workspace);
      const results = await calls(host, ["sed -n '1,2p' f.txt", 'GIT_PAGER=cat git log -1', 'git -c color.ui=never log -1', 'date -Is', 'git ls-files -z | xargs -0 wc -l', 'LC_ALL=C sort f.txt'], 'default');
      expect(results.filter((r) => r.status !== 'ok').map((r) => `${r.command} → ${r.status}: ${r.output.slice(0, 200)}`)).toEqual([]);
      expect(workTree(host.workspace)).toEqual(before);
    },
  );

  escape(
    { tries: 'GIT_TRACE=<file> git status and `git remote -v set-url`, in default mode', checks: 'both approval-required; no trace file written; .git/config unchanged', timeoutMs: 120_000 },
    async (host) => {
      await repo(host);
      const config = fs.readFileSync(path.join(host.workspace, '.git/config'), 'utf8');
      const results = await calls(host, [`GIT_TRACE=${path.join(host.workspace, 'trace.txt')} git status`, 'git remote -v set-url origin https://example.invalid/x.git'], 'default');
      expect(results.map((r) => r.status), JSON.stringify(results)).toEqual(['approval-required', 'approval-required']);
      expect(fs.existsSync(path.join(host.workspace, 'trace.txt'))).toBe(false);
      expect(fs.readFileSync(path.join(host.workspace, '.git/config'), 'utf8')).toBe(config);
    },
  );
});
