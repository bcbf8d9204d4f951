import type { InferUIMessageChunk } from 'ai';
import type { Registry } from '../dispatch/registry';
import { lookupTool } from '../dispatch/registry';
import type { ClampMessage } from '../contract/protocol';
import type { ToolResult } from '../contract/types';

type Chunk = InferUIMessageChunk<ClampMessage>;
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
 * The UI stream's chunks with a data-tool-summary part after each call's input and again after its
 * result, so the page's cards and the approval bar show every tool from its declared summary; the
 * second replaces the first (same id). Every other chunk passes through unchanged, in order.
 */
export async function* withToolSummaries(chunks: AsyncIterable<Chunk>, reg: Registry, messages: readonly ClampMessage[]): AsyncGenerator<Chunk> {
  const known = knownCalls(messages);
  const summaryChunk = (toolCallId: string, summary: string): Chunk => ({
    type: 'data-tool-summary',
    id: `summary-${toolCallId}`,
    data: { toolCallId, summary },
  });
  for await (const chunk of chunks) {
    yield chunk;
    if (chunk.type === 'tool-input-available') {
      known.set(chunk.toolCallId, { toolName: chunk.toolName, input: chunk.input });
      const line = callSummary(reg, chunk.toolName, chunk.input);
      if (line !== undefined) yield summaryChunk(chunk.toolCallId, line);
    } else if (chunk.type === 'tool-output-available' && !chunk.preliminary) {
      const call = known.get(chunk.toolCallId);
      const result = chunk.output as ToolResult | undefined;
      if (!call || !result || typeof result !== 'object' || typeof result.output !== 'string') continue;
      const line = callSummary(reg, call.toolName, call.input, result);
      if (line !== undefined) yield summaryChunk(chunk.toolCallId, line);
    }
  }
}
