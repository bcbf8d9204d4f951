/**
 * @-mentions in a message's text: `@src/app.ts` or `@src/app.ts#L10-40` (also `#L10`). Shared by the
 * page (completion, the warning before sending) and the server (which attaches each mentioned file
 * as a read). A mention starts the text or follows whitespace or an opening bracket, so an e-mail
 * address is not one; trailing punctuation (`@src/app.ts,`) is not part of the path.
 */

export interface Mention {
  /** the path as typed, relative to the workspace */
  path: string;
  /** lines asked for with #L<start>[-<end>] */
  lines?: { start: number; end?: number };
  /** where the mention starts in the text (the @) and ends (exclusive) */
  from: number;
  to: number;
}

const MENTION = /(^|[\s([{"'`])@((?:[^\s@#"'`<>|]|\\ )+?)(?:#L(\d+)(?:-L?(\d+))?)?(?=[.,;:!?)\]}"'`]*(?:\s|$))/g;

/**
 * Whether a mentioned word looks like a path the person meant (it has a slash or a dot, or names a
 * file without an extension that exists): `@alice` in "thanks @alice" is a person, not a file.
 */
export function looksLikePath(p: string): boolean {
  return /[/.]/.test(p);
}

/** Every @-mention in the text, in order, each path once (the first range given wins). */
export function parseMentions(text: string, max = Infinity): Mention[] {
  const out: Mention[] = [];
  const seen = new Set<string>();
  for (const m of text.matchAll(MENTION)) {
    const path = m[2].replace(/[.,;:!?]+$/, '');
    if (!path || seen.has(`${path}#${m[3] ?? ''}`)) continue;
    seen.add(`${path}#${m[3] ?? ''}`);
    const from = (m.index ?? 0) + m[1].length;
    const start = m[3] ? Number(m[3]) : undefined;
    const end = m[4] ? Number(m[4]) : undefined;
    out.push({
      path,
      ...(start !== undefined && start > 0 ? { lines: { start, ...(end !== undefined && end >= start ? { end } : {}) } } : {}),
      from,
      to: (m.index ?? 0) + m[0].length,
    });
    if (out.length >= max) break;
  }
  return out;
}

/** The `@word` being typed at the caret, for completion: the text after the @ and where it starts; null when the caret is not in one. */
export function mentionAtCaret(text: string, caret: number): { query: string; from: number } | null {
  const before = text.slice(0, caret);
  const m = /(^|[\s([{"'`])@([^\s@#"'`<>|]*)$/.exec(before);
  if (!m) return null;
  return { query: m[2], from: before.length - m[2].length - 1 };
}

/**
 * Whether a completion's path holds the typed query's letters in order (case-insensitive): the loosest match
 * the server's completion ranks, so every path it lists for a query passes. The page narrows a list answered
 * for older text with it while the answer for the newer text is on its way.
 */
export function lettersInOrder(path: string, query: string): boolean {
  const p = path.toLowerCase();
  const q = query.toLowerCase();
  let i = 0;
  for (const ch of p) if (ch === q[i]) i++;
  return i >= q.length;
}

/**
 * An @-mention of an MCP server's resource, `@<server>:<uri>` as Claude Code writes it (`@docs:file://guide.md`):
 * the server's name and the resource's uri (a scheme and a colon after the server's name); null for a path.
 */
export function resourceMention(p: string): { server: string; uri: string } | null {
  const m = /^([A-Za-z0-9_.-]+):([A-Za-z][A-Za-z0-9+.-]*:\S+)$/.exec(p);
  return m ? { server: m[1], uri: m[2] } : null;
}

/** A mention's range as read_file arguments (offset, limit). */
export function mentionReadArgs(m: Pick<Mention, 'path' | 'lines'>): { path: string; offset?: number; limit?: number } {
  if (!m.lines) return { path: m.path };
  const { start, end } = m.lines;
  return { path: m.path, offset: start, ...(end !== undefined ? { limit: end - start + 1 } : {}) };
}
