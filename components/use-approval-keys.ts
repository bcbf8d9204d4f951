'use client';

import { useEffect, useRef, type KeyboardEvent, type RefObject } from 'react';
import type { ApprovalAnswer } from '@/lib/contract/protocol';

/** Shortcut keys this soon after the bar takes focus are ignored. */
const TYPE_THROUGH_GUARD_MS = 400;

/** A modal (the output viewer, the settings) is open over the page: the bar neither takes focus nor hears keys meanwhile. */
export function modalOpen(): boolean {
  return !!document.querySelector('[aria-modal="true"], dialog[open]');
}

/** Where a key is text being typed: a text box, a select, an editable element. */
const TEXT_FIELD = 'textarea, select, [contenteditable]:not([contenteditable="false"]), input:not([type="checkbox"]):not([type="radio"]):not([type="button"]):not([type="submit"]):not([type="reset"])';

function inTextField(el: EventTarget | null): boolean {
  return el instanceof Element && (!!el.closest(TEXT_FIELD) || (el instanceof HTMLElement && el.isContentEditable));
}

/** The answer keys that work from anywhere on the page but a text field (Enter and Esc only in the bar: elsewhere they belong to what has focus). */
const PAGE_KEYS = new Set(['y', 'n', 's', 'a', 'e', 'r']);

export interface ApprovalKeysHost {
  /** the first item takes the focus when it appears */
  autoFocus: boolean;
  /** the first approval waiting hears its keys from anywhere on the page */
  pageKeys: boolean;
  editing: boolean;
  setEditing: (editing: boolean) => void;
  /** the call is a command (only a command can be edited) */
  canEdit: boolean;
  /** an answer is on its way: no key does anything */
  answering: () => boolean;
  answer: (kind: ApprovalAnswer) => Promise<void>;
}

interface ApprovalKeys extends ApprovalKeysHost {
  rootRef: RefObject<HTMLDivElement | null>;
  editRef: RefObject<HTMLTextAreaElement | null>;
  reasonRef: RefObject<HTMLInputElement | null>;
}

/** What a shortcut key does (Enter and Esc only when the key was pressed in the item). */
function shortcut(k: ApprovalKeys, key: string): (() => void) | undefined {
  const map: Record<string, () => void> = {
    enter: () => void k.answer(k.editing ? 'edit' : 'once'),
    y: () => void k.answer(k.editing ? 'edit' : 'once'),
    s: () => void k.answer('session'),
    a: () => void k.answer('always'),
    e: () => k.canEdit && k.setEditing(true),
    n: () => void k.answer('deny'),
    escape: () => void k.answer('deny'),
    r: () => k.reasonRef.current?.focus(),
  };
  return map[key];
}

/**
 * The focus and keys of one approval item: it takes the focus when it should (never out of a modal), its
 * own keys, and — for the first waiting — y, n … from anywhere but a text field; keys typed within a moment
 * of it appearing or taking focus were meant for something else and do nothing. Returns the item's refs
 * (its root, the edit box, the reason field) and its onKeyDown.
 */
export function useApprovalKeys(host: ApprovalKeysHost) {
  const rootRef = useRef<HTMLDivElement>(null);
  const editRef = useRef<HTMLTextAreaElement>(null);
  const reasonRef = useRef<HTMLInputElement>(null);
  const k: ApprovalKeys = { ...host, rootRef, editRef, reasonRef };
  const focusedAt = useFocusOnArrival(k);
  usePageKeys(k, focusedAt);

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.ctrlKey || e.metaKey || e.altKey || e.repeat || k.answering() || modalOpen()) return;
    const tag = (e.target as HTMLElement).tagName;
    if (tag === 'TEXTAREA' || tag === 'INPUT') return fieldKey(e, k);
    if (tag === 'BUTTON' && (e.key === 'Enter' || e.key === ' ')) return; // the button's own click
    if (performance.now() - focusedAt.current < TYPE_THROUGH_GUARD_MS) return;
    const act = shortcut(k, e.key.toLowerCase());
    if (act) {
      e.preventDefault();
      act();
    }
  };
  return { rootRef, editRef, reasonRef, onKeyDown };
}

/** Enter in the edit box approves the edit, in the reason field denies; Esc leaves the field. */
function fieldKey(e: KeyboardEvent<HTMLDivElement>, k: ApprovalKeys): void {
  if (e.target === k.editRef.current && e.key === 'Enter' && !e.shiftKey) {
    e.preventDefault();
    void k.answer('edit');
  } else if (e.target === k.reasonRef.current && e.key === 'Enter') {
    e.preventDefault();
    void k.answer('deny');
  } else if (e.key === 'Escape') {
    e.preventDefault();
    k.setEditing(false);
    k.rootRef.current?.focus();
  }
}

/** When the item appeared or took the focus (keys typed right after were typing through); the focus moves in as asked. */
function useFocusOnArrival(k: ApprovalKeys): RefObject<number> {
  const focusedAt = useRef(0);
  useEffect(() => {
    focusedAt.current = performance.now();
  }, []);
  const { autoFocus, rootRef, editing, editRef } = k;
  useEffect(() => {
    // a call that arrives while the person reads a modal must not pull the cursor out of it (Esc there would deny the call)
    if (!autoFocus || modalOpen()) return;
    focusedAt.current = performance.now();
    rootRef.current?.focus();
  }, [autoFocus, rootRef]);
  useEffect(() => {
    if (editing) editRef.current?.focus();
  }, [editing, editRef]);
  return focusedAt;
}

/** The first call waiting hears y, n … from anywhere on the page but a text field (an item hears its own keys). */
function usePageKeys(k: ApprovalKeys, focusedAt: RefObject<number>): void {
  const onPageKey = useRef<(e: globalThis.KeyboardEvent) => void>(() => undefined);
  useEffect(() => {
    onPageKey.current = (e) => {
      if (e.defaultPrevented || e.repeat || e.ctrlKey || e.metaKey || e.altKey || k.answering() || modalOpen()) return;
      if (inTextField(e.target) || (e.target instanceof Element && e.target.closest('[data-approval-for]'))) return;
      const key = e.key.toLowerCase();
      if (!PAGE_KEYS.has(key) || performance.now() - focusedAt.current < TYPE_THROUGH_GUARD_MS) return;
      const act = shortcut(k, key);
      if (!act) return;
      e.preventDefault();
      act();
    };
  });
  const { pageKeys } = k;
  useEffect(() => {
    if (!pageKeys) return;
    const listener = (e: globalThis.KeyboardEvent) => onPageKey.current(e);
    document.addEventListener('keydown', listener);
    return () => document.removeEventListener('keydown', listener);
  }, [pageKeys]);
}
