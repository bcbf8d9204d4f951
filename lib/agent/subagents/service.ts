import type { SubagentService } from '../../contract/subagents';
import { runChild, type SubagentDeps } from './run-child';

/**
 * The turn's subagents (ctx.services.subagents). explore children run side by side (the scheduler
 * runs the parent's `agent` calls, read-class, in parallel); general children may change files and
 * run commands, so they run one at a time, in call order.
 */
export function createSubagents(d: SubagentDeps): SubagentService {
  let general: Promise<unknown> = Promise.resolve();
  return {
    run: (req, parentCallId, signal) => {
      if (req.type !== 'general') return runChild(d, req, parentCallId, signal);
      const mine = general.then(() => runChild(d, req, parentCallId, signal));
      general = mine.catch(() => undefined);
      return mine;
    },
  };
}
