import { BUDGET } from '../contract/budget';
import type { ClampMessage, SessionSummary } from '../contract/protocol';
import { SESSION_EXPORT_FORMAT, SESSION_EXPORT_VERSION, type SessionExport } from '../contract/session-export';
import { byteLength, cutHead, formatBytes } from '../contract/text';
import type { Db } from '../store/db';
import { loadMessages, saveMessages } from '../store/messages';
import { createSession, requireSession, updateSession } from '../store/sessions';
import { markStopped } from '../agent/turn-messages';
import { attachmentText } from '../agent/data-parts';

/** A tool output in the Markdown export: whole up to this, else its head and a note (the JSON export keeps it all). */
const MD_TOOL_OUTPUT_MAX_BYTES = 8000;

/** A session as a JSON export: the session's title, mode and model, and every stored message as it is. */
export function exportJson(db: Db, workspace: string, id: string): SessionExport {
  const s = requireSession(db, id, workspace);
  return {
    format: SESSION_EXPORT_FORMAT,
    version: SESSION_EXPORT_VERSION,
    exportedAt: Date.now(),
    session: { title: s.title, mode: s.mode, ...(s.model ? { model: s.model } : {}), createdAt: s.createdAt, workspace },
    messages: loadMessages(db, id) as SessionExport['messages'],
  };
}

function fence(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const f = '`'.repeat(longest + 1);
  return `${f}\n${text.replace(/\n$/, '')}\n${f}`;
}

function toolMarkdown(p: { type: string; state?: string; input?: unknown; output?: unknown; errorText?: string; toolName?: string }): string {
  const name = p.type === 'dynamic-tool' ? (p.toolName ?? 'tool') : p.type.slice('tool-'.length);
  const out = p.output as { output?: unknown; status?: string } | undefined;
  const text = typeof out?.output === 'string' ? out.output : p.errorText ?? '';
  const total = byteLength(text);
  const shown = total > MD_TOOL_OUTPUT_MAX_BYTES ? `${cutHead(text, MD_TOOL_OUTPUT_MAX_BYTES).text}\n[… ${formatBytes(total)} in all; the JSON export holds the whole output]` : text;
  const head = `**${name}** \`${JSON.stringify(p.input ?? {})}\` — ${out?.status ?? p.state ?? ''}`;
  return text ? `${head}\n\n${fence(shown)}` : head;
}

/** A session as Markdown for people: user and assistant turns, each tool call with its input, status and (head of the) output. */
export function exportMarkdown(db: Db, workspace: string, id: string): { title: string; text: string } {
  const s = requireSession(db, id, workspace);
  const lines: string[] = [`# ${s.title}`, '', `Exported from Clamp on ${new Date().toISOString()} · workspace \`${workspace}\` · mode ${s.mode}${s.model ? ` · model ${s.model}` : ''}`, ''];
  for (const m of loadMessages(db, id)) {
    const body: string[] = [];
    for (const p of m.parts) {
      if (p.type === 'text' && p.text.trim()) body.push(p.text);
      else if (p.type === 'reasoning' && p.text.trim()) body.push(`> *reasoning:* ${p.text.replace(/\n/g, '\n> ')}`);
      else if (p.type === 'data-attachment') body.push(fence(attachmentText(p.data)));
      else if (p.type === 'data-skill-request') body.push(`*skill:* /${p.data.name} ${p.data.args}`);
      else if (p.type === 'data-model-switch') body.push(`*Model: ${p.data.from} → ${p.data.to}*`);
      else if (p.type === 'data-compaction') body.push(`*Context compacted at step ${p.data.step}: ${p.data.beforeTokens} → ${p.data.afterTokens} tokens*`);
      else if (p.type === 'file') body.push(`*attached ${p.filename ?? 'a file'} (${p.mediaType})*`);
      else if (p.type.startsWith('tool-') || p.type === 'dynamic-tool') body.push(toolMarkdown(p as Parameters<typeof toolMarkdown>[0]));
    }
    if (body.length === 0) continue;
    lines.push(`## ${m.role === 'user' ? 'User' : m.role === 'assistant' ? 'Assistant' : 'System'}`, '', body.join('\n\n'), '');
  }
  return { title: s.title, text: lines.join('\n') };
}

/**
 * Import a JSON export as a new session of this workspace: its messages as exported, calls left
 * waiting (for an approval, or still running) marked stopped, since nothing here can resume them.
 */
export function importSession(db: Db, workspace: string, data: SessionExport, defaultMode: SessionSummary['mode']): SessionSummary {
  const ids = new Set<string>();
  for (const m of data.messages) {
    if (ids.has(m.id)) throw new ImportError(`The export has two messages with the id ${m.id}; it was edited or is corrupt. Export the session again.`);
    ids.add(m.id);
  }
  const messages = data.messages.map((m) => markWaitingStopped([m as unknown as ClampMessage])[0]);
  const title = `${data.session.title.slice(0, BUDGET.SESSION_TITLE_MAX_CHARS - 11)} (imported)`;
  const s = createSession(db, { workspace, title, mode: data.session.mode }, defaultMode);
  saveMessages(db, s.id, messages);
  if (data.session.model) updateSession(db, workspace, s.id, { model: data.session.model });
  const { workspace: _w, ...summary } = requireSession(db, s.id, workspace);
  return summary;
}

/** Calls that wait for an approval or never finished: stopped, as after Stop (markStopped), also in user-less messages. */
function markWaitingStopped(messages: ClampMessage[]): ClampMessage[] {
  const m = messages[0];
  if (m.role !== 'assistant') return messages;
  const parts = m.parts.map((p) => {
    const t = p as { type: string; state?: string };
    if ((t.type.startsWith('tool-') || t.type === 'dynamic-tool') && (t.state === 'approval-requested' || t.state === 'approval-responded')) {
      return { ...p, state: 'output-error', errorText: 'Not finished when the session was exported.' } as unknown as typeof p;
    }
    return p;
  });
  return markStopped([{ ...m, parts }]);
}

/** An export that parses but cannot be imported; the route answers 400 with its message. */
export class ImportError extends Error {}
