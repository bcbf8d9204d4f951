'use client';

import type { RefObject } from 'react';
import type { SessionSummary } from '@/lib/contract/protocol';
import { mentionProblems } from './composer-api';
import { parseCommand, type SlashCommand } from './composer-commands';
import type { ComposerMessage } from './composer';
import type { PendingFile } from './composer-files';
import { useRewind } from './rewind-context';
import type { Completion } from './use-composer-completion';
import { useComposerCommands, type InfoPanel } from './use-composer-commands';
import type { MessageQueue } from './use-composer-queue';

/** The composer's state that sending reads and clears. */
export interface SendHost {
  session: SessionSummary;
  skills: readonly { name: string; description: string }[];
  commands: SlashCommand[];
  /** command and agent files not offered, with why (/help lists them) */
  skipped?: readonly { path: string; reason: string }[];
  onCompact: (focus: string) => void;
  onRewind?: () => void;
  disabled?: string;
  imageRefusal: string | null;
  box: RefObject<HTMLTextAreaElement | null>;
  text: string;
  setText: (text: string) => void;
  files: PendingFile[];
  setFiles: (files: PendingFile[]) => void;
  setProblems: (problems: string[] | null) => void;
  setPanel: (panel: InfoPanel | null) => void;
  completion: Completion;
  queue: MessageQueue;
}

export interface ComposerSend {
  /** Enter or Send: a slash command runs; a message is checked (its @-mentions, unless forced) and goes or queues */
  send: (force?: boolean) => Promise<void>;
  /** "Send now" while a turn runs: what is typed goes first, at the turn's next safe point */
  sendNow: () => void;
  /** a queued message back into the box, to edit */
  editQueued: (id: string) => void;
}

/** What the composer's send, "Send now" and a queued message's Edit do with the box. */
export function useComposerSend(h: SendHost): ComposerSend {
  const { text, setText, files, setFiles, queue } = h;
  const { openRewind } = useRewind();
  const sendSkill = (name: string, args: string) => submit({ text: `/${name}${args ? ` ${args}` : ''}`, files, skill: { name, args } });
  const sendText = (body: string, command?: { name: string; args: string }) => submit({ text: body, files, ...(command ? { command } : {}) });
  const run = useComposerCommands({ session: h.session, commands: h.commands, skipped: h.skipped, onCompact: h.onCompact, onRewind: h.onRewind ?? (() => openRewind()), sendSkill, sendText, show: h.setPanel });

  function submit(m: ComposerMessage) {
    setText('');
    setFiles([]);
    h.setProblems(null);
    h.completion.close();
    queue.submit(m);
  }

  async function runSlash(raw: string) {
    const cmd = parseCommand(raw);
    if (cmd && (await run(cmd.name, cmd.args))) {
      if (!h.commands.find((c) => c.name === cmd.name)?.skill) setText('');
      return;
    }
    h.setPanel({ title: raw.split(/\s/)[0], lines: [`No such command. Type / to list the commands (or /help); start with // to send a message that begins with a slash.`], tone: 'error' });
  }

  async function send(force = false) {
    const raw = text.trim();
    if ((!raw && files.length === 0) || h.disabled) return;
    h.completion.close();
    h.completion.abort();
    if (raw.startsWith('/') && !raw.startsWith('//')) return runSlash(raw);
    if (h.imageRefusal) return;
    const bad = force ? [] : await mentionProblems(raw, h.session.id);
    if (bad.length > 0) return h.setProblems(bad);
    submit({ text: raw.startsWith('//') ? raw.slice(1) : raw, files });
  }

  const sendNow = () => {
    const raw = text.trim();
    if (!raw && files.length === 0) return;
    setText('');
    setFiles([]);
    queue.sendNow({ text: raw, files });
  };
  const editQueued = (id: string) => {
    const item = queue.take(id);
    if (!item) return;
    setText(item.text);
    setFiles(item.files);
    h.box.current?.focus();
  };

  return { send, sendNow, editQueued };
}
