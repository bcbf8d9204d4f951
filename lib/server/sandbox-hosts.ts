import type { Db } from '../store/db';
import { addRule, listSessionRules } from '../store/rules';
import type { SandboxHostsService } from '../tools/commands/net-join';

/** The rules' tool name under which a session's allowed hosts are kept (no tool has it, so no call matches it). */
export const SANDBOX_HOST_RULE = 'sandbox-host';

/**
 * A session's allowed hosts for the sandbox's proxy, kept as session rules (they last as long as the session,
 * across restarts, and go with it); `sessionId` is the session the person works in (a subagent's parent).
 */
export function sandboxHostsOf(db: Db, workspace: string, sessionId: string): SandboxHostsService {
  return {
    key: sessionId,
    list: () => listSessionRules(db, sessionId).filter((r) => r.tool === SANDBOX_HOST_RULE && r.action === 'allow').map((r) => r.pattern),
    grant: (hosts) => {
      for (const pattern of hosts) addRule(db, { workspace, sessionId, tool: SANDBOX_HOST_RULE, pattern, action: 'allow' });
    },
  };
}
