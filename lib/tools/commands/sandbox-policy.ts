import path from 'node:path';
import type { PolicyDecision, ToolContext } from '../../contract/types';
import type { CommandAssessment } from '../../policy/command-safety';
import { parseSandboxLevel, sandboxLevelFor, sandboxStatus, type SandboxLevel, type SandboxSpec } from '../../exec/sandbox';

/**
 * How run_command uses the sandbox: the level from the mode (narrowed by CLAMP_SANDBOX), network from
 * CLAMP_SANDBOX_NETWORK, and what a call may ask for itself (`sandbox: "network" | "off"`, always
 * approved by a person or a saved rule, never by auto mode alone).
 */

export type Escalation = 'network' | 'off';

export interface SandboxChoice {
  level: SandboxLevel;
  /** the network is on for this call (settings or an approved escalation) */
  network: boolean;
  /** what the call asked for beyond the sandbox */
  escalation?: Escalation;
  /** the sandbox is wanted but cannot start here: why, with the fix */
  unavailable?: string;
}

/** CLAMP_SANDBOX as a level; an invalid value counts as unset (the mode's level: fail closed, never off). */
function configuredLevel(env: NodeJS.ProcessEnv): SandboxLevel | undefined {
  try {
    return parseSandboxLevel(env.CLAMP_SANDBOX);
  } catch {
    return undefined;
  }
}

/** The sandbox this call runs in. */
export function sandboxChoice(mode: string, escalation: Escalation | undefined, env: NodeJS.ProcessEnv = process.env): SandboxChoice {
  const level = sandboxLevelFor(mode, configuredLevel(env));
  const network = env.CLAMP_SANDBOX_NETWORK === '1' || env.CLAMP_SANDBOX_NETWORK === 'true';
  const esc = level === 'off' || (escalation === 'network' && network) ? undefined : escalation;
  const choice: SandboxChoice = { level, network: network || esc === 'network', ...(esc ? { escalation: esc } : {}) };
  if (level !== 'off' && esc !== 'off') {
    const st = sandboxStatus(env);
    if (!st.available) choice.unavailable = st.problem;
  }
  return choice;
}

/** The spec the runner confines this call with; undefined when it runs unconfined (off, escalated, or no sandbox here). */
export function sandboxSpecFor(choice: SandboxChoice, ctx: ToolContext): SandboxSpec | undefined {
  if (choice.level === 'off' || choice.escalation === 'off' || choice.unavailable) return undefined;
  return { level: choice.level, workspace: ctx.workspace, dataDir: ctx.dataDir, scratchDir: path.join(ctx.dataDir, 'scratch'), network: choice.network };
}

const ESCALATION_TEXT: Record<Escalation, string> = {
  network: 'asks to run with network access (the rest of the sandbox stays)',
  off: 'asks to run OUTSIDE the sandbox: full access to your files, secrets and the network',
};

/**
 * The command judge's verdict with the sandbox folded in. An escalation always needs a person or a
 * saved rule for exactly that escalation (its rule keys start with `[network]` / `[off]`, so a rule for
 * the plain command never covers it); a sandbox that cannot start makes every command ask, and auto
 * mode refuse.
 */
export function withSandbox(base: CommandAssessment, choice: SandboxChoice, mode: string, reason: string | undefined): PolicyDecision {
  if (base.action === 'deny') return base;
  let d: PolicyDecision = base;
  if (choice.escalation) {
    const esc = choice.escalation;
    const keys = base.subRuleKeys.length ? base.subRuleKeys : base.subcommands;
    // an exact key (=…) stays exact: `=[off] curl …` covers that command only
    const subRuleKeys = base.opaque ? [] : keys.map((k) => (k.startsWith('=') ? `=[${esc}] ${k.slice(1)}` : `[${esc}] ${k}`));
    d = {
      ...base,
      action: 'ask',
      tier: 2,
      reason: `${ESCALATION_TEXT[esc]}, because: ${reason?.trim() || 'no reason given'} (the command: ${base.reason})`,
      subRuleKeys,
      ...(subRuleKeys.length ? { ruleKey: subRuleKeys.join(' && ') } : {}),
    };
    if (base.opaque) delete d.ruleKey;
  }
  if (choice.unavailable) {
    if (mode === 'auto') {
      return { ...d, action: 'deny', reason: `${choice.unavailable}. Auto mode runs no command without the sandbox; the person can turn it off explicitly` };
    }
    return { ...d, action: 'ask', opaque: true, reason: `${choice.unavailable}, so this command would run without the sandbox; ${d.reason}`, subRuleKeys: [] };
  }
  return d;
}
