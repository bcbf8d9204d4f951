'use client';

import { useEffect, useRef, useState, type KeyboardEvent, type RefObject } from 'react';
import { BUDGET } from '@/lib/contract/budget';
import { lettersInOrder, mentionAtCaret } from '@/lib/contract/mentions';
import { completePaths } from './composer-api';
import { matchCommands, type SlashCommand } from './composer-commands';
import type { PopupItem } from './composer-popup';

/** a mention list keeps the query it was answered for */
type Popup = { kind: 'mention'; query: string; from: number; items: PopupItem[]; dirs: Set<string>; note?: string } | { kind: 'slash'; items: PopupItem[] };

export interface CompletionHost {
  commands: SlashCommand[];
  box: RefObject<HTMLTextAreaElement | null>;
  text: string;
  setText: (text: string) => void;
  /** a path was inserted: the mention problems shown are out of date */
  onInsert: () => void;
  /** the session whose folder paths are completed from (its own worktree, when it has one) */
  sessionId?: string;
}

export interface Completion {
  popup: Popup | null;
  active: number;
  /** look at the text and the caret again: slash commands at the start, paths after an @ at the caret */
  refresh: (value: string, caret: number) => void;
  pick: (i: number) => void;
  close: () => void;
  /** stop a path completion on its way */
  abort: () => void;
  /** ↑/↓ move, Tab or Enter take the highlighted choice, Esc closes; true when the key was the list's */
  onKey: (e: KeyboardEvent<HTMLTextAreaElement>) => boolean;
}

/** The note under a path completion: more matched than are listed, or only part of the workspace was searched. */
function mentionNote(r: { more?: boolean; scanCapped?: boolean }): string | undefined {
  return r.more ? 'More match: type more of the path.' : r.scanCapped ? `Only the first ${BUDGET.MENTION_SCAN_MAX_FILES.toLocaleString('en-US')} workspace paths were searched.` : undefined;
}

/** The list's items as the text and caret ask: commands while a slash command is typed, paths (fetched) after an @. */
function useCompletionItems(commands: SlashCommand[], box: RefObject<HTMLTextAreaElement | null>, sessionId?: string) {
  const [popup, setPopup] = useState<Popup | null>(null);
  const [active, setActive] = useState(0);
  /** the query after the @ at the caret now (null when the caret is not in a mention) */
  const [typed, setTyped] = useState<string | null>(null);
  const completion = useRef<AbortController | null>(null);

  function refresh(value: string, caret: number) {
    const slash = matchCommands(value, commands);
    if (slash) {
      setPopup({ kind: 'slash', items: slash.map((c) => ({ key: c.name, label: `/${c.name}${c.args ? ` ${c.args}` : ''}`, detail: c.help })) });
      setActive(0);
      return;
    }
    const at = mentionAtCaret(value, caret);
    completion.current?.abort();
    setTyped(at ? at.query : null);
    if (!at) return setPopup(null);
    const ctl = new AbortController();
    completion.current = ctl;
    completePaths(at.query, ctl.signal, sessionId)
      .then((r) => {
        if (ctl.signal.aborted) return;
        setPopup({ kind: 'mention', query: at.query, from: at.from, dirs: new Set(r.items.filter((i) => i.dir).map((i) => i.path)), items: r.items.map((i) => ({ key: i.path, label: i.dir ? `${i.path}/` : i.path })), note: mentionNote(r) });
        setActive(0);
      })
      .catch(() => undefined);
  }

  // the skills arrive after the page opens: a command list already shown takes them in
  const slashOpen = popup?.kind === 'slash';
  useEffect(() => {
    // eslint-disable-next-line react-hooks/set-state-in-effect -- the list follows the commands, which arrive from the server
    if (slashOpen) refresh(box.current?.value ?? '', box.current?.selectionStart ?? 0);
  }, [commands]); // eslint-disable-line react-hooks/exhaustive-deps

  // a list answered for older text shows, until the newer answer comes, only what still matches the text typed since:
  // Tab or Enter then never takes a choice the text has left behind
  const shown = popup?.kind === 'mention' && typed !== null && typed !== popup.query ? { ...popup, items: popup.items.filter((i) => lettersInOrder(i.key, typed)) } : popup;
  return { popup: shown, setPopup, active: Math.min(active, Math.max(0, (shown?.items.length ?? 1) - 1)), setActive, refresh, abort: () => completion.current?.abort() };
}

/** The composer's completion list: slash commands at the start of the text, workspace paths after an @ at the caret. */
export function useComposerCompletion(h: CompletionHost): Completion {
  const { popup, setPopup, active, setActive, refresh, abort } = useCompletionItems(h.commands, h.box, h.sessionId);

  function pick(i: number) {
    const item = popup?.items[i];
    if (!popup || !item) return;
    // a completion still on its way was asked for the text before this choice: it must not reopen the list
    abort();
    const el = h.box.current;
    if (popup.kind === 'slash') {
      const value = `/${item.key} `;
      h.setText(value);
      setPopup(null);
      requestAnimationFrame(() => el?.setSelectionRange(value.length, value.length));
      return;
    }
    const caret = el?.selectionStart ?? h.text.length;
    const dir = popup.dirs.has(item.key);
    const insert = `@${item.key}${dir ? '/' : ' '}`;
    const value = h.text.slice(0, popup.from) + insert + h.text.slice(caret);
    const at = popup.from + insert.length;
    h.setText(value);
    h.onInsert();
    requestAnimationFrame(() => el?.setSelectionRange(at, at));
    if (dir) refresh(value, at);
    else setPopup(null);
  }

  function onKey(e: KeyboardEvent<HTMLTextAreaElement>): boolean {
    if (popup && popup.items.length > 0) {
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        const n = popup.items.length;
        setActive((a) => (a + (e.key === 'ArrowDown' ? 1 : n - 1)) % n);
        return true;
      }
      // Enter on a command typed in full runs it; otherwise Enter, like Tab, takes the highlighted choice
      const typedInFull = popup.kind === 'slash' && h.text.trim() === `/${popup.items[active]?.key}`;
      if (e.key === 'Tab' || (e.key === 'Enter' && !e.shiftKey && !typedInFull)) {
        e.preventDefault();
        pick(active);
        return true;
      }
    }
    if (e.key === 'Escape' && popup) {
      e.preventDefault();
      abort();
      setPopup(null);
      return true;
    }
    return false;
  }

  return { popup, active, refresh, pick, close: () => (abort(), setPopup(null)), abort, onKey };
}
