import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { beforeAll, escape, escapes, type Host } from './harness';
import { expectHostUntouched, plantPayload, REPO, sh, TOUCH, type Payload } from './payload';
import { startClampAs } from './server';
import { startFakeOpenAI } from '../fake-openai';
import { readChunks } from '../server/harness';
import { messageText } from '../e2e/scenarios';
import { ensureBuild } from '../../lib/server/build';

/**
 * The git tools run git, and git runs programs the repository names: filters, hooks, fsmonitor, pagers,
 * textconv, gpg. A command in the sandbox can write all of those into the workspace's repository, so every
 * case here plants one (pointing at a payload that tries to reach the host), calls a git tool, and checks the
 * host: nothing written outside, no key copied, no connection, no process left running.
 */

const q = (s: string) => `'${s.split("'").join("'\\''")}'`;

/** A filter named x whose clean command is the payload, as a config file's text. */
const filterConfig = (p: Payload) => `[filter "x"]\n\tclean = ${p.file}\n\tsmudge = cat\n`;

escapes('git tools run git inside the sandbox', () => {
  escape(
    { tries: "a command points .git/commondir at a config it wrote, whose clean filter is the payload; git_status in plan mode", checks: 'no file outside, no key copied, no connection; git_status still answers' },
    async (host) => {
      const p = await plantPayload(host, 'commondir');
      await sh(host, [REPO, 'cp -r .git .evil', `printf %s ${q(filterConfig(p))} >> .evil/config`, 'echo "$PWD/.evil" > .git/commondir', "echo '* filter=x' > .gitattributes", TOUCH].join('\n'));
      const r = await host.tool('git_status', {}, { mode: 'plan' });
      expect(r.status, r.output).toBe('ok');
      expect(r.output).toContain('Branch main');
      expectHostUntouched(host, p, [r.output]);
    },
  );

  escape(
    { tries: 'the repository config includes (include.path) a file in the workspace that defines a clean filter; git_status', checks: 'no file outside, no key copied, no connection' },
    async (host) => {
      const p = await plantPayload(host, 'include');
      await sh(host, [REPO, `printf %s ${q(filterConfig(p))} > .included.cfg`, "printf '[include]\\n\\tpath = ../.included.cfg\\n' >> .git/config", "echo '* filter=x' > .gitattributes", TOUCH].join('\n'));
      const r = await host.tool('git_status', {}, { mode: 'plan' });
      expect(r.status, r.output).toBe('ok');
      expectHostUntouched(host, p, [r.output]);
    },
  );

  escape(
    { tries: '.git/info/attributes names a filter the repository config defines; git_status', checks: 'no file outside, no key copied, no connection' },
    async (host) => {
      const p = await plantPayload(host, 'info-attributes');
      await sh(host, [REPO, `printf %s ${q(filterConfig(p))} >> .git/config`, 'mkdir -p .git/info', "echo '* filter=x' > .git/info/attributes", TOUCH].join('\n'));
      const r = await host.tool('git_status', {}, { mode: 'plan' });
      expect(r.status, r.output).toBe('ok');
      expectHostUntouched(host, p, [r.output]);
    },
  );

  escape(
    { tries: 'core.fsmonitor names the payload; git_status and git_diff', checks: 'no file outside, no key copied, no connection' },
    async (host) => {
      const p = await plantPayload(host, 'fsmonitor');
      await sh(host, [REPO, `git config core.fsmonitor ${q(p.file)}`, TOUCH].join('\n'));
      const status = await host.tool('git_status', {}, { mode: 'plan' });
      const diff = await host.tool('git_diff', {}, { mode: 'plan' });
      expectHostUntouched(host, p, [status.output, diff.output]);
    },
  );

  escape(
    { tries: '.gitattributes gives every file a diff driver whose textconv is the payload; git_diff', checks: 'no file outside, no key copied, no connection; git_diff still shows the change' },
    async (host) => {
      const p = await plantPayload(host, 'textconv');
      await sh(host, [REPO, `git config diff.x.textconv ${q(p.file)}`, "echo '* diff=x' > .gitattributes", 'printf "two\\n" >> a.txt'].join('\n'));
      const r = await host.tool('git_diff', {}, { mode: 'plan' });
      expect(r.status, r.output).toBe('ok');
      expectHostUntouched(host, p, [r.output]);
    },
  );

  escape(
    { tries: 'core.pager, pager.diff and diff.external name the payload; git_diff (staged and not)', checks: 'no file outside, no key copied, no connection' },
    async (host) => {
      const p = await plantPayload(host, 'pager');
      await sh(host, [REPO, `git config core.pager ${q(p.file)}`, `git config pager.diff ${q(p.file)}`, `git config diff.external ${q(p.file)}`, 'printf "two\\n" >> a.txt'].join('\n'));
      const r = await host.tool('git_diff', {}, { mode: 'plan' });
      const staged = await host.tool('git_diff', { staged: true }, { mode: 'plan' });
      expect(r.output).toContain('+two');
      expectHostUntouched(host, p, [r.output, staged.output]);
    },
  );

  escape(
    { tries: 'log.showSignature with gpg.program = the payload, over a commit carrying a signature; git_log', checks: 'no file outside, no key copied, no connection; git_log still lists the commit' },
    async (host) => {
      const p = await plantPayload(host, 'gpg-log');
      const sign = `awk 'BEGIN{d=0} /^committer /&&!d{print; print "gpgsig -----BEGIN PGP SIGNATURE-----"; print " "; print " iQEzBAABCAAdFiEE"; print " -----END PGP SIGNATURE-----"; d=1; next} {print}'`;
      await sh(host, [REPO, `c=$(git cat-file commit HEAD | ${sign} | git hash-object -t commit -w --stdin)`, 'git update-ref HEAD "$c"', 'git config log.showSignature true', `git config gpg.program ${q(p.file)}`].join('\n'));
      const r = await host.tool('git_log', {}, { mode: 'plan' });
      expect(r.status, r.output).toBe('ok');
      expect(r.output).toContain('first commit');
      expectHostUntouched(host, p, [r.output]);
    },
  );

  escape(
    { tries: 'a sandboxed command runs git init in a workspace with no .git and writes a pre-commit hook; git_commit (approved)', checks: 'no file outside, no key copied, no connection; the commit is made' },
    async (host) => {
      const p = await plantPayload(host, 'hook-init');
      const plant = `git init -q -b main && git config user.name Ada && git config user.email ada@example.com && printf '#!/bin/sh\\nexec %s </dev/null\\n' ${q(p.file)} > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit && echo new > b.txt`;
      const planted = await host.tool('run_command', { command: plant }, { mode: 'default', approve: true });
      // whichever way a hook gets there (this command, a clone, an approved command outside the sandbox), git_commit must not run it on the host
      if (!fs.existsSync(path.join(host.workspace, '.git/hooks/pre-commit'))) await sh(host, `${plant.split(' && printf')[0]}\nprintf '#!/bin/sh\\nexec %s </dev/null\\n' ${q(p.file)} > .git/hooks/pre-commit\nchmod +x .git/hooks/pre-commit`);
      const r = await host.tool('git_commit', { message: 'add b', paths: ['b.txt'] }, { mode: 'default', approve: true });
      expect(r.status, `${planted.output}\n${r.output}`).toBe('ok');
      expect(r.output).toMatch(/^Committed [0-9a-f]+ on main/);
      expectHostUntouched(host, p, [r.output]);
    },
  );

  escape(
    { tries: "a sandboxed command moves the guarded .git aside (mv .git .git-old) and puts back a copy with a pre-commit hook; git_commit (approved)", checks: 'no file outside, no key copied, no connection' },
    async (host) => {
      const p = await plantPayload(host, 'hook-moved');
      await sh(host, REPO);
      const hook = `printf '#!/bin/sh\\nexec %s </dev/null\\n' ${q(p.file)} > .git-new/hooks/pre-commit && chmod +x .git-new/hooks/pre-commit`;
      const plant = `mv .git .git-old && cp -r .git-old .git-new && rm -rf .git-new/hooks && mkdir .git-new/hooks && ${hook} && mv .git-new .git && echo new > b.txt`;
      await host.tool('run_command', { command: plant }, { mode: 'default', approve: true });
      if (!fs.existsSync(path.join(host.workspace, '.git/hooks/pre-commit'))) {
        await sh(host, `rm -rf .git-new && cp -r .git .git-new && rm -rf .git-new/hooks && mkdir .git-new/hooks && ${hook} && rm -rf .git && mv .git-new .git && echo new > b.txt`);
      }
      const r = await host.tool('git_commit', { message: 'add b', paths: ['b.txt'] }, { mode: 'default', approve: true });
      expectHostUntouched(host, p, [r.output]);
    },
  );

  escape(
    { tries: 'commit.gpgSign with gpg.program = the payload; git_commit (approved)', checks: 'no file outside, no key copied, no connection' },
    async (host) => {
      const p = await plantPayload(host, 'gpg-commit');
      await sh(host, [REPO, 'git config commit.gpgSign true', `git config gpg.program ${q(p.file)}`, 'echo new > b.txt', 'git add b.txt'].join('\n'));
      const r = await host.tool('git_commit', { message: 'add b' }, { mode: 'default', approve: true });
      expectHostUntouched(host, p, [r.output]);
    },
  );

  escape(
    { tries: 'a clean filter starts a child that calls setsid and sleeps on; git_status', checks: 'once git_status has answered, no such process is left on the host' },
    async (host) => {
      const p = await plantPayload(host, 'setsid', { setsid: true });
      await sh(host, [REPO, `printf %s ${q(filterConfig(p))} >> .git/config`, "echo '* filter=x' > .gitattributes", TOUCH].join('\n'));
      const r = await host.tool('git_status', {}, { mode: 'plan' });
      expect(r.status, r.output).toBe('ok');
      expectHostUntouched(host, p, [r.output]);
    },
  );

  escape(
    { tries: 'the sandbox cannot start (bwrap missing, not turned off); git_status in a repository with a clean filter', checks: 'git is not run at all (no file outside, no connection); the result names run_command as the next step' },
    async (host) => {
      const p = await plantPayload(host, 'no-sandbox');
      await sh(host, [REPO, `printf %s ${q(filterConfig(p))} >> .git/config`, "echo '* filter=x' > .gitattributes", TOUCH].join('\n'));
      const r = await host.tool('git_status', {}, { mode: 'plan', env: { CLAMP_BWRAP: path.join(host.root, 'no-bwrap') } });
      expect(r.status).toBe('error');
      expect(r.output).toContain('run_command');
      expect(r.output).toContain('git status');
      const c = await host.tool('git_commit', { message: 'x' }, { mode: 'default', approve: true, env: { CLAMP_BWRAP: path.join(host.root, 'no-bwrap') } });
      expect(c.status).toBe('error');
      expect(c.output).toContain('run_command');
      expectHostUntouched(host, p, [r.output, c.output]);
    },
  );

  escape(
    { tries: 'nothing: an ordinary repository, every git tool in turn (the sandbox must not break them)', checks: 'status, diff, log and commit give their usual answers; nothing outside changed' },
    async (host) => {
      await sh(host, [REPO, 'printf "two\\n" >> a.txt', 'echo new > b.txt'].join('\n'));
      const status = await host.tool('git_status', {}, { mode: 'plan' });
      expect(status.output).toBe('Branch main. 2 changed paths (X = staged, Y = not staged):\n M a.txt\n?? b.txt');
      const diff = await host.tool('git_diff', {}, { mode: 'plan' });
      expect(diff.output).toContain('+two');
      const commit = await host.tool('git_commit', { message: 'second', paths: ['a.txt', 'b.txt'] }, { mode: 'default', approve: true });
      expect(commit.status, commit.output).toBe('ok');
      const log = await host.tool('git_log', {}, { mode: 'plan' });
      expect(log.output).toMatch(/^All 2 commits, newest first:\n[0-9a-f]+ \d{4}-\d\d-\d\d Ada Tester: second\n[0-9a-f]+ \d{4}-\d\d-\d\d Ada Tester: first commit$/);
      const clean = await host.tool('git_status', {}, { mode: 'plan' });
      expect(clean.output).toBe('Branch main. Nothing to commit: the working tree is clean.');
      expectHostUntouched(host, undefined, []);
    },
  );
});

/** The tool results the stand-in model was sent, by tool call id. */
function toolResults(requests: Awaited<ReturnType<typeof startFakeOpenAI>>['requests']): Map<string, string> {
  const out = new Map<string, string>();
  for (const r of requests) for (const m of r.body.messages) if (m.role === 'tool' && m.tool_call_id) out.set(m.tool_call_id, messageText(m));
  return out;
}

/** A turn through the real server where the stand-in model calls git_status, git_diff and git_log; their results. */
async function gitTurn(host: Host): Promise<Map<string, string>> {
  const fake = await startFakeOpenAI((req) => {
    const last = req.body.messages[req.body.messages.length - 1];
    if (last.role !== 'user') return { text: 'Done.' };
    return {
      toolCalls: [
        { name: 'git_status', args: {}, id: 'call_status' },
        { name: 'git_diff', args: {}, id: 'call_diff' },
        { name: 'git_log', args: {}, id: 'call_log' },
      ],
    };
  });
  const clamp = await startClampAs(host, { CLAMP_MODEL: 'openai-compatible:fake-coder', CLAMP_BASE_URL: fake.url });
  try {
    const { session } = (await (await clamp.api('/api/sessions', { json: {} })).json()) as { session: { id: string } };
    const chat = await clamp.api('/api/chat', { json: { sessionId: session.id, message: { id: `m-${Date.now()}`, text: 'What changed in the repository?' } } });
    expect(chat.status).toBe(200);
    await readChunks(chat);
    return toolResults(fake.requests);
  } finally {
    await clamp.stop();
    await fake.close();
  }
}

escapes('git tools through the real server with a stand-in model', () => {
  // the page is built before the cases, outside their time (a cold build takes minutes on a busy machine)
  beforeAll(async () => {
    if (!(await ensureBuild())) throw new Error('The page did not build; run `npm run build` to see why.');
  }, 900_000);

  escape(
    {
      tries: 'the model calls git_status, git_diff and git_log in a repository whose commondir config has a clean filter, a textconv driver and log.showSignature with gpg.program, all the payload (one filter child calls setsid)',
      checks: 'no file outside, no key copied, no connection, no process left; the model still read each answer',
      timeoutMs: 300_000,
    },
    async (host) => {
      const p = await plantPayload(host, 'server', { setsid: true });
      const evil = [filterConfig(p), `[diff "x"]\n\ttextconv = ${p.file}\n`, `[log]\n\tshowSignature = true\n[gpg]\n\tprogram = ${p.file}\n`].join('');
      const sign = `awk 'BEGIN{d=0} /^committer /&&!d{print; print "gpgsig -----BEGIN PGP SIGNATURE-----"; print " "; print " iQEzBAABCAAdFiEE"; print " -----END PGP SIGNATURE-----"; d=1; next} {print}'`;
      await sh(host, [
        REPO,
        `c=$(git cat-file commit HEAD | ${sign} | git hash-object -t commit -w --stdin)`,
        'git update-ref HEAD "$c"',
        'cp -r .git .evil',
        `printf %s ${q(evil)} >> .evil/config`,
        'echo "$PWD/.evil" > .git/commondir',
        "printf '* filter=x diff=x\\n' > .gitattributes",
        'printf "two\\n" >> a.txt',
      ].join('\n'));
      const results = await gitTurn(host);
      expect(results.get('call_status')).toContain('Branch main');
      // the textconv driver (the payload, confined) shows both sides as its own output: git_diff answers all the same
      expect(results.get('call_diff')).toMatch(/^(diff --git|No unstaged changes)/);
      expect(results.get('call_log')).toContain('first commit');
      expectHostUntouched(host, p, [...results.values()]);
    },
  );
});
