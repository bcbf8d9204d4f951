import type { ApprovalInfo } from './protocol';

/**
 * What "This session" / "Always" would save for a pending call: one rule per sub-command key of a
 * command (a tool whose `command` trait the call's info carries), '*' (every call) for a tool that is not a command, or undefined when nothing may be saved
 * (opaque and tier-1 calls). Shared by the server, which saves, and the page, which offers the buttons.
 */
export function rulePatterns(info: Pick<ApprovalInfo, 'decision' | 'command'> | null | undefined): string[] | undefined {
  const d = info?.decision;
  if (!d || d.opaque || d.tier === 1) return undefined;
  if (info?.command || d.subRuleKeys) {
    const keys = d.subRuleKeys?.length ? d.subRuleKeys : d.ruleKey ? [d.ruleKey] : [];
    return keys.length ? [...new Set(keys)] : undefined;
  }
  return ['*'];
}

/** What a saved pattern covers, in words for the approval bar: `=…` exactly that command, else that prefix and what follows it. */
export function patternText(pattern: string): string {
  if (pattern === '*') return 'every call';
  if (pattern.startsWith('=')) return `exactly \`${pattern.slice(1)}\``;
  return `\`${pattern}\` and anything after it`;
}
