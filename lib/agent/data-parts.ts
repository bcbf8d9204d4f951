import type { TextPart } from 'ai';
import type { ClampDataParts, RewindNote } from '../contract/protocol';
import { rewindText } from './model-notes';
import { resourceMention } from '../contract/mentions';

/** What the model reads for an attachment: the path, the lines asked for, and the read's own text (its notes included). */
export function attachmentText(a: ClampDataParts['attachment']): string {
  const lines = a.lines ? ` lines ${a.lines.start}${a.lines.end !== undefined ? `-${a.lines.end}` : '-'}` : '';
  const how = resourceMention(a.path) ? 'the MCP resource, read_resource' : 'read_file';
  const what = a.kind === 'mention' ? `@${a.path}${lines} (${how} ${a.status === 'ok' ? 'result' : 'error'})` : `the file ${a.path}`;
  return `<attachment>\nThe user attached ${what}:\n${a.text}\n</attachment>`;
}

/**
 * The data parts a model reads, as text (convertToModelMessages' convertDataPart): attachments, a
 * /<skill> request, late diagnostics of earlier changes (in a user message), and a rewind (which files were restored, so earlier reads of them are stale, and
 * what a rewind cannot undo). Every other data part is the page's (context, ledger, dividers) and is left out.
 */
export function dataPartForModel(part: { type: string; data: unknown }): TextPart | undefined {
  if (part.type === 'data-rewind') return { type: 'text', text: rewindText(part.data as RewindNote) };
  if (part.type === 'data-attachment') return { type: 'text', text: attachmentText(part.data as ClampDataParts['attachment']) };
  if (part.type === 'data-hook-context') {
    const h = part.data as ClampDataParts['hook-context'];
    if (!h.text) return undefined;
    return { type: 'text', text: `<hook-context event="${h.event}">\n${h.text}\n</hook-context>` };
  }
  if (part.type === 'data-diagnostics-note') return { type: 'text', text: (part.data as ClampDataParts['diagnostics-note']).text };
  if (part.type === 'data-skill-request') {
    const { name, args } = part.data as ClampDataParts['skill-request'];
    return {
      type: 'text',
      text: `The user invoked the skill "${name}" (/${name}). Load it first with the skill tool (name: "${name}") and follow its instructions${args.trim() ? `, with these arguments: ${args.trim()}` : ''}.`,
    };
  }
  return undefined;
}

const MODEL_DATA_PARTS = new Set(['data-rewind', 'data-attachment', 'data-skill-request', 'data-diagnostics-note', 'data-hook-context']);

/** Whether a part is one the model reads (as text), so a message of such parts alone still reaches it. */
export function isModelNote(p: { type: string }): boolean {
  return MODEL_DATA_PARTS.has(p.type);
}
