import type { PermissionMode, PolicyDecision, SideEffect } from '../contract/types';

/** Whether a mode lists (and allows at all) tools of this side-effect class. */
export function modeAllowsEffect(mode: PermissionMode, effect: SideEffect): boolean {
  if (mode === 'plan') return effect === 'read';
  if (mode === 'debug') return effect !== 'write';
  return true;
}

/** The mode's own verdict for an effect class, before any tool-specific policy. */
export function modeDecision(mode: PermissionMode, effect: SideEffect): PolicyDecision {
  if (!modeAllowsEffect(mode, effect)) {
    const what = effect === 'write' ? 'file changes' : 'commands and other system calls';
    return {
      action: 'deny',
      reason: `${what} are not allowed in ${mode} mode`,
    };
  }
  if (effect === 'read') return { action: 'allow', reason: 'read-only tool' };
  if (mode === 'auto') return { action: 'allow', reason: 'auto mode runs without asking' };
  if (effect === 'write' && mode === 'accept-edits') return { action: 'allow', reason: 'accept-edits mode applies file changes without asking' };
  return { action: 'ask', reason: effect === 'write' ? 'changes files in the workspace' : 'runs a process on this machine' };
}

/**
 * Combine the mode's verdict with a tool's own policy (command safety).
 * deny beats everything; a tier-2 or opaque "ask" is denied in auto mode (nobody is there to ask);
 * a tool "allow" (a known read-only command) runs without asking in every mode that lists the tool.
 */
export function combineDecisions(mode: PermissionMode, byMode: PolicyDecision, byTool: PolicyDecision | undefined): PolicyDecision {
  if (byMode.action === 'deny') return byMode;
  if (!byTool) return byMode;
  if (byTool.action === 'deny') return byTool;
  if (byTool.action === 'allow') return { ...byTool, action: byMode.action === 'ask' || byMode.action === 'allow' ? 'allow' : byMode.action };
  // the tool asks
  if (mode === 'auto') {
    if (byTool.tier === 2 || byTool.opaque) {
      return { ...byTool, action: 'deny', reason: `${byTool.reason}; auto mode refuses this unless a saved rule allows it` };
    }
    return { ...byTool, action: 'allow' };
  }
  return { ...byTool, action: 'ask' };
}
