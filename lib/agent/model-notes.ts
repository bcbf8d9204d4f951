import type { RewindNote } from '../contract/protocol';

/**
 * Data parts the model is told about: a rewind (which files were restored, so earlier reads of them
 * are stale, and what a rewind cannot undo). Every other data part is the page's alone.
 */

/** Whether a part is one the model reads (as text). */
export function isModelNote(p: { type: string }): boolean {
  return p.type === 'data-rewind';
}

/** What the model reads for a rewind. */
export function rewindText(n: RewindNote): string {
  const what = [n.code ? 'the code' : '', n.conversation ? 'the conversation' : ''].filter(Boolean).join(' and ');
  const lines = [`[Clamp: the user rewound ${what} to before an earlier message.`];
  if (n.conversation) lines.push('The messages after that point were taken out of this conversation: do not rely on what they said or did.');
  if (n.code) {
    lines.push(
      n.restored.length
        ? `These files were restored to their earlier state; any earlier read of them is stale, so read them again before editing: ${n.restored.join(', ')}.`
        : 'No file needed restoring.',
    );
  } else {
    lines.push('The files were not restored: they are as the later messages left them.');
  }
  if (n.cannotUndo.length) lines.push(`A rewind cannot undo: ${n.cannotUndo.join(' ')}`);
  lines[lines.length - 1] += ']';
  return lines.join('\n');
}

/** convertToModelMessages' convertDataPart: a model note becomes text; other data parts are left out. */
export function modelNoteText(p: { type: `data-${string}`; data: unknown }): { type: 'text'; text: string } | undefined {
  if (p.type === 'data-rewind') return { type: 'text', text: rewindText(p.data as RewindNote) };
  return undefined;
}
