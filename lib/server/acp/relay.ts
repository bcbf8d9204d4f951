import type { UIMessageChunk } from 'ai';
import type { PlanEntry, SessionUpdate, ToolCallContent } from '@agentclientprotocol/sdk';
import type { ApprovalInfo } from '../../contract/protocol';
import type { TodoItem, ToolResult } from '../../contract/types';
import type { Registry } from '../../dispatch/registry';
import { asResult, callView, resultContent, statusOf } from './tool-view';

/** A call that waits for the person's answer when the turn's stream ends. */
export interface PendingCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
  /** what the page's approval bar shows: the policy's verdict, the preview's diff */
  info?: ApprovalInfo;
}

/** What the relay needs: the turn's tools (titles, kinds, paths), the folder it works in, and where updates go. */
export interface RelayTarget {
  reg: Registry;
  workspace: string;
  send: (update: SessionUpdate) => void;
  /** a call finished with this result (an editor's buffers follow the files it wrote) */
  onResult?: (toolCallId: string, toolName: string, input: unknown, r: ToolResult) => void;
}

/** The plan (todo_write's items) as the protocol's plan entries; a cancelled item stays, marked. */
export function planEntries(items: readonly TodoItem[]): PlanEntry[] {
  return items.map((t) => ({
    content: t.status === 'cancelled' ? `${t.content} (cancelled)` : t.content,
    priority: 'medium',
    status: t.status === 'cancelled' ? 'completed' : t.status,
  }));
}

/**
 * One turn's stream of UI message chunks, told to the editor as `session/update` notifications: text and
 * reasoning as message and thought chunks, each tool call as `tool_call` then `tool_call_update`s (its input,
 * its output as it runs, its result), the plan, and notices. Remembers what the turn's end needs: the assistant
 * message's id, the calls waiting for approval, and whether it was stopped or failed. One relay serves a prompt's
 * streams, the continuations after approvals included.
 */
export class TurnRelay {
  messageId: string | undefined;
  aborted = false;
  errorText: string | undefined;
  private readonly calls = new Map<string, { toolName: string; input: unknown; running: boolean }>();
  private readonly infos = new Map<string, ApprovalInfo>();
  private readonly waiting: string[] = [];
  /** the latest step's calls and the results they got: a step whose calls all have results is followed by another, unless the step limit ended the turn */
  private stepCalls = 0;
  private stepResults = 0;

  constructor(private readonly t: RelayTarget) {}

  /** A continuation's stream follows (after the person's answers): the calls stay known, the waiting ones are answered. */
  nextStream(): void {
    this.waiting.length = 0;
  }

  /** The turn stopped at the step limit with calls still to follow up (clamp run's "step-limit"). */
  stepLimited(): boolean {
    return this.stepCalls > 0 && this.stepResults >= this.stepCalls;
  }

  /** The calls that wait for the person, in the order the model made them. */
  pending(): PendingCall[] {
    return this.waiting.map((id) => ({ toolCallId: id, toolName: this.calls.get(id)?.toolName ?? 'tool', input: this.calls.get(id)?.input, info: this.infos.get(id) }));
  }

  /** Tell one chunk. */
  note(c: UIMessageChunk): void {
    switch (c.type) {
      case 'start':
        if (c.messageId) this.messageId = c.messageId;
        break;
      case 'start-step':
        this.stepCalls = 0;
        this.stepResults = 0;
        break;
      case 'text-delta':
        if (c.delta) this.t.send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: c.delta } });
        break;
      case 'reasoning-delta':
        if (c.delta) this.t.send({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: c.delta } });
        break;
      case 'tool-input-start':
        this.calls.set(c.toolCallId, { toolName: c.toolName, input: undefined, running: false });
        this.t.send({ sessionUpdate: 'tool_call', toolCallId: c.toolCallId, ...callView(this.t.reg, this.t.workspace, c.toolName, undefined), status: 'pending' });
        break;
      case 'tool-input-available':
      case 'tool-input-error':
        this.inputKnown(c.toolCallId, c.toolName, c.input, c.type === 'tool-input-error' ? c.errorText : undefined);
        break;
      case 'tool-approval-request':
        this.waiting.push(c.toolCallId);
        break;
      default:
        this.noteMore(c);
    }
  }

  private noteMore(c: UIMessageChunk): void {
    switch (c.type) {
      case 'tool-output-available':
        if (!c.preliminary) this.finished(c.toolCallId, asResult(c.output, 'The call ended without a result.'));
        break;
      case 'tool-output-error':
        this.finished(c.toolCallId, { status: 'error', output: c.errorText, truncation: null });
        break;
      case 'tool-output-denied':
        this.finished(c.toolCallId, { status: 'denied', output: 'The call was denied.', truncation: null });
        break;
      case 'abort':
        this.aborted = true;
        break;
      case 'error':
        this.errorText ??= c.errorText;
        break;
      default:
        this.noteData(c);
    }
  }

  /** Clamp's data parts: a command's live output marks its call running; the plan; approval details; notices. */
  private noteData(c: UIMessageChunk): void {
    if (c.type === 'data-tool-progress') {
      const { toolCallId } = c.data as { toolCallId: string };
      this.running(toolCallId);
    } else if (c.type === 'data-todos') {
      const { items } = c.data as { items: TodoItem[] };
      this.t.send({ sessionUpdate: 'plan', entries: planEntries(items) });
    } else if (c.type === 'data-approval-info') {
      const info = c.data as ApprovalInfo;
      this.infos.set(info.toolCallId, info);
    } else if (c.type === 'data-notice') {
      const n = c.data as { level: string; message: string; next?: string };
      if (n.level !== 'info') this.t.send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `\n[${n.level}] ${n.message}${n.next ? ` ${n.next}` : ''}\n` } });
    }
  }

  /** A call about to run (the host's beforeRun), allowed after waiting for approval, or whose output started: in progress. */
  running(toolCallId: string): void {
    const call = this.calls.get(toolCallId);
    if (!call || call.running) return;
    call.running = true;
    this.t.send({ sessionUpdate: 'tool_call_update', toolCallId, status: 'in_progress' });
  }

  private inputKnown(toolCallId: string, toolName: string, input: unknown, errorText?: string): void {
    const known = this.calls.get(toolCallId);
    this.stepCalls++;
    this.calls.set(toolCallId, { toolName, input, running: known?.running ?? false });
    const view = callView(this.t.reg, this.t.workspace, toolName, input);
    const failed = errorText ? { status: 'failed' as const, content: [{ type: 'content' as const, content: { type: 'text' as const, text: errorText } }] } : {};
    if (known) this.t.send({ sessionUpdate: 'tool_call_update', toolCallId, ...view, rawInput: input, ...failed });
    else this.t.send({ sessionUpdate: 'tool_call', toolCallId, ...view, rawInput: input, status: 'pending', ...failed });
  }

  private finished(toolCallId: string, r: ToolResult): void {
    const call = this.calls.get(toolCallId);
    this.stepResults++;
    const content: ToolCallContent[] = resultContent(r, this.t.workspace);
    this.t.send({ sessionUpdate: 'tool_call_update', toolCallId, status: statusOf(r), content });
    if (call) this.t.onResult?.(toolCallId, call.toolName, call.input, r);
  }
}
