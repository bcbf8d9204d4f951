import { isToolUIPart, type DynamicToolUIPart, type ToolUIPart } from 'ai';
import type { AttachmentInfo, ClampDataParts, ClampMessage, CompactionInfo, RewindNote } from '@/lib/contract/protocol';
import type { ClampUITools } from '@/lib/contract/tool-types';
import type { SubagentView } from '@/lib/contract/subagents';
import type { DiagnosticsMeta } from '@/lib/contract/diagnostics';

type ToolPart = ToolUIPart<ClampUITools> | DynamicToolUIPart;

interface RowBase {
  /** stable across renders and streaming: the virtual list measures and keeps rows by it */
  key: string;
  messageId: string;
  /** the last row of its message (more space after it) */
  last: boolean;
}

/** One row of the virtualised conversation: a user message, or one visible part of an assistant message. */
export type ChatRow =
  /** attachments: what the model read for each @-mention and attached text file; images: the attached pictures; skill: sent as /<skill> */
  | (RowBase & { kind: 'user'; text: string; attachments?: AttachmentInfo[]; images?: { url: string; name: string }[]; skill?: string })
  /** the session's model changed here ("Model: X → Y") */
  | (RowBase & { kind: 'model-switch'; from: string; to: string })
  | (RowBase & { kind: 'text'; text: string })
  | (RowBase & { kind: 'reasoning'; text: string })
  /**
   * summary: the call in one line, from its tool's summary() (the message's data-tool-summary parts); open: its
   * tool's traits open its card (the same part says); late: its diagnostics that came after its result
   */
  | (RowBase & { kind: 'tool'; part: ToolPart; summary?: string; open?: true; late?: DiagnosticsMeta })
  | (RowBase & { kind: 'notice'; notice: ClampDataParts['notice'] })
  /** where older messages were summarised for the model (they stay in the list above it) */
  | (RowBase & { kind: 'compaction'; compaction: CompactionInfo })
  /** where a rewind happened (the server's note, a user message of its own): what it restored, the branch */
  | (RowBase & { kind: 'rewind'; note: RewindNote })
  /** "Working…" while a request waits for its first chunk */
  | (RowBase & { kind: 'working' })
  /** a subagent's calls, under its parent's `agent` card */
  | (RowBase & { kind: 'subagent'; view: SubagentView });

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
  const lates = lateDiagnosticsOf(messages);
  for (const m of messages) {
    const start = rows.length;
    const rewound = m.role === 'user' ? m.parts.find((p) => p.type === 'data-rewind') : undefined;
    if (rewound) rows.push({ kind: 'rewind', key: `${m.id}:w`, messageId: m.id, last: false, note: rewound.data });
    else if (m.role === 'user') {
      rows.push({ kind: 'user', key: `${m.id}:u`, messageId: m.id, last: false, text: m.parts.map((p) => (p.type === 'text' ? p.text : '')).join(''), ...userExtras(m) });
    } else {
      // a system message shows only its compaction divider, if it carries one
      const shown = m.role === 'assistant';
      // each call's one-line summary, from its tool (the server sends it with the input and again with the result)
      const summaries = new Map<string, ClampDataParts['tool-summary']>();
      if (shown) for (const p of m.parts) if (p.type === 'data-tool-summary') summaries.set(p.data.toolCallId, p.data);
      const subagents = new Map<string, SubagentView>();
      if (shown) for (const p of m.parts) if (p.type === 'data-subagent') subagents.set(p.data.toolCallId, p.data);
      m.parts.forEach((part, i) => {
        const base = { messageId: m.id, last: false };
        if (part.type === 'data-compaction') {
          if (compactions.has(part.data.id)) return;
          compactions.add(part.data.id);
          rows.push({ ...base, kind: 'compaction', key: `${m.id}:k:${part.data.id}`, compaction: part.data });
        }
        else if (!shown) return;
        else if (isToolUIPart(part)) {
          const late = lates.size ? lates.get(pendingIdOf(part) ?? '') : undefined;
          const line = summaries.get(part.toolCallId);
          rows.push({ ...base, kind: 'tool', key: `${m.id}:c:${part.toolCallId}`, part, summary: line?.summary, ...(line?.open ? { open: true } : {}), ...(late ? { late } : {}) });
          const sub = subagents.get(part.toolCallId);
          if (sub) rows.push({ ...base, kind: 'subagent', key: `${m.id}:s:${part.toolCallId}`, view: sub });
        }
        else if (part.type === 'text' && part.text.trim()) rows.push({ ...base, kind: 'text', key: `${m.id}:t${i}`, text: part.text });
        else if (part.type === 'reasoning' && part.text.trim()) rows.push({ ...base, kind: 'reasoning', key: `${m.id}:r${i}`, text: part.text });
        else if (part.type === 'data-model-switch') rows.push({ ...base, kind: 'model-switch', key: `${m.id}:m${part.id ?? i}`, from: part.data.from, to: part.data.to });
        else if (part.type === 'data-notice' && !(hideErrorNoticeOf === m.id && part.data.level === 'error'))
          rows.push({ ...base, kind: 'notice', key: `${m.id}:n${part.id ?? i}`, notice: part.data });
      });
    }
    if (rows.length > start) rows[rows.length - 1].last = true;
  }
  if (working) rows.push({ kind: 'working', key: 'working', messageId: '', last: true });
  return rows;
}

/** Diagnostics that arrived after their calls' results (data-diagnostics parts, in whichever message they were stored), by lateId. */
function lateDiagnosticsOf(messages: readonly ClampMessage[]): Map<string, DiagnosticsMeta> {
  const lates = new Map<string, DiagnosticsMeta>();
  for (const m of messages) for (const p of m.parts) if (p.type === 'data-diagnostics') lates.set(p.data.lateId, p.data.diagnostics);
  return lates;
}

/** The lateId of a call whose diagnostics were pending when its result came. */
export function pendingIdOf(part: ToolPart): string | undefined {
  if (part.state !== 'output-available') return undefined;
  const d = (part.output as { meta?: { diagnostics?: DiagnosticsMeta } } | undefined)?.meta?.diagnostics;
  return d?.state === 'pending' ? d.lateId : undefined;
}

/** A user message's attachments, images and skill, when it has any (absent otherwise, so plain rows stay as they were). */
function userExtras(m: ClampMessage): { attachments?: AttachmentInfo[]; images?: { url: string; name: string }[]; skill?: string } {
  const attachments: AttachmentInfo[] = [];
  const images: { url: string; name: string }[] = [];
  let skill: string | undefined;
  for (const p of m.parts) {
    if (p.type === 'data-attachment') attachments.push(p.data);
    else if (p.type === 'file' && p.mediaType.startsWith('image/')) images.push({ url: p.url, name: p.filename ?? 'image' });
    else if (p.type === 'data-skill-request') skill = p.data.name;
  }
  return { ...(attachments.length ? { attachments } : {}), ...(images.length ? { images } : {}), ...(skill ? { skill } : {}) };
}

/**
 * A first guess at a row's height in px, before it is measured, taken from how the page draws them at
 * its usual width. A row measured at its guess moves nothing and costs no second render; each wrong
 * guess shifts the rows after it, and while scrolling through a long session every new row is one.
 */
export function estimateRowPx(row: ChatRow | undefined): number {
  // the row's own bottom padding: pb-4 after a turn's last row, pb-2 otherwise (chat-list.tsx)
  const pad = row?.last ? 16 : 8;
  switch (row?.kind) {
    case 'user':
      // the text and its rewind controls
      return 69 + pad;
    case 'text':
      // 22 px a line, about 90 characters to a line
      return pad + Math.min(400, Math.max(1, Math.ceil(row.text.length / 90)) * 22);
    case 'reasoning':
      return 28 + pad;
    case 'tool':
      // errors and the tools whose traits open their cards (commands, edits) show their body; the others are one line
      return (row.part.state === 'output-error' || row.open ? 185 : 32) + pad;
    case 'notice':
      return 56 + pad;
    case 'compaction':
      return 48 + pad;
    case 'subagent':
      return 40 + pad + Math.min(row.view.calls.length, 12) * 24;
    case 'rewind':
      return 52 + pad;
    case 'model-switch':
      return 24 + pad;
    default:
      return 32 + pad;
  }
}
