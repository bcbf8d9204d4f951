import type { SessionUpdate } from '@agentclientprotocol/sdk';
import type { ClampMessage } from '../../contract/protocol';
import type { TodoItem } from '../../contract/types';
import type { Registry } from '../../dispatch/registry';
import { planEntries } from './relay';
import { asResult, callView, resultContent, statusOf } from './tool-view';

type AnyPart = { type: string; text?: string; toolCallId?: string; toolName?: string; input?: unknown; state?: string; output?: unknown; errorText?: string; data?: unknown };

/** A stored tool part as the protocol's finished (or still waiting) tool call. */
function toolCallOf(p: AnyPart, reg: Registry, workspace: string): SessionUpdate {
  const toolName = p.type === 'dynamic-tool' ? String(p.toolName) : p.type.slice('tool-'.length);
  const view = callView(reg, workspace, toolName, p.input);
  const base = { sessionUpdate: 'tool_call' as const, toolCallId: p.toolCallId!, ...view, rawInput: p.input };
  if (p.state === 'output-available') {
    const r = asResult(p.output, 'The call ended without a result.');
    return { ...base, status: statusOf(r), content: resultContent(r, workspace) };
  }
  if (p.state === 'output-error' || p.state === 'output-denied') {
    const text = p.errorText ?? (p.state === 'output-denied' ? 'The call was denied.' : 'The call failed.');
    return { ...base, status: 'failed', content: [{ type: 'content', content: { type: 'text', text } }] };
  }
  return { ...base, status: 'pending' };
}

/**
 * A stored conversation as `session/update` notifications, for `session/load`: each user message's text, the
 * assistant's text and reasoning, every tool call with its final status and content, and the latest plan.
 */
export function replayUpdates(messages: readonly ClampMessage[], reg: Registry, workspace: string): SessionUpdate[] {
  const out: SessionUpdate[] = [];
  let plan: TodoItem[] | undefined;
  for (const m of messages) {
    for (const part of m.parts as AnyPart[]) {
      if (part.type === 'text' && part.text) {
        out.push({ sessionUpdate: m.role === 'user' ? 'user_message_chunk' : 'agent_message_chunk', content: { type: 'text', text: part.text } });
      } else if (part.type === 'reasoning' && part.text) {
        out.push({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: part.text } });
      } else if ((part.type.startsWith('tool-') || part.type === 'dynamic-tool') && part.toolCallId) {
        out.push(toolCallOf(part, reg, workspace));
        const todos = (asResult(part.output, '').meta as { todos?: TodoItem[] } | undefined)?.todos;
        if (Array.isArray(todos)) plan = todos;
      }
    }
  }
  if (plan) out.push({ sessionUpdate: 'plan', entries: planEntries(plan) });
  return out;
}
