import path from 'node:path';
import type { SandboxSettings } from '../contract/protocol';
import { confinedCommand, parseSandboxLevel, sandboxStatus, withoutSecrets, type SandboxSpec } from '../exec/sandbox';

/**
 * Where a repository's stdio MCP server runs. Its command is the repository's choice (.mcp.json), so once the
 * person approved it, it runs in the sandbox like a command: workspace-write (read-only when the sandbox level
 * is read-only), the network only when the sandbox's network setting allows it, secrets hidden, its own pid
 * namespace (nothing it starts outlives it). Unconfined only when the sandbox is turned off explicitly; when
 * the sandbox cannot start, not at all. The person's own servers (settings, CLAMP_MCP_CONFIG) are not confined.
 */

export type Confinement =
  | { spec: SandboxSpec; bwrap: string }
  | { unconfined: true }
  /** why it may not start, with the fix */
  | { problem: string };

/**
 * The confinement of a repository's server from the sandbox settings: the environment's CLAMP_SANDBOX and
 * CLAMP_SANDBOX_NETWORK when set, else the settings page's. Never throws (an invalid CLAMP_SANDBOX is not off).
 */
export function workspaceConfinement(o: { workspace: string; dataDir: string; settings?: Pick<SandboxSettings, 'level' | 'network'>; env?: NodeJS.ProcessEnv; what?: string }): Confinement {
  const env = o.env ?? process.env;
  let fromEnv: string | undefined;
  try {
    fromEnv = parseSandboxLevel(env.CLAMP_SANDBOX);
  } catch {
    fromEnv = 'by-mode';
  }
  const level = fromEnv ?? o.settings?.level ?? 'by-mode';
  if (level === 'off') return { unconfined: true };
  const st = sandboxStatus(env);
  if (!st.available) {
    return { problem: `it is ${o.what ?? "a repository's server (.mcp.json)"}, which runs only inside the sandbox, and ${st.problem}` };
  }
  const netEnv = env.CLAMP_SANDBOX_NETWORK;
  const network = netEnv !== undefined && netEnv !== '' ? netEnv === '1' || netEnv === 'true' : o.settings?.network === true;
  return {
    bwrap: st.bwrap!,
    spec: {
      level: level === 'read-only' ? 'read-only' : 'workspace-write',
      workspace: o.workspace,
      dataDir: o.dataDir,
      scratchDir: path.join(o.dataDir, 'scratch'),
      network,
    },
  };
}

/**
 * The program, arguments and environment that start a server's command inside the sandbox: bwrap around it,
 * the environment without secrets (the definition's own env, which the person approved, added back), caches
 * in the scratch folder (HOME is read-only inside).
 */
export function confinedLaunch(spec: SandboxSpec, bwrap: string, command: string, args: readonly string[], base: Record<string, string>, own: Record<string, string>): { command: string; args: string[]; env: Record<string, string> } {
  const env = { ...(withoutSecrets(base as NodeJS.ProcessEnv) as Record<string, string>), ...own };
  if (spec.scratchDir && spec.level === 'workspace-write') {
    env.XDG_CACHE_HOME ??= path.join(spec.scratchDir, 'cache');
    env.npm_config_cache ??= path.join(spec.scratchDir, 'npm-cache');
  }
  // the same confinement as a command's: the sandbox's mounts, its system-call filter and its resource limits
  return { ...confinedCommand(spec, bwrap, env as NodeJS.ProcessEnv, command, args), env };
}
