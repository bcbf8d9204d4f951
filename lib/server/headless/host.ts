import type { AgentHost } from '../../agent/host';
import { rulePatterns } from '../../contract/rule-patterns';
import type { Registry } from '../../dispatch/registry';
import { traitsOf, type PermissionMode, type PolicyDecision, type ToolDefinition } from '../../contract/types';
import { verdictFromRules } from '../../store/rules';
import { ruleKeysOf } from '../agent-host';
import { UsageError } from './args';

/** One --allow flag as a rule: the tool and its pattern ('*' every call, else a command prefix or =exact). */
export interface FlagRule {
  tool: string;
  pattern: string;
}

/** MCP tools (`mcp__<server>__<tool>`) are known only once their servers run, so their rules are taken by name. */
const MCP_PREFIX = 'mcp__';

/**
 * Parse an --allow value: `<tool>` or `<tool>:<pattern>`, the tool one the registry has, or an MCP
 * tool `mcp__<server>__<tool>` or a whole server `mcp__<server>`. Throws UsageError naming the fix.
 */
export function parseAllow(value: string, reg: Registry): FlagRule {
  const colon = value.indexOf(':');
  const tool = (colon === -1 ? value : value.slice(0, colon)).trim();
  const pattern = colon === -1 ? '*' : value.slice(colon + 1).trim();
  const mcp = tool.startsWith(MCP_PREFIX);
  if (mcp && !/^mcp__[A-Za-z0-9_-]+$/.test(tool)) {
    throw new UsageError(`--allow ${value}: "${tool}" is not an MCP tool name. Write --allow mcp__<server>__<tool> for one tool (the names the settings page lists), or --allow mcp__<server> for all of a server's tools.`);
  }
  if (!mcp && !Object.hasOwn(reg, tool)) {
    const hint = colon === -1 && /\s/.test(value) ? ` For a command, write --allow "run_command:${value}".` : '';
    throw new UsageError(`--allow ${value}: "${tool}" is not a tool.${hint} Tools: ${Object.keys(reg).join(', ')}, and MCP tools as mcp__<server>__<tool>.`);
  }
  if (!pattern) throw new UsageError(`--allow ${value}: the pattern after ":" is empty. Write --allow ${tool} for every call, or ${tool}:<command prefix>.`);
  // only a command tool's rules match a pattern (its calls carry rule keys); any other tool's rule covers every call
  if (pattern !== '*' && (mcp || !traitsOf(reg[tool]).command)) {
    throw new UsageError(`--allow ${value}: a rule for ${tool} covers every call of it; write --allow ${tool}.`);
  }
  return { tool, pattern };
}

/** Does a flag's rule name this tool: the tool itself, or (for `mcp__<server>`) any tool of that server? */
function ruleCovers(rule: FlagRule, toolName: string): boolean {
  if (rule.tool === toolName) return true;
  return rule.tool.startsWith(MCP_PREFIX) && !rule.tool.slice(MCP_PREFIX.length).includes('__') && toolName.startsWith(`${rule.tool}__`);
}

/** The --allow flag that would cover a call, or undefined when no rule can (Clamp cannot judge what it would run). */
export function allowFlagFor(tool: Pick<ToolDefinition, 'name' | 'effect' | 'traits'>, decision: PolicyDecision): string | undefined {
  const toolName = tool.name;
  const patterns = rulePatterns({ decision, ...(traitsOf(tool).command ? { command: true as const } : {}) });
  if (!patterns) return undefined;
  const quote = (s: string) => (/^[\w.:=/-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
  return patterns.map((p) => `--allow ${quote(p === '*' ? toolName : `${toolName}:${p}`)}`).join(' ');
}

/** The reason the model reads for a call refused because nobody is there to approve it. */
export function unattendedReason(tool: Pick<ToolDefinition, 'name' | 'effect' | 'traits'>, decision: PolicyDecision): string {
  const flag = allowFlagFor(tool, decision);
  const how = flag
    ? `\`clamp run ${flag}\` (or --dangerously-approve-all) would allow it`
    : 'no --allow rule can cover it (Clamp cannot judge what it would run); only --dangerously-approve-all would allow it';
  return `it needs a person's approval (${decision.reason}), and this is a headless run (clamp run) with nobody to approve it: ${how}`;
}

export interface HeadlessOptions {
  rules: readonly FlagRule[];
  approveAll: boolean;
  /** the mode for this run, instead of the session's */
  mode?: PermissionMode;
}

/**
 * The host of a headless run: the store's, with the flags' rules beside the saved ones, and calls that
 * need approval decided at once (allowed by --dangerously-approve-all, else refused with the reason and
 * the flag that would allow them). It has no way to ask the person anything.
 */
export function headlessHost(stored: AgentHost, o: HeadlessOptions): AgentHost {
  const flagVerdict = (tool: ToolDefinition, d: PolicyDecision) => {
    const rules = o.rules.filter((r) => ruleCovers(r, tool.name)).map((r) => ({ pattern: r.pattern, action: 'allow' as const }));
    return rules.length ? verdictFromRules(rules, ruleKeysOf(tool, d), !!d.opaque) : undefined;
  };
  return {
    // the store's hooks (write-ahead journal, checkpoints, approvals) serve headless runs as they serve the page
    ...stored,
    mode: o.mode ? () => o.mode! : () => stored.mode(),
    // a saved deny or ask wins over a flag, as over a session rule: flags only add allow rules
    ruleVerdict: (tool, input, d, paths) => stored.ruleVerdict(tool, input, d, paths) ?? flagVerdict(tool, d),
    unattended: (tool, d) =>
      o.approveAll
        ? { ...d, action: 'allow', reason: `approved by --dangerously-approve-all (${d.reason})` }
        : { ...d, action: 'deny', reason: unattendedReason(tool, d) },
  };
}
