import os from 'node:os';
import path from 'node:path';
import { HOME_SECRETS, type SandboxSpec } from './sandbox';
import type { RunResult } from './run-types';

/**
 * The note a failed sandboxed command gets when its output shows the sandbox at work, so the model
 * does not take a refused write or an unreachable network for an ordinary bug and knows how to ask.
 */

const READ_ONLY = /Read-only file system|EROFS/;
const DENIED = /Permission denied|EACCES|EPERM|Operation not permitted/;
const NO_NETWORK =
  /Network is unreachable|ENETUNREACH|Could not resolve host|Temporary failure in name resolution|Name or service not known|getaddrinfo|EAI_AGAIN|ENOTFOUND|Couldn't connect to server|Connection refused|ECONNREFUSED|Failed to establish a new connection|nodename nor servname|No address associated with hostname/;
const NOT_FOUND = /No such file or directory|ENOENT|cannot open|can't open/i;

const ASK = 'If the task really needs it, call run_command again with the same command, sandbox: "network" (to reach the network) or sandbox: "off" (to run outside the sandbox), and sandbox_reason saying why; the person is asked to approve it. Do not try to work around the sandbox.';

function textOf(r: RunResult): string {
  const s = (c: RunResult['stdout']) => Buffer.concat([c.head, c.tail]).toString('utf8');
  return `${s(r.stderr)}\n${s(r.stdout)}`;
}

/** The sandbox note for a finished run, or undefined when nothing points at the sandbox (or it succeeded). */
export function sandboxNote(r: RunResult, spec: SandboxSpec, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (r.exitCode === 0 || r.killedBy || r.spawnError) return undefined;
  const text = textOf(r);
  const home = spec.home ?? env.HOME ?? os.homedir();
  const secrets = [spec.dataDir, ...HOME_SECRETS.map((s) => path.join(home, s)), ...HOME_SECRETS.map((s) => `~/${s}`)];
  const causes: string[] = [];
  if (READ_ONLY.test(text)) {
    causes.push(
      spec.level === 'read-only'
        ? 'the sandbox is read-only in this mode: nothing can be written except the private /tmp'
        : 'the sandbox lets a command write only inside the workspace (not .git/hooks or .git/config), its private /tmp and $CLAMP_SCRATCH; everything else is read-only',
    );
  }
  if (secrets.some((p) => text.includes(p)) && (NOT_FOUND.test(text) || DENIED.test(text) || READ_ONLY.test(text))) {
    causes.push('the sandbox hides the person\'s secrets (~/.ssh, ~/.aws, ~/.gnupg, ~/.config/gh, ~/.netrc, ~/.npmrc, ~/.docker/config.json …) and Clamp\'s data dir: they look empty or missing inside it');
  }
  if (!spec.network && NO_NETWORK.test(text)) causes.push('the sandbox has no network (not even servers on this machine\'s localhost)');
  if (causes.length === 0 && DENIED.test(text) && text.includes('.git/')) causes.push('the sandbox keeps .git/hooks and .git/config read-only');
  if (causes.length === 0) return undefined;
  return `This failure looks like Clamp's sandbox at work, not a bug in the command: ${causes.join('; ')}. ${ASK}`;
}
