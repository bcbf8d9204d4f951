import path from 'node:path';
import type { PolicyDecision, ToolContext } from '../../contract/types';
import type { SandboxSettings } from '../../contract/protocol';
import { sandboxRulesOf } from '../../contract/permission-rest';
import type { CommandAssessment } from '../../policy/command-safety';
import { parseSandboxLevel, sandboxLevelFor, sandboxStatus, type SandboxLevel, type SandboxSpec } from '../../exec/sandbox';
import { splitList } from '../../exec/sandbox-env';
import { sandboxLimitsOrDefault } from '../../exec/limits';

/**
 * How run_command uses the sandbox: the level from the mode (narrowed by CLAMP_SANDBOX or the settings
 * page), network from CLAMP_SANDBOX_NETWORK or the settings page, and what a call may ask for itself (`sandbox: "network" | "off"`, always
 * approved by a person or a saved rule, never by auto mode alone).
 */

export type Escalation = 'network' | 'off';

export interface SandboxChoice {
  level: SandboxLevel;
  /** the network is on for this call (settings or an approved escalation) */
  network: boolean;
  /** what the call asked for beyond the sandbox */
  escalation?: Escalation;
  /** the network is on because the person allowed it on this call's approval */
  approvedNetwork?: boolean;
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

/** ctx.services key set for one call whose approval said "allow network". */
export const APPROVED_NETWORK = 'approvedNetwork';

/** The network for this call, because the person allowed it on its approval (the rest of the sandbox stays). */
export function withApprovedNetwork(choice: SandboxChoice, ctx: Pick<ToolContext, 'services'>): SandboxChoice {
  if (ctx.services[APPROVED_NETWORK] !== true || choice.network || choice.level === 'off' || choice.escalation === 'off') return choice;
  return { ...choice, network: true, approvedNetwork: true };
}

/**
 * The sandbox settings the settings page saved, read at call time (the host puts a reader in
 * ctx.services.sandboxSettings, so a change applies to the next command).
 */
export function savedSandboxSettings(ctx: Pick<ToolContext, 'services'>): SandboxSettings | undefined {
  const read = ctx.services.sandboxSettings;
  return typeof read === 'function' ? (read as () => SandboxSettings)() : undefined;
}

/**
 * The sandbox this call runs in. Precedence, level and network each on their own: the environment
 * (CLAMP_SANDBOX, CLAMP_SANDBOX_NETWORK) when set, else the settings page, else the default (the mode's
 * level, no network). A level only narrows plan and debug (they stay read-only unless it is off).
 */
export function sandboxChoice(mode: string, escalation: Escalation | undefined, env: NodeJS.ProcessEnv = process.env, saved?: Pick<SandboxSettings, 'level' | 'network'>): SandboxChoice {
  const fromEnv = env.CLAMP_SANDBOX ? configuredLevel(env) : undefined;
  const fromSettings = saved && saved.level !== 'by-mode' ? saved.level : undefined;
  const level = sandboxLevelFor(mode, env.CLAMP_SANDBOX ? fromEnv : fromSettings);
  const envNetwork = env.CLAMP_SANDBOX_NETWORK;
  const network = envNetwork !== undefined && envNetwork !== '' ? envNetwork === '1' || envNetwork === 'true' : saved?.network === true;
  const esc = level === 'off' || (escalation === 'network' && network) ? undefined : escalation;
  const choice: SandboxChoice = { level, network: network || esc === 'network', ...(esc ? { escalation: esc } : {}) };
  if (level !== 'off' && esc !== 'off') {
    const st = sandboxStatus(env);
    if (!st.available) choice.unavailable = st.problem;
  }
  return choice;
}

/** The settings page's list and the environment variable's together (CLAMP_SANDBOX_ENV, _HIDE, _SHOW add to the page's). */
function both(saved: readonly string[] | undefined, env: string | undefined): string[] {
  return [...new Set([...(saved ?? []), ...splitList(env)])];
}

/**
 * The spec the runner confines this call with; undefined when it runs unconfined (off, escalated, or no sandbox
 * here). What the person added — variables to pass, paths to hide or show — comes from the settings page (read at
 * call time) and the environment; the limits from CLAMP_SANDBOX_LIMITS (the launcher has checked it).
 */
export function sandboxSpecFor(choice: SandboxChoice, ctx: ToolContext, env: NodeJS.ProcessEnv = process.env): SandboxSpec | undefined {
  if (choice.level === 'off' || choice.escalation === 'off' || choice.unavailable) return undefined;
  const saved = savedSandboxSettings(ctx);
  // the settings files' rules, while they are read: Read-denied paths hidden, the rules' own files read-only
  const rules = sandboxRulesOf(ctx.services);
  return {
    level: choice.level,
    workspace: ctx.workspace,
    dataDir: ctx.dataDir,
    scratchDir: path.join(ctx.dataDir, 'scratch'),
    network: choice.network,
    passEnv: both(saved?.passEnv, env.CLAMP_SANDBOX_ENV),
    hide: [...both(saved?.hide, env.CLAMP_SANDBOX_HIDE), ...(rules?.hide ?? [])],
    show: both(saved?.show, env.CLAMP_SANDBOX_SHOW),
    limits: sandboxLimitsOrDefault(env),
    ...(rules ? { readOnly: rules.readOnly, gitExcludes: rules.gitExcludes } : {}),
    ...(rules?.note ? { notes: [rules.note] } : {}),
  };
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
