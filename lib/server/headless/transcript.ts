import type { UIMessageChunk } from 'ai';
import type { Registry } from '../../dispatch/registry';
import type { ToolResult } from '../../contract/types';
import { callSummary } from '../../agent/tool-summaries';
import { headBytes } from '../../contract/text';
import { limitText } from '../../contract/limits';
import type { RunSummary } from './outcome';

/** A transcript line's summary or first output line, at most (a terminal line, not what the model sees). */
const LINE_MAX_BYTES = 240;
/** A refusal's reason, at most. */
const REASON_MAX_BYTES = 2000;

interface Out {
  write(s: string): unknown;
}

/** The first line of a text, cut to fit one transcript line. */
function firstLine(text: string): string {
  const line = text.split('\n').find((l) => l.trim() !== '')?.trim() ?? '';
  const cut = headBytes(line, LINE_MAX_BYTES);
  return cut.length < line.length ? `${cut}…` : line;
}

/**
 * The text transcript of a headless run: the assistant's text as it streams, and one line per tool
 * call when it finishes (`[ok] read_file README.md · 20 lines`), with the first line of its output for a
 * refusal or an error; notices as `[warning] …`. Fed every chunk in order.
 */
export class Transcript {
  private readonly inputs = new Map<string, { toolName: string; input: unknown }>();
  private atLineStart = true;

  constructor(
    private readonly out: Out,
    private readonly reg: Registry,
  ) {}

  private line(s: string): void {
    if (!this.atLineStart) this.out.write('\n');
    this.out.write(s + '\n');
    this.atLineStart = true;
  }

  private callLine(toolCallId: string, status: string, result?: ToolResult, detail?: string): void {
    const call = this.inputs.get(toolCallId);
    const name = call?.toolName ?? 'tool';
    const summary = call ? callSummary(this.reg, name, call.input, result) : undefined;
    this.line(`[${status}] ${name}${summary ? ` ${firstLine(summary)}` : ''}`);
    // a refusal's reason says which flag would allow the call: shown whole (it is short); an error's first line
    if (detail) this.line(`    ${status === 'denied' ? headBytes(detail.trim(), REASON_MAX_BYTES).replace(/\n/g, '\n    ') : firstLine(detail)}`);
  }

  /** Render one chunk. */
  note(chunk: UIMessageChunk): void {
    switch (chunk.type) {
      case 'text-delta':
        if (!chunk.delta) break;
        this.out.write(chunk.delta);
        this.atLineStart = chunk.delta.endsWith('\n');
        break;
      case 'text-end':
        if (!this.atLineStart) this.out.write('\n');
        this.atLineStart = true;
        break;
      case 'tool-input-available':
        this.inputs.set(chunk.toolCallId, { toolName: chunk.toolName, input: chunk.input });
        break;
      case 'tool-input-error':
        this.inputs.set(chunk.toolCallId, { toolName: chunk.toolName, input: chunk.input });
        this.callLine(chunk.toolCallId, 'error', undefined, chunk.errorText);
        break;
      case 'tool-output-available': {
        if (chunk.preliminary) break;
        const r = chunk.output as ToolResult;
        const status = r?.status ?? 'ok';
        this.callLine(chunk.toolCallId, status, r, status === 'ok' ? undefined : r?.output);
        break;
      }
      case 'tool-output-error':
        this.callLine(chunk.toolCallId, 'error', undefined, chunk.errorText);
        break;
      case 'tool-output-denied':
        this.callLine(chunk.toolCallId, 'denied');
        break;
      case 'data-notice': {
        const n = chunk.data as { level: string; message: string; next?: string };
        this.line(`[${n.level}] ${n.message}${n.next ? ` ${n.next}` : ''}`);
        break;
      }
      case 'abort':
        this.line('[stopped]');
        break;
    }
  }

  /** The closing line, on the error stream: how the run ended, and the session to continue. */
  static closing(s: RunSummary): string {
    const refused = s.refused.length ? ` · ${s.refused.length} refused` : '';
    const why: Record<RunSummary['end'], string> = {
      completed: 'done',
      'provider-error': `provider error: ${s.error ?? ''}`.trim(),
      denied: 'done, with refused calls',
      'step-limit': 'stopped at the step limit with calls still to make (raise --max-steps, or continue with --session)',
      stopped: 'stopped',
      'spending-limit': `${s.limit ? limitText(s.limit) : 'a spending limit was reached.'} Stopped before the next model request (raise --max-tokens/--max-cost or the settings' limit, and continue with --session)`,
    };
    return `clamp run: ${why[s.end]} · ${s.steps} step(s) · ${s.toolCalls} tool call(s)${refused} · exit ${s.exitCode} · continue with --session ${s.sessionId}\n`;
  }
}
