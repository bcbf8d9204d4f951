import type { PolicyDecision } from '../../contract/types';

/**
 * A call's allow_hosts folded into its verdict: hosts the sandbox's proxy does not allow yet make the call ask,
 * as an escalation does (run_command's `sandbox`): a person, or a saved rule for exactly that escalation (its
 * keys start with `[hosts a,b]`, so a rule for the plain command never covers it), never auto mode alone. Once
 * approved, the hosts stay allowed for the rest of the session.
 */
export function withHostGrant(d: PolicyDecision, hosts: readonly string[], reason: string | undefined): PolicyDecision {
  if (!hosts.length || d.action === 'deny') return d;
  const tag = `[hosts ${hosts.join(',')}]`;
  const keys = d.subRuleKeys?.length ? d.subRuleKeys : (d.subcommands ?? []);
  // an exact key (=…) stays exact
  const subRuleKeys = d.opaque ? [] : keys.map((k) => (k.startsWith('=') ? `=${tag} ${k.slice(1)}` : `${tag} ${k}`));
  const out: PolicyDecision = {
    ...d,
    action: 'ask',
    tier: 2,
    reason: `asks to reach ${hosts.join(', ')} through the sandbox's proxy, for the rest of this session, because: ${reason?.trim() || 'no reason given'} (the command: ${d.reason})`,
    subRuleKeys,
  };
  if (subRuleKeys.length) out.ruleKey = subRuleKeys.join(' && ');
  else delete out.ruleKey;
  return out;
}
