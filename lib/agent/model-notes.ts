import type { RewindNote } from '../contract/protocol';

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
