import type { BoardAnswer, BoardSession, InboxItem } from '../contract/board';

/** Something that asks for the person while the page is hidden: a call waiting, or a turn that ended. */
export interface AttentionEvent {
  /** one per call or turn end: a notification with the same tag replaces the older one */
  tag: string;
  title: string;
  body: string;
  /** the listed session to open when the person clicks it */
  sessionId: string;
}

const itemKey = (i: InboxItem) => `${i.sessionId}/${i.toolCallId}`;

function callLine(i: InboxItem): string {
  if (i.info?.question) return i.info.question.question;
  const command = (i.input as { command?: unknown } | null)?.command;
  return typeof command === 'string' ? `${i.toolName}: ${command}` : (i.info?.summary ?? i.toolName);
}

function endLine(s: BoardSession): string {
  if (s.state === 'failed') return `failed${s.note ? `: ${s.note}` : ''}`;
  if (s.state === 'waiting') return `waits for you (${s.waiting})`;
  return s.note === 'stopped' ? 'stopped' : 'done';
}

/**
 * What changed between two boards that asks for the person: each call that began waiting, each turn that ended
 * (a session that was working and is not). The first board (prev null) announces nothing: it is what was there.
 */
export function attentionEvents(prev: BoardAnswer | null, next: BoardAnswer): AttentionEvent[] {
  if (!prev) return [];
  const out: AttentionEvent[] = [];
  const seen = new Set(prev.inbox.map(itemKey));
  for (const i of next.inbox) {
    if (seen.has(itemKey(i))) continue;
    out.push({ tag: `call:${itemKey(i)}`, title: i.info?.question ? `Clamp: a question for you — ${i.topTitle}` : `Clamp: approval needed — ${i.topTitle}`, body: callLine(i), sessionId: i.topId });
  }
  const was = new Map(prev.sessions.map((s) => [s.id, s.state]));
  for (const s of next.sessions) {
    // a turn that stopped for an approval is announced by its call
    if (was.get(s.id) !== 'working' || s.state === 'working' || s.state === 'waiting') continue;
    out.push({ tag: `turn:${s.id}:${s.updatedAt}`, title: `Clamp: turn ${s.state === 'failed' ? 'failed' : 'ended'} — ${s.title}`, body: endLine(s), sessionId: s.id });
  }
  return out;
}

/** The tab's title with a count in front ("(2) Clamp"); the plain title at 0. */
export function titleWithCount(base: string, count: number): string {
  return count > 0 ? `(${count}) ${base}` : base;
}
