import type { InferUIMessageChunk } from 'ai';
import type { Registry } from '../dispatch/registry';
import { lookupTool } from '../dispatch/registry';
import type { ClampDataParts, ClampMessage } from '../contract/protocol';
import { traitsOf, type ToolResult } from '../contract/types';

type Chunk = InferUIMessageChunk<ClampMessage>;
type SummaryData = ClampDataParts['tool-summary'];
type Known = Map<string, { toolName: string; input: unknown }>;

/** The calls of a conversation with their input, so a resumed call (an approval) still gets its summary. */
function knownCalls(messages: readonly ClampMessage[]): Known {
  const known: Known = new Map();
  for (const m of messages) {
    for (const p of m.parts) {
      if (!p.type.startsWith('tool-') || !('toolCallId' in p) || !('input' in p) || p.input === undefined) continue;
      known.set(p.toolCallId, { toolName: p.type.slice('tool-'.length), input: p.input });
    }
  }
  return known;
}

/**
 * A call in one line from its tool's own summary(), or undefined when the tool is unknown, the input
 * does not match its schema (dispatch will say so) or the summary throws. Never throws.
 */
export function callSummary(reg: Registry, toolName: string, input: unknown, result?: ToolResult): string | undefined {
  const tool = lookupTool(reg, toolName);
  if (!tool) return undefined;
  const parsed = tool.schema.safeParse(input ?? {});
  if (!parsed.success) return undefined;
  try {
    const line = tool.summary(parsed.data, result);
    return typeof line === 'string' ? line : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A call's data-tool-summary data: its one line (callSummary) and, when its tool's traits open its
 * card, open. Undefined when there is no line. Never throws.
 */
export function toolSummaryData(reg: Registry, toolCallId: string, toolName: string, input: unknown, result?: ToolResult): SummaryData | undefined {
  const summary = callSummary(reg, toolName, input, result);
  if (summary === undefined) return undefined;
  const tool = lookupTool(reg, toolName);
  return { toolCallId, summary, ...(tool && traitsOf(tool).cardOpen ? { open: true as const } : {}) };
}

/**
 * The UI stream's chunks with a data-tool-summary part after each call's input and again after its
 * result, so the page's cards and the approval bar show every tool from its declared summary; the
 * second replaces the first (same id). Every other chunk passes through unchanged, in order.
 */
export async function* withToolSummaries(chunks: AsyncIterable<Chunk>, reg: Registry, messages: readonly ClampMessage[]): AsyncGenerator<Chunk> {
  const next = toolSummarizer(reg, messages);
  for await (const chunk of chunks) yield* next(chunk);
}

/** withToolSummaries one chunk at a time, for a reader of the stream (no generator between): the chunk, then its summary if it has one. */
export function toolSummarizer(reg: Registry, messages: readonly ClampMessage[]): (chunk: Chunk) => Chunk[] {
  const known = knownCalls(messages);
  const summaryChunk = (data: SummaryData): Chunk => ({ type: 'data-tool-summary', id: `summary-${data.toolCallId}`, data });
  return (chunk) => {
    if (chunk.type === 'tool-input-available') {
      known.set(chunk.toolCallId, { toolName: chunk.toolName, input: chunk.input });
      const data = toolSummaryData(reg, chunk.toolCallId, chunk.toolName, chunk.input);
      return data ? [chunk, summaryChunk(data)] : [chunk];
    }
    if (chunk.type === 'tool-output-available' && !chunk.preliminary) {
      const call = known.get(chunk.toolCallId);
      const result = chunk.output as ToolResult | undefined;
      if (!call || !result || typeof result !== 'object' || typeof result.output !== 'string') return [chunk];
      const data = toolSummaryData(reg, chunk.toolCallId, call.toolName, call.input, result);
      return data ? [chunk, summaryChunk(data)] : [chunk];
    }
    return [chunk];
  };
}
