import { getToolName, isToolUIPart, type DynamicToolUIPart, type ToolUIPart } from 'ai';
import type { ClampDataParts, ClampMessage, CompactionInfo } from '@/lib/contract/protocol';
import type { ClampUITools } from '@/lib/contract/tool-types';

type ToolPart = ToolUIPart<ClampUITools> | DynamicToolUIPart;

const OPEN_TOOLS = new Set(['run_command', 'edit_file', 'write_file', 'apply_patch']);

interface RowBase {
  /** stable across renders and streaming: the virtual list measures and keeps rows by it */
  key: string;
  messageId: string;
  /** the last row of its message (more space after it) */
  last: boolean;
}

/** One row of the virtualised conversation: a user message, or one visible part of an assistant message. */
export type ChatRow =
  | (RowBase & { kind: 'user'; text: string })
  | (RowBase & { kind: 'text'; text: string })
  | (RowBase & { kind: 'reasoning'; text: string })
  /** summary: the call in one line, from its tool's summary() (the message's data-tool-summary parts) */
  | (RowBase & { kind: 'tool'; part: ToolPart; summary?: string })
  | (RowBase & { kind: 'notice'; notice: ClampDataParts['notice'] })
  /** where older messages were summarised for the model (they stay in the list above it) */
  | (RowBase & { kind: 'compaction'; compaction: CompactionInfo })
  /** "Working…" while a request waits for its first chunk */
  | (RowBase & { kind: 'working' });

export type ChatRowKind = ChatRow['kind'];

/**
 * The conversation as a flat list of rows, in order, so a session of 1,000 tool calls in one
 * assistant message still mounts only the rows on screen. Empty text and reasoning parts and data
 * parts the header or panels show make no row. `hideErrorNoticeOf`: the message whose error notice
 * the chat's error line shows instead; `working` adds the "Working…" row at the end.
 */
export function rowsOf(messages: readonly ClampMessage[], { hideErrorNoticeOf, working = false }: { hideErrorNoticeOf?: string; working?: boolean } = {}): ChatRow[] {
  const rows: ChatRow[] = [];
  const compactions = new Set<string>();
  for (const m of messages) {
    const start = rows.length;
    if (m.role === 'user') {
      rows.push({ kind: 'user', key: `${m.id}:u`, messageId: m.id, last: false, text: m.parts.map((p) => (p.type === 'text' ? p.text : '')).join('') });
    } else {
      // a system message shows only its compaction divider, if it carries one
      const shown = m.role === 'assistant';
      // each call's one-line summary, from its tool (the server sends it with the input and again with the result)
      const summaries = new Map<string, string>();
      if (shown) for (const p of m.parts) if (p.type === 'data-tool-summary') summaries.set(p.data.toolCallId, p.data.summary);
      m.parts.forEach((part, i) => {
        const base = { messageId: m.id, last: false };
        if (part.type === 'data-compaction') {
          if (compactions.has(part.data.id)) return;
          compactions.add(part.data.id);
          rows.push({ ...base, kind: 'compaction', key: `${m.id}:k:${part.data.id}`, compaction: part.data });
        }
        else if (!shown) return;
        else if (isToolUIPart(part)) rows.push({ ...base, kind: 'tool', key: `${m.id}:c:${part.toolCallId}`, part, summary: summaries.get(part.toolCallId) });
        else if (part.type === 'text' && part.text.trim()) rows.push({ ...base, kind: 'text', key: `${m.id}:t${i}`, text: part.text });
        else if (part.type === 'reasoning' && part.text.trim()) rows.push({ ...base, kind: 'reasoning', key: `${m.id}:r${i}`, text: part.text });
        else if (part.type === 'data-notice' && !(hideErrorNoticeOf === m.id && part.data.level === 'error'))
          rows.push({ ...base, kind: 'notice', key: `${m.id}:n${part.id ?? i}`, notice: part.data });
      });
    }
    if (rows.length > start) rows[rows.length - 1].last = true;
  }
  if (working) rows.push({ kind: 'working', key: 'working', messageId: '', last: true });
  return rows;
}

/** A first guess at a row's height in px, before it is measured (closer guesses jump less while scrolling). */
export function estimateRowPx(row: ChatRow | undefined): number {
  switch (row?.kind) {
    case 'user':
      // the text and its rewind controls
      return 74;
    case 'text':
      return 24 + Math.min(400, Math.ceil(row.text.length / 90) * 22);
    case 'reasoning':
      return 28;
    case 'tool':
      // run_command, edits and errors open with their body shown
      return row.part.state === 'output-error' || OPEN_TOOLS.has(getToolName(row.part)) ? 160 : 44;
    case 'notice':
      return 64;
    case 'compaction':
      return 56;
    default:
      return 40;
  }
}
