import type { UIMessageChunk } from 'ai';
import type { ToolResult } from '../../contract/types';
import { EXIT } from './args';
import type { LimitHit } from '../../contract/limits';

export type RunEnd = 'completed' | 'provider-error' | 'denied' | 'step-limit' | 'stopped' | 'spending-limit';

/** A refused call, as the summary lists it. */
export interface RefusedCall {
  toolCallId: string;
  toolName: string;
  reason: string;
}

/** The final JSON event of a --json run (also what the exit status is decided from). */
export interface RunSummary {
  type: 'clamp-summary';
  sessionId: string;
  /** the assistant message this run wrote */
  messageId: string | null;
  end: RunEnd;
  exitCode: number;
  steps: number;
  toolCalls: number;
  refused: RefusedCall[];
  /** the provider's error text, when end is provider-error */
  error?: string;
  /** the spending limit the turn stopped at, when end is spending-limit */
  limit?: LimitHit;
  /** the assistant's text of the last step */
  text: string;
  durationMs: number;
}

/** What a run's chunks add up to: calls, refusals, errors, steps and the last step's text. Fed every chunk in order. */
export class RunTracker {
  private readonly calls = new Map<string, string>();
  private readonly refusedCalls: RefusedCall[] = [];
  private errorText: string | undefined;
  private aborted = false;
  private steps = 0;
  private stepCalls = 0;
  private stepResults = 0;
  private lastText = '';
  private messageId: string | null = null;
  private readonly startedAt = Date.now();

  constructor(private readonly sessionId: string) {}

  /** Note one chunk of the UI message stream. */
  note(chunk: UIMessageChunk): void {
    switch (chunk.type) {
      case 'start':
        if (chunk.messageId) this.messageId = chunk.messageId;
        break;
      case 'start-step':
        this.steps++;
        this.stepCalls = 0;
        this.stepResults = 0;
        this.lastText = '';
        break;
      case 'text-delta':
        this.lastText += chunk.delta;
        break;
      case 'tool-input-available':
      case 'tool-input-error':
        this.calls.set(chunk.toolCallId, chunk.toolName);
        this.stepCalls++;
        break;
      case 'tool-output-available': {
        if (chunk.preliminary) break;
        this.stepResults++;
        const r = chunk.output as ToolResult | undefined;
        if (r && r.status === 'denied') {
          this.refusedCalls.push({ toolCallId: chunk.toolCallId, toolName: this.calls.get(chunk.toolCallId) ?? 'unknown', reason: r.output });
        }
        break;
      }
      case 'tool-output-error':
        this.stepResults++;
        break;
      case 'tool-output-denied':
        this.stepResults++;
        this.refusedCalls.push({ toolCallId: chunk.toolCallId, toolName: this.calls.get(chunk.toolCallId) ?? 'unknown', reason: 'denied' });
        break;
      case 'error':
        this.errorText ??= chunk.errorText;
        break;
      case 'abort':
        this.aborted = true;
        break;
    }
  }

  /** The run's end and summary. `stopped`: the run was stopped by a signal (its abort chunk may not have come). */
  summary(o: { stopped?: boolean; signalExit?: number; limit?: LimitHit | null } = {}): RunSummary {
    let end: RunEnd;
    let exitCode: number;
    if (this.aborted || o.stopped) {
      end = 'stopped';
      exitCode = o.signalExit ?? EXIT.interrupted;
    } else if (this.errorText !== undefined) {
      end = 'provider-error';
      exitCode = EXIT.providerError;
    } else if (o.limit) {
      end = 'spending-limit';
      exitCode = EXIT.limit;
    } else if (this.stepCalls > 0 && this.stepResults >= this.stepCalls) {
      // a step whose calls all have results is followed by another step, unless the step limit stopped the loop
      end = 'step-limit';
      exitCode = EXIT.stepLimit;
    } else if (this.refusedCalls.length > 0) {
      end = 'denied';
      exitCode = EXIT.denied;
    } else {
      end = 'completed';
      exitCode = EXIT.ok;
    }
    return {
      type: 'clamp-summary',
      sessionId: this.sessionId,
      messageId: this.messageId,
      end,
      exitCode,
      steps: this.steps,
      toolCalls: this.calls.size,
      refused: this.refusedCalls,
      ...(this.errorText !== undefined ? { error: this.errorText } : {}),
      ...(o.limit && end === 'spending-limit' ? { limit: o.limit } : {}),
      text: this.lastText,
      durationMs: Date.now() - this.startedAt,
    };
  }
}
