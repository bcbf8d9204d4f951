import type { AgentContext, PermissionOption } from '@agentclientprotocol/sdk';
import type { AskAnswer, AskQuestion, AskService } from '../../contract/subagents';

/** Why an open question is not put to the editor: the protocol offers a choice of options, not a text box. */
export const OPEN_QUESTION_IN_EDITOR =
  'the person works in an editor (ACP) that can pick one of the choices you offer but cannot type an answer during the turn; ask again with choices, or end the turn with the question in your reply and they answer in their next message';

const DECLINE = 'decline';

/** The options of a question with choices: one per choice, then declining. */
function choiceOptions(choices: readonly string[]): PermissionOption[] {
  return [...choices.map((c, i) => ({ optionId: `choice-${i}`, name: c, kind: 'allow_once' as const })), { optionId: DECLINE, name: 'Decline to answer', kind: 'reject_once' }];
}

/**
 * ask_user in an editor's session: a question with choices goes to the editor as `session/request_permission`
 * on the call (one option per choice, and declining); the option picked is the answer. An open question cannot be
 * answered there, so the model is told at once to offer choices or ask in its reply. A cancelled prompt stops the
 * wait; an editor that fails to answer counts as declining.
 */
export function editorAsk(client: AgentContext, sessionId: string): AskService {
  return async (q: AskQuestion, toolCallId: string, signal: AbortSignal): Promise<AskAnswer> => {
    const choices = q.choices ?? [];
    if (!choices.length) return { kind: 'declined', reason: OPEN_QUESTION_IN_EDITOR };
    try {
      const r = await client.request(
        'session/request_permission',
        { sessionId, toolCall: { toolCallId, title: q.question, kind: 'other', status: 'pending', rawInput: q }, options: choiceOptions(choices) },
        { cancellationSignal: signal, stopWaitingOnCancel: true },
      );
      if (signal.aborted) return { kind: 'stopped' };
      if (r.outcome.outcome !== 'selected') return { kind: 'declined', reason: 'the editor closed the question without an answer' };
      const picked = /^choice-(\d+)$/.exec(r.outcome.optionId);
      const text = picked ? choices[Number(picked[1])] : undefined;
      return text !== undefined ? { kind: 'answer', text } : { kind: 'declined' };
    } catch (err) {
      if (signal.aborted) return { kind: 'stopped' };
      return { kind: 'declined', reason: `the editor did not answer (${err instanceof Error ? err.message : String(err)})` };
    }
  };
}
