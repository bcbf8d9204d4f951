import type { ToolContext } from '../../contract/types';
import { parseHostPatterns, type HostPattern } from '../../contract/hosts';
import type { SandboxSpec } from '../../exec/sandbox';
import { splitList } from '../../exec/sandbox-env';
import { sessionNet, type NetJoin } from '../../exec/sandbox-net';
import { savedSandboxSettings } from './sandbox-policy';

/**
 * run_command's side of the sandbox's network: which session network a call joins (its session's — a
 * subagent's is its parent's — and its level), and which hosts the proxy lets it reach: the settings page's
 * allowed hosts, CLAMP_SANDBOX_ALLOW_HOSTS, and the hosts the person allowed for this session (a call's
 * allow_hosts, approved). Those are read at each connection, so a change applies to running commands too.
 */

/** ctx.services key: the session's allowed hosts (the server's host keeps them as session rules). */
export const SANDBOX_HOSTS = 'sandboxHosts';

export interface SandboxHostsService {
  /** the session whose network and hosts these are (a subagent's: its parent's) */
  key: string;
  /** the hosts allowed for this session so far */
  list(): string[];
  /** allow more for the rest of the session */
  grant(hosts: readonly string[]): void;
}

/** Hosts allowed in this process when no host keeps them (the tool CLI, tests): by session key. */
const inMemory = new Map<string, Set<string>>();

/** The session's allowed hosts: the host's service, or one kept in this process. */
export function sessionHosts(ctx: Pick<ToolContext, 'services' | 'sessionId'>): SandboxHostsService {
  const s = ctx.services[SANDBOX_HOSTS] as SandboxHostsService | undefined;
  if (s && typeof s.list === 'function' && typeof s.grant === 'function') return s;
  const key = ctx.sessionId ?? 'no-session';
  return {
    key,
    list: () => [...(inMemory.get(key) ?? [])],
    grant: (hosts) => {
      const set = inMemory.get(key) ?? new Set<string>();
      for (const h of hosts) set.add(h);
      inMemory.set(key, set);
    },
  };
}

/** Every host pattern the proxy allows this call now: settings, environment, session. */
export function allowedHosts(ctx: Pick<ToolContext, 'services' | 'sessionId'>, env: NodeJS.ProcessEnv = process.env): HostPattern[] {
  const saved = savedSandboxSettings(ctx)?.allowHosts ?? [];
  return parseHostPatterns([...saved, ...splitList(env.CLAMP_SANDBOX_ALLOW_HOSTS), ...sessionHosts(ctx).list()]).patterns;
}

/** The hosts of `wanted` the proxy does not allow yet (as patterns' text), so a call asking for them needs the person. */
export function hostsToGrant(wanted: readonly string[], ctx: Pick<ToolContext, 'services' | 'sessionId'>, env: NodeJS.ProcessEnv = process.env): string[] {
  const have = new Set(allowedHosts(ctx, env).map((p) => p.text));
  return parseHostPatterns(wanted).patterns.map((p) => p.text).filter((t) => !have.has(t));
}

/**
 * Join the session's network for one sandboxed command; undefined when it runs with the network open (nothing
 * to join) or the network cannot start here (it then gets a namespace of its own with no network, as without
 * pasta), with why in `problem`.
 */
export async function joinSessionNet(ctx: ToolContext, sandbox: SandboxSpec, env: NodeJS.ProcessEnv = process.env): Promise<{ join?: NetJoin; problem?: string }> {
  if (sandbox.network) return {};
  const net = sessionNet(`${sessionHosts(ctx).key}:${sandbox.level}`, env);
  if (typeof net === 'string') return { problem: net };
  const join = await net.join({ allowed: () => allowedHosts(ctx, env) });
  return typeof join === 'string' ? { problem: join } : { join };
}
