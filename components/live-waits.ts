import type { ClampMessage, StoredApproval } from '@/lib/contract/protocol';
import type { LiveWait } from '@/lib/contract/subagents';
import type { PendingCall } from './approval-bar';

/** The key of a call that waits while its turn runs: a child's call ids are its own session's, so the session is part of it. */
export const liveKey = (sessionId: string, toolCallId: string) => `${sessionId}/${toolCallId}`;

/**
 * Calls that wait for the person while the turn runs (a subagent's approval, ask_user's question):
 * the newest data-wait of each still pending, then stored ones the stream has not shown (a reload
 * mid-turn). They are answered through the approvals route of their own session, never through the
 * SDK's approval response.
 */
export function liveWaitsOf(messages: readonly ClampMessage[], stored: readonly StoredApproval[], answered: ReadonlySet<string>, parentSessionId: string): PendingCall[] {
  const latest = new Map<string, LiveWait>();
  for (const m of messages) for (const p of m.parts) if (p.type === 'data-wait') latest.set(liveKey(p.data.sessionId, p.data.toolCallId), p.data);
  const out: PendingCall[] = [];
  for (const [key, w] of latest) {
    if (w.state !== 'pending' || answered.has(key)) continue;
    out.push({ toolCallId: w.toolCallId, approvalId: key, toolName: w.toolName, input: w.input, info: w.info, sessionId: w.sessionId, live: true });
  }
  for (const s of stored) {
    const key = liveKey(s.sessionId, s.toolCallId);
    const live = !!s.info?.question || s.sessionId !== parentSessionId;
    if (!live || s.status !== 'pending' || latest.has(key) || answered.has(key)) continue;
    out.push({ toolCallId: s.toolCallId, approvalId: key, toolName: s.toolName, input: s.input, info: s.info, sessionId: s.sessionId, live: true });
  }
  return out;
}
