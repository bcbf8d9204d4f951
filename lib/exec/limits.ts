import os from 'node:os';
import path from 'node:path';
import { BUDGET } from '../contract/budget';

/**
 * The sandbox's resource limits on one command: processes, memory and file size, at values a build never
 * meets and a runaway (a fork loop, `echo {1..999999999}`, `yes > f`) does. Two layers:
 * - rlimits, always, set by the command's own shell before the command (`ulimit`: lowering a limit needs no
 *   privilege, and without capabilities nothing inside can raise it again): RLIMIT_FSIZE, RLIMIT_DATA (not
 *   RLIMIT_AS, which breaks V8's and WebAssembly's address-space reservations) and RLIMIT_NPROC — which
 *   counts, inside bubblewrap's user namespace, the sandbox's own processes, but is not enforced for root;
 * - a cgroup per command where one is writable (cgroups.ts): pids.max bounds the processes for root too,
 *   and a memory limit bounds all of them together.
 */

export interface SandboxLimits {
  processes: number;
  memoryBytes: number;
  fileBytes: number;
}

const UNITS: Record<string, number> = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 };

/** A size such as `512m`, `8g` or `1073741824` (bytes); `50%` of `whole`. undefined when it is not one. */
function parseSize(v: string, whole: number): number | undefined {
  const pct = /^(\d+(?:\.\d+)?)%$/.exec(v);
  if (pct) return Number(pct[1]) > 0 && Number(pct[1]) <= 100 ? Math.floor((whole * Number(pct[1])) / 100) : undefined;
  const m = /^(\d+(?:\.\d+)?)\s*([kmgt]?)i?b?$/i.exec(v);
  if (!m) return undefined;
  const n = Math.floor(Number(m[1]) * UNITS[m[2]!.toLowerCase()]!);
  return n > 0 ? n : undefined;
}

/** CLAMP_SANDBOX_LIMITS is not a list of limits; the message names the form. */
export class SandboxLimitsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SandboxLimitsError';
  }
}

/**
 * The limits for sandboxed commands: the budget's, changed by CLAMP_SANDBOX_LIMITS
 * (`processes=N,memory=SIZE|N%,file=SIZE`, sizes in bytes or with k, m, g, t). Throws a SandboxLimitsError
 * naming the form for a value it cannot read (the launcher checks it at start).
 */
export function sandboxLimits(env: NodeJS.ProcessEnv = process.env, totalMemBytes = os.totalmem()): SandboxLimits {
  const limits: SandboxLimits = {
    processes: BUDGET.SANDBOX_PROCESSES_MAX_COUNT,
    memoryBytes: Math.floor((totalMemBytes * BUDGET.SANDBOX_MEMORY_MAX_PERCENT) / 100),
    fileBytes: BUDGET.SANDBOX_FILE_MAX_BYTES,
  };
  for (const part of (env.CLAMP_SANDBOX_LIMITS ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    const [key, value = ''] = part.split('=').map((s) => s.trim());
    const bad = () => new SandboxLimitsError(`CLAMP_SANDBOX_LIMITS: "${part}" is not a limit. Use processes=N, memory=SIZE or N%, file=SIZE (sizes in bytes or with k, m, g, t), separated by commas.`);
    if (key === 'processes') {
      if (!/^\d+$/.test(value) || Number(value) < 1) throw bad();
      limits.processes = Number(value);
    } else if (key === 'memory' || key === 'file') {
      const n = parseSize(value, totalMemBytes);
      if (n === undefined) throw bad();
      if (key === 'memory') limits.memoryBytes = n;
      else limits.fileBytes = n;
    } else {
      throw bad();
    }
  }
  return limits;
}

/** The limits, or the budget's own when CLAMP_SANDBOX_LIMITS cannot be read (the launcher has said why). Never throws. */
export function sandboxLimitsOrDefault(env: NodeJS.ProcessEnv = process.env): SandboxLimits {
  try {
    return sandboxLimits(env);
  } catch {
    return sandboxLimits({} as NodeJS.ProcessEnv);
  }
}

/**
 * What the command's shell runs first to set the rlimits (each on its own: a hard limit already lower stays).
 * bash counts -f in KiB, a POSIX sh in 512-byte blocks; -u (processes) is bash's.
 */
export function ulimitPrefix(l: SandboxLimits, shell: string): string {
  const bash = path.basename(shell) === 'bash';
  const blocks = Math.floor(l.fileBytes / (bash ? 1024 : 512));
  const kib = Math.floor(l.memoryBytes / 1024);
  const parts = [`ulimit -H -S -f ${blocks}`, `ulimit -H -S -d ${kib}`];
  if (bash) parts.push(`ulimit -H -S -u ${l.processes}`);
  return `${parts.map((p) => `${p} 2>/dev/null`).join('; ')}; `;
}
