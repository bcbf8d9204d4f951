import crypto from 'node:crypto';
import path from 'node:path';
import { HOOK_EVENTS, type HookEvent } from '../contract/hooks';

/**
 * A hooks file in Claude Code's format: `{"hooks": {"<Event>": [{"matcher": "Bash|Write", "hooks": [{"type":
 * "command", "command": "…", "timeout": 30}]}]}}`. Clamp adds two optional fields to a hook: `name` (shown on
 * cards) and `onFailure` ("ask", "block", "allow" or "ignore": what a crash or a timeout does).
 */

/** Where a hook comes from: the person's own run on the host without asking; a workspace's only once approved, in the sandbox. */
export type HookSource = 'person' | 'claude-user' | 'workspace';

export type OnFailure = 'ask' | 'block' | 'allow' | 'ignore';

export interface HookEntry {
  event: HookEvent;
  /** a regular expression over the tool's names (Clamp's and Claude Code's); '' or '*' or absent: every tool */
  matcher: string;
  command: string;
  /** absent: HOOK_TIMEOUT_DEFAULT_MS */
  timeoutMs?: number;
  onFailure?: OnFailure;
  name: string;
  source: HookSource;
  /** the file it was read from (absolute), or "settings" */
  file: string;
  /** a hash of its exact definition (event, matcher, command, timeout, onFailure): approvals are keyed by it */
  hash: string;
}

export class HookConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HookConfigError';
  }
}

const FAILURES: readonly OnFailure[] = ['ask', 'block', 'allow', 'ignore'];

/** A hook's name: its own, else the base name of the script it runs without extension ("check-secrets"), else its first word. */
export function hookName(command: string, own?: unknown): string {
  if (typeof own === 'string' && own.trim()) return own.trim();
  const words = command.trim().split(/\s+/);
  const script = words.find((w) => /[\\/]|\.(sh|js|mjs|cjs|py|ts|rb|pl)$/.test(w)) ?? words[0] ?? 'hook';
  const base = path.basename(script.replace(/^["']|["']$/g, ''));
  return base.replace(/\.(sh|js|mjs|cjs|py|ts|rb|pl)$/, '') || 'hook';
}

function defHash(e: Pick<HookEntry, 'event' | 'matcher' | 'command' | 'timeoutMs' | 'onFailure'>): string {
  const canonical = JSON.stringify([e.event, e.matcher, e.command, e.timeoutMs ?? null, e.onFailure ?? null]);
  return crypto.createHash('sha256').update(canonical).digest('hex').slice(0, 32);
}

function entryOf(event: HookEvent, matcher: string, h: unknown, where: string, source: HookSource, file: string): HookEntry {
  if (!h || typeof h !== 'object') throw new HookConfigError(`${where}: each hook is an object like {"type": "command", "command": "…"}.`);
  const o = h as Record<string, unknown>;
  if (o.type !== undefined && o.type !== 'command') throw new HookConfigError(`${where}: type "${String(o.type)}" is not supported; Clamp runs hooks of type "command".`);
  if (typeof o.command !== 'string' || !o.command.trim()) throw new HookConfigError(`${where}: "command" must be the command to run (a non-empty string).`);
  let timeoutMs: number | undefined;
  if (o.timeout !== undefined) {
    if (typeof o.timeout !== 'number' || !(o.timeout > 0)) throw new HookConfigError(`${where}: "timeout" is in seconds and must be a positive number.`);
    timeoutMs = Math.round(o.timeout * 1000);
  }
  if (o.onFailure !== undefined && !FAILURES.includes(o.onFailure as OnFailure)) {
    throw new HookConfigError(`${where}: "onFailure" must be one of ${FAILURES.join(', ')}.`);
  }
  const base = { event, matcher, command: o.command, timeoutMs, onFailure: o.onFailure as OnFailure | undefined };
  return { ...base, name: hookName(o.command, o.name), source, file, hash: defHash(base) };
}

/**
 * The hooks of a parsed settings object (its top-level `hooks`). Events Clamp does not run are skipped and
 * counted; a malformed definition throws HookConfigError naming where it is and what to write.
 */
export function parseHooks(json: unknown, source: HookSource, file: string): { entries: HookEntry[]; skippedEvents: string[] } {
  if (!json || typeof json !== 'object' || Array.isArray(json)) throw new HookConfigError(`${file}: the file must hold a JSON object with a "hooks" object.`);
  const hooks = (json as Record<string, unknown>).hooks;
  if (hooks === undefined) return { entries: [], skippedEvents: [] };
  if (!hooks || typeof hooks !== 'object' || Array.isArray(hooks)) throw new HookConfigError(`${file}: "hooks" must be an object keyed by event (PreToolUse, PostToolUse …).`);
  const entries: HookEntry[] = [];
  const skippedEvents: string[] = [];
  for (const [event, groups] of Object.entries(hooks)) {
    if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
      skippedEvents.push(event);
      continue;
    }
    if (!Array.isArray(groups)) throw new HookConfigError(`${file}: hooks.${event} must be a list of {"matcher": …, "hooks": [ … ]}.`);
    groups.forEach((g, i) => {
      const where = `${file}: hooks.${event}[${i}]`;
      if (!g || typeof g !== 'object') throw new HookConfigError(`${where} must be an object with "hooks".`);
      const group = g as Record<string, unknown>;
      const matcher = group.matcher === undefined ? '' : group.matcher;
      if (typeof matcher !== 'string') throw new HookConfigError(`${where}: "matcher" must be a string (a regular expression over tool names).`);
      if (!Array.isArray(group.hooks)) throw new HookConfigError(`${where}: "hooks" must be a list of commands.`);
      group.hooks.forEach((h, j) => entries.push(entryOf(event as HookEvent, matcher, h, `${where}.hooks[${j}]`, source, file)));
    });
  }
  return { entries, skippedEvents };
}

/** Parse the text of a hooks file (JSON); throws HookConfigError with the fix. */
export function parseHooksText(text: string, source: HookSource, file: string): { entries: HookEntry[]; skippedEvents: string[] } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new HookConfigError(`${file} is not valid JSON (${err instanceof Error ? err.message : String(err)}). Fix the file; its hooks are not run until it parses.`);
  }
  return parseHooks(json, source, file);
}

/** Whether a matcher selects a tool by any of its names: '' and '*' select every tool; otherwise a whole-name regular expression. */
export function matcherSelects(matcher: string, names: readonly string[]): boolean {
  const m = matcher.trim();
  if (m === '' || m === '*') return true;
  // a regular expression as Claude Code reads it, and a glob's star too ("mcp__*", "mcp__github__*")
  const patterns = [m, m.replace(/(^|[^.\\])\*/g, '$1.*')];
  return patterns.some((p) => {
    try {
      const re = new RegExp(`^(?:${p})$`);
      return names.some((n) => re.test(n));
    } catch {
      return names.includes(m);
    }
  });
}
