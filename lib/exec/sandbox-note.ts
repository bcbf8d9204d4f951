import os from 'node:os';
import path from 'node:path';
import { formatBytes, formatCount } from '../contract/text';
import type { SandboxSpec } from './sandbox';
import { HOME_SECRETS } from './sandbox-hide';
import type { RunResult } from './run-types';

/**
 * The note a failed sandboxed command gets when its output shows the sandbox at work, so the model
 * does not take a refused write, an unreachable network or a resource limit for an ordinary bug and
 * knows what to do next.
 */

const READ_ONLY = /Read-only file system|EROFS/;
const DENIED = /Permission denied|EACCES|EPERM|Operation not permitted/;
const NO_NETWORK =
  /Network is unreachable|ENETUNREACH|Could not resolve host|Temporary failure in name resolution|Name or service not known|getaddrinfo|EAI_AGAIN|ENOTFOUND|Couldn't connect to server|Connection refused|ECONNREFUSED|Failed to establish a new connection|nodename nor servname|No address associated with hostname/;
const NOT_FOUND = /No such file or directory|ENOENT|cannot open|can't open/i;
/** what a refused unix socket (the system-call filter) looks like */
const NO_UNIX_SOCKET = /Address family not supported by protocol|EAFNOSUPPORT/;
/** a fork refused at RLIMIT_NPROC (bash, Node, Python, Go, Java) */
const NO_PROCESS = /fork: (retry: )?Resource temporarily unavailable|Cannot fork|can't fork|spawn \S+ EAGAIN|BlockingIOError: \[Errno 11\]|pthread_create failed: Resource temporarily unavailable|unable to create native thread|Resource temporarily unavailable \(os error 11\)/i;
/** an allocation refused at RLIMIT_DATA (bash, libc's strerror, C++, Python, Node, Go, gcc) */
const NO_MEMORY = /xmalloc: .*cannot allocate|failed to allocate memory|Cannot allocate memory|ENOMEM|std::bad_alloc|MemoryError|JavaScript heap out of memory|runtime: out of memory|virtual memory exhausted/;
/** … and the plainer words other programs use (awk, sort …), believed only from a command that failed */
const NO_MEMORY_FAILED = /\bout of memory\b|memory exhausted/i;
/** a write refused at RLIMIT_FSIZE (SIGXFSZ; EFBIG where the signal is ignored) */
const TOO_BIG = /File size limit exceeded|File too large|EFBIG/;
/** a full file system (the sandbox's /tmp and /dev/shm are in memory, bounded by the memory limit) */
const NO_SPACE = /No space left on device|ENOSPC/;
const SIGXFSZ_EXIT = 128 + (os.constants.signals.SIGXFSZ ?? 25);

const ASK = 'If the task really needs it, call run_command again with the same command, sandbox: "network" (to reach the network) or sandbox: "off" (to run outside the sandbox), and sandbox_reason saying why; the person is asked to approve it. Do not try to work around the sandbox.';
const RAISE = 'Do not retry it as it is: find what runs away. If the task really needs more, tell the person, who can raise the limit (CLAMP_SANDBOX_LIMITS).';

function textOf(r: RunResult): string {
  const s = (c: RunResult['stdout']) => Buffer.concat([c.head, c.tail]).toString('utf8');
  return `${s(r.stderr)}\n${s(r.stdout)}`;
}

/** The note for a command that hit one of the sandbox's resource limits, or undefined. */
export function limitNote(r: RunResult): string | undefined {
  const l = r.limits;
  if (!l || r.spawnError) return undefined;
  const processes = `the sandbox's limit of ${formatCount(l.processes)} processes (threads count)`;
  const memory = `the sandbox's memory limit of ${formatBytes(l.memoryBytes)}`;
  if (r.limitHit === 'processes') {
    return `The command hit ${processes} and was stopped: something kept starting processes (a fork loop, or a build started with unbounded parallelism). ${RAISE}`;
  }
  if (r.limitHit === 'memory') {
    return `The command hit ${memory} (all its processes together) and the kernel stopped its largest process. Process less at once (smaller inputs, fewer parallel jobs). ${RAISE}`;
  }
  // what follows reads the output: a shell that could not fork or allocate says so, and may still exit 0
  if (r.killedBy) return undefined;
  const text = textOf(r);
  if (r.exitCode === SIGXFSZ_EXIT || TOO_BIG.test(text)) {
    return `A process of the command tried to write a file larger than the sandbox's limit of ${formatBytes(l.fileBytes)} per file, and was stopped. ${RAISE}`;
  }
  if (NO_SPACE.test(text)) {
    return `A write found no space left. If it went to /tmp or /dev/shm: in the sandbox they live in memory and hold at most ${formatBytes(l.memoryBytes)} each; write large files to the workspace or $CLAMP_SCRATCH instead.`;
  }
  if (NO_PROCESS.test(text)) return `This failure looks like ${processes}: starting a process or thread was refused. ${RAISE}`;
  if (NO_MEMORY.test(text) || (r.exitCode !== 0 && NO_MEMORY_FAILED.test(text))) return `This failure looks like ${memory} per process: an allocation was refused. Process less at once. ${RAISE}`;
  return undefined;
}

/** The sandbox note for a finished run, or undefined when nothing points at the sandbox (or it succeeded). */
export function sandboxNote(r: RunResult, spec: SandboxSpec, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const limit = limitNote(r);
  if (limit) return limit;
  if (r.exitCode === 0 || r.killedBy || r.spawnError) return undefined;
  const text = textOf(r);
  const home = spec.home ?? env.HOME ?? os.homedir();
  const secrets = [spec.dataDir, home, ...HOME_SECRETS.map((s) => path.join(home, s)), ...HOME_SECRETS.map((s) => `~/${s}`)];
  const causes: string[] = [];
  if (READ_ONLY.test(text)) {
    causes.push(
      spec.level === 'read-only'
        ? 'the sandbox is read-only in this mode: nothing can be written except the private /tmp'
        : 'the sandbox lets a command write only inside the workspace (not .git/hooks or .git/config), its private /tmp and $CLAMP_SCRATCH; everything else is read-only',
    );
  }
  if (secrets.some((p) => text.includes(p)) && (NOT_FOUND.test(text) || DENIED.test(text) || READ_ONLY.test(text))) {
    causes.push('the sandbox shows of HOME only what toolchains read, and hides the person\'s secrets (~/.ssh, ~/.aws, ~/.gnupg, credentials files, shell histories …) and Clamp\'s data dir: they look empty or missing inside it');
  }
  if (!spec.network && NO_NETWORK.test(text)) causes.push('the sandbox has no network (not even servers on this machine\'s localhost)');
  if (NO_UNIX_SOCKET.test(text)) causes.push('the sandbox allows no unix sockets (only IP and netlink sockets), so services on this machine that listen on a socket file cannot be reached (sandbox: "network" does not change that; only "off" does)');
  if (causes.length === 0 && DENIED.test(text) && text.includes('.git/')) causes.push('the sandbox keeps .git/hooks and .git/config read-only');
  if (causes.length === 0) return undefined;
  return `This failure looks like Clamp's sandbox at work, not a bug in the command: ${causes.join('; ')}. ${ASK}`;
}
