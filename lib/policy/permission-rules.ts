import path from 'node:path';
import type { PolicyDecision, SideEffect } from '../contract/types';

/**
 * Permission rules in Claude Code's grammar (`permissions.allow/ask/deny` of its settings files), read as Clamp
 * rules. A rule is a tool name, optionally with a specifier in parentheses:
 *   Bash · Bash(npm test:*) (prefix, on a word boundary) · Bash(git diff) (exact) · Bash(git * main) (wildcard)
 *   Read(./secrets/**) · Edit(src/**) · Write(//abs/path) · Read(~/notes) (gitignore-style path globs)
 *   WebFetch(domain:example.com) · Task(reviewer) / Agent(reviewer) · mcp__server · mcp__server__tool
 *   Glob · Grep · LS · WebSearch, and Clamp's own tool names (run_command …) without a specifier.
 * Claude Code's names reach Clamp's tools through each tool's `traits.hookAs` (the table the hook matchers use);
 * `Read` also covers every read tool that takes a path (grep, glob, list_dir), and `Edit`, `Write`, `MultiEdit`
 * and `NotebookEdit` every tool that writes a path (edit_file, write_file, apply_patch), as in Claude Code.
 * Pure: the caller reads the files and resolves the paths.
 */

export type PermissionAction = 'allow' | 'ask' | 'deny';

type Spec =
  | { kind: 'any' }
  | { kind: 'command'; form: 'prefix' | 'exact' | 'wildcard'; text: string; re?: RegExp }
  | { kind: 'path'; family: 'read' | 'write'; glob: string; exact: RegExp; folded: RegExp; anchored: string[] }
  | { kind: 'domain'; domain: string }
  | { kind: 'agent'; type: string };

export interface PermissionRule {
  /** the entry as written */
  text: string;
  /** the tool name as written (Claude Code's, Clamp's, or an MCP name) */
  tool: string;
  spec: Spec;
}

export class PermissionRuleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PermissionRuleError';
  }
}

/** Where a rule's paths are anchored: the project (the workspace, and its real path when that differs) and the home folder. */
export interface RuleRoots {
  roots: readonly string[];
  home: string;
}

const READ_NAMES = new Set(['Read']);
const WRITE_NAMES = new Set(['Edit', 'Write', 'MultiEdit', 'NotebookEdit']);
const AGENT_NAMES = new Set(['Task', 'Agent']);
const NAME_RE = /^[A-Za-z_][A-Za-z0-9_-]*(?:__\*)?$/;

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** A gitignore-style glob over '/'-separated absolute paths: `**` any segments, `*` and `?` within one, `[…]`, `{a,b}`. */
export function pathGlobSource(glob: string): string {
  let re = '';
  let depth = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*') {
      let j = i + 2;
      while (glob[j] === '*') j++;
      if (glob[j] === '/') {
        re += '(?:[^/]*/)*';
        i = j;
      } else {
        re += '.*';
        i = j - 1;
      }
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end === -1) re += '\\[';
      else {
        const body = glob.slice(i + 1, end).replace(/^!/, '^').replace(/\\/g, '\\\\');
        re += `[${body}]`;
        i = end;
      }
    } else if (c === '{') {
      depth++;
      re += '(?:';
    } else if (c === '}' && depth > 0) {
      depth--;
      re += ')';
    } else if (c === ',' && depth > 0) re += '|';
    else re += escapeRe(c);
  }
  if (depth > 0) throw new PermissionRuleError(`the path pattern ${JSON.stringify(glob)} has an unclosed "{"`);
  return re;
}

/** The absolute glob(s) a path specifier stands for: `//abs`, `~/home`, `/project`, `./project`, `a/b` (project), `name` (any depth). */
function anchoredGlobs(raw: string, where: RuleRoots): string[] {
  let p = raw.trim();
  if (!p) throw new PermissionRuleError('the path is empty; write a path pattern such as ./secrets/**');
  if (p.includes('\0')) throw new PermissionRuleError('the path holds a NUL character');
  if (p.endsWith('/')) p += '**';
  if (p.startsWith('//')) return [path.posix.normalize(p.slice(1))];
  if (p === '~' || p.startsWith('~/')) return [path.posix.join(where.home, p.slice(1))];
  let rel: string;
  if (p.startsWith('/')) rel = p.slice(1);
  else if (p.startsWith('./')) rel = p.slice(2);
  else rel = p.includes('/') ? p : `**/${p}`; // gitignore: a name without a slash matches at any depth
  rel = path.posix.normalize(rel);
  if (rel === '..' || rel.startsWith('../')) throw new PermissionRuleError(`the path ${JSON.stringify(raw)} leads above the project; write it as //absolute/path or ~/path`);
  return where.roots.map((root) => (rel === '.' ? root : `${root.replace(/\/+$/, '')}/${rel}`));
}

function pathSpec(tool: string, raw: string, where: RuleRoots): Spec {
  const globs = anchoredGlobs(raw, where);
  const source = `^(?:${globs.map(pathGlobSource).join('|')})$`;
  return { kind: 'path', family: READ_NAMES.has(tool) ? 'read' : 'write', glob: raw.trim(), exact: new RegExp(source), folded: new RegExp(source, 'i'), anchored: globs };
}

function commandSpec(raw: string): Spec {
  const text = raw.replace(/\s+/g, ' ').trim();
  if (!text) throw new PermissionRuleError('the command is empty; write Bash for every command, or Bash(npm test:*)');
  if (text.endsWith(':*')) {
    const prefix = text.slice(0, -2).trim();
    if (!prefix) throw new PermissionRuleError('":*" needs a command before it, as in Bash(npm test:*)');
    if (prefix.includes('*')) throw new PermissionRuleError('a prefix rule ("…:*") holds no other "*"');
    return { kind: 'command', form: 'prefix', text: prefix };
  }
  if (!text.includes('*')) return { kind: 'command', form: 'exact', text };
  const stars = text.split('*').length - 1;
  // "ls *" also matches "ls": a single trailing wildcard after a space is optional, as in Claude Code
  const body = stars === 1 && text.endsWith(' *') ? `${escapeRe(text.slice(0, -2))}(?: .*)?` : text.split('*').map(escapeRe).join('.*');
  return { kind: 'command', form: 'wildcard', text, re: new RegExp(`^${body}$`) };
}

function domainSpec(raw: string): Spec {
  const m = /^domain:\s*(\S+)$/.exec(raw.trim());
  if (!m) throw new PermissionRuleError('WebFetch takes a domain, as in WebFetch(domain:example.com)');
  const domain = m[1].toLowerCase().replace(/\.$/, '');
  if (!/^(\*\.)?[a-z0-9.-]+$/.test(domain)) throw new PermissionRuleError(`${JSON.stringify(m[1])} is not a domain name (example.com, or *.example.com for its subdomains)`);
  return { kind: 'domain', domain };
}

/**
 * One entry of `permissions.allow/ask/deny`, parsed. Throws PermissionRuleError saying what is wrong and how to
 * write it (the caller shows it with the entry; the entry then does nothing).
 */
export function parsePermissionRule(entry: unknown, where: RuleRoots): PermissionRule {
  if (typeof entry !== 'string') throw new PermissionRuleError(`a rule is a string such as "Bash(npm test:*)", not ${JSON.stringify(entry)}`);
  const text = entry.trim();
  const m = /^([^()\s]+)\s*(?:\(([\s\S]*)\))?$/.exec(text);
  if (!m) throw new PermissionRuleError('write a tool name, optionally with a specifier in parentheses: Bash, Bash(npm test:*), Read(./secrets/**)');
  const [, tool, inner] = m;
  if (!NAME_RE.test(tool)) throw new PermissionRuleError(`${JSON.stringify(tool)} is not a tool name`);
  if (inner === undefined || inner.trim() === '' || inner.trim() === '*') return { text, tool, spec: { kind: 'any' } };
  if (tool === 'Bash') return { text, tool, spec: commandSpec(inner) };
  if (READ_NAMES.has(tool) || WRITE_NAMES.has(tool)) return { text, tool, spec: pathSpec(tool, inner, where) };
  if (tool === 'WebFetch') return { text, tool, spec: domainSpec(inner) };
  if (AGENT_NAMES.has(tool)) return { text, tool, spec: { kind: 'agent', type: inner.trim() } };
  if (tool.startsWith('mcp__')) throw new PermissionRuleError(`an MCP rule names a server or a tool without parentheses: mcp__server or mcp__server__tool`);
  throw new PermissionRuleError(`${tool} takes no specifier in parentheses; write ${tool} alone (specifiers: Bash, Read, Edit, Write, MultiEdit, WebFetch, Task)`);
}

/** The facts about one call that rules match on. */
export interface RuleCall {
  name: string;
  effect: SideEffect;
  /** the tool's name in Claude Code (traits.hookAs) */
  claudeName?: string;
  input: unknown;
  /** the call's declared path arguments: as written but absolute, through symlinks, and the access */
  paths: readonly { lexical: string; real: string; access: 'read' | 'write' }[];
  decision: PolicyDecision;
}

/** Whether a rule names this tool at all (its own name, Claude Code's name for it, its family, its MCP server). */
function names(rule: PermissionRule, c: RuleCall): boolean {
  const t = rule.tool;
  if (t === c.name || t === c.claudeName) return true;
  if (AGENT_NAMES.has(t) && AGENT_NAMES.has(c.claudeName ?? '')) return true;
  if (READ_NAMES.has(t)) return c.effect === 'read' && c.paths.length > 0;
  if (WRITE_NAMES.has(t)) return c.paths.some((p) => p.access === 'write');
  if (t.startsWith('mcp__')) {
    const server = t.endsWith('__*') ? t.slice(0, -3) : t;
    return !server.slice(5).includes('__') && c.name.startsWith(`${server}__`);
  }
  return false;
}

function commandMatches(spec: Extract<Spec, { kind: 'command' }>, text: string): boolean {
  if (spec.form === 'prefix') return text === spec.text || text.startsWith(`${spec.text} `);
  if (spec.form === 'exact') return text === spec.text;
  return spec.re!.test(text);
}

const norm = (s: string) => s.replace(/\s+/g, ' ').trim();

/** What a command's sub-commands are, for a deny or an ask: every text and key the judge saw, and the whole line. */
function commandTexts(c: RuleCall): string[] {
  const cmd = (c.input as { command?: unknown } | null)?.command;
  return [...(c.decision.subcommands ?? []), ...(c.decision.subRuleKeys ?? []), ...(typeof cmd === 'string' ? [cmd] : [])].map(norm);
}

/**
 * Whether allow rules cover a command: every sub-command that needs a rule (its key a word prefix of its text) is
 * matched, and every key belongs to such a text. Never for an opaque command, a dangerous (tier 2) one, or one
 * whose keys Clamp could not tie to their text.
 */
function commandAllowed(specs: Extract<Spec, { kind: 'command' }>[], d: PolicyDecision): boolean {
  if (d.opaque || d.tier || !d.subcommands) return false;
  const keys = d.subRuleKeys ?? [];
  const texts = d.subcommands.map(norm);
  const needing = texts.filter((t) => keys.some((k) => t === k || t.startsWith(`${k} `)));
  if (!keys.every((k) => needing.some((t) => t === k || t.startsWith(`${k} `)))) return false;
  const all = keys.length ? needing : texts;
  return all.length > 0 && all.every((t) => specs.some((s) => commandMatches(s, t)));
}

function host(input: unknown): string | undefined {
  const url = (input as { url?: unknown } | null)?.url;
  if (typeof url !== 'string') return undefined;
  try {
    return new URL(url.trim()).hostname.toLowerCase().replace(/\.$/, '');
  } catch {
    return undefined;
  }
}

function domainMatches(domain: string, h: string, narrowing: boolean): boolean {
  if (domain.startsWith('*.')) return h.endsWith(domain.slice(1));
  // a deny or ask for example.com also holds for its subdomains; an allow is for that host only
  return h === domain || (narrowing && h.endsWith(`.${domain}`));
}

/** Candidate absolute paths of the call: for a deny or ask, as written and as resolved, and each as a folder. */
function pathCandidates(c: RuleCall): string[] {
  return c.paths.flatMap((p) => [p.lexical, p.real, `${p.lexical}/`, `${p.real}/`]);
}

/** Whether a deny or ask rule matches a call (any part of it). */
export function narrowingMatches(rule: PermissionRule, c: RuleCall): boolean {
  const s = rule.spec;
  // a Read rule with a path narrows every tool that touches the path (edit_file shows what it read, too)
  if (s.kind === 'path' && s.family === 'read') return pathCandidates(c).some((p) => s.folded.test(p));
  if (!names(rule, c)) return false;
  switch (s.kind) {
    case 'any':
      return true;
    case 'command':
      return commandTexts(c).some((t) => commandMatches(s, t));
    case 'path':
      return c.paths.filter((p) => p.access === 'write').some((p) => [p.lexical, p.real, `${p.lexical}/`, `${p.real}/`].some((x) => s.folded.test(x)));
    case 'domain': {
      const h = host(c.input);
      return h === undefined || domainMatches(s.domain, h, true);
    }
    case 'agent':
      return (c.input as { type?: unknown } | null)?.type === s.type;
  }
}

/** Whether allow rules (of one tool's naming) cover the whole call. */
function allowCovers(rules: readonly PermissionRule[], c: RuleCall): PermissionRule | undefined {
  // an address outside the public internet is approved by the person call by call, never by a file
  if (c.decision.localAddresses?.length) return undefined;
  const mine = rules.filter((r) => names(r, c));
  const any = mine.find((r) => r.spec.kind === 'any');
  if (any) return c.decision.tier || c.decision.opaque ? undefined : any;
  const cmds = mine.filter((r) => r.spec.kind === 'command');
  if (cmds.length && commandAllowed(cmds.map((r) => r.spec as Extract<Spec, { kind: 'command' }>), c.decision)) return cmds[0];
  const paths = mine.filter((r) => r.spec.kind === 'path');
  const relevant = c.effect === 'read' ? c.paths : c.paths.filter((p) => p.access === 'write');
  const pathRule = (p: RuleCall['paths'][number]) => paths.find((r) => r.spec.kind === 'path' && (r.spec.exact.test(p.real) || r.spec.exact.test(`${p.real}/`)));
  if (paths.length && relevant.length && relevant.every((p) => pathRule(p))) return pathRule(relevant[0]);
  for (const r of mine) {
    const s = r.spec;
    if (s.kind === 'domain') {
      const h = host(c.input);
      if (h !== undefined && domainMatches(s.domain, h, false)) return r;
    }
    if (s.kind === 'agent' && (c.input as { type?: unknown } | null)?.type === s.type) return r;
  }
  return undefined;
}

export interface RuleHit<R> {
  action: PermissionAction;
  rule: R;
}

/**
 * The verdict of permission rules on a call, as Claude Code decides: any matching deny, else any matching ask,
 * else an allow that covers the whole call. undefined when no rule decides.
 */
export function permissionVerdict<R extends { action: PermissionAction; rule: PermissionRule }>(rules: readonly R[], c: RuleCall): RuleHit<R> | undefined {
  for (const action of ['deny', 'ask'] as const) {
    const hit = rules.find((r) => r.action === action && narrowingMatches(r.rule, c));
    if (hit) return { action, rule: hit };
  }
  const allows = rules.filter((r) => r.action === 'allow');
  const covering = allowCovers(allows.map((r) => r.rule), c);
  const hit = covering && allows.find((r) => r.rule === covering);
  return hit ? { action: 'allow', rule: hit } : undefined;
}

/**
 * Whether Read-family deny or ask rules withhold an absolute path from a search or a listing (grep, glob walk
 * below a folder that is not itself denied). Folders are tested with a trailing slash, so `secrets/**` holds
 * `secrets` itself. Case-insensitive: a narrowing never misses on case.
 */
export function readWithheld(rules: readonly PermissionRule[], abs: string, isDir: boolean): PermissionRule | undefined {
  return rules.find((r) => r.spec.kind === 'path' && r.spec.family === 'read' && (r.spec.folded.test(abs) || (isDir && r.spec.folded.test(`${abs}/`))));
}

/**
 * A Read rule's pattern as globs relative to `root` (git's glob pathspec grammar: `**`, `*`, `?`, `[…]`), for the
 * patterns anchored inside it. A pattern with `{a,b}` has no git form and is left out (its concrete paths are not).
 */
export function relativeGlobs(rule: PermissionRule, root: string): string[] {
  const s = rule.spec;
  if (s.kind !== 'path') return [];
  const base = root.replace(/\/+$/, '');
  return s.anchored.filter((g) => g.startsWith(`${base}/`) && !/[{}]/.test(g)).map((g) => g.slice(base.length + 1));
}
