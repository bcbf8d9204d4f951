'use client';

import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { ClampMessage, InterruptedNote } from '@/lib/contract/protocol';
import { queryKeys } from './api';
import { postRewind, type RewindRequest } from './checkpoint-api';
import type { RewindApi } from './rewind-context';

/** The conversation a RewindProvider works on, and how it hands a rewind's outcome back to the chat. */
export interface RewindConversation {
  sessionId: string;
  messages: ClampMessage[];
  setMessages: (m: ClampMessage[]) => void;
  busy: boolean;
  send: (text: string) => void;
  setDraft: (text: string) => void;
}

/** The data-interrupted note of a call, if the server found it interrupted. */
function interruptedNoteOf(messages: readonly ClampMessage[], toolCallId: string): InterruptedNote | undefined {
  for (const m of messages) for (const p of m.parts) if (p.type === 'data-interrupted' && p.data.toolCallId === toolCallId) return p.data;
  return undefined;
}

/**
 * The user message a rewind "before this call" goes to: the one that started the call's turn (an
 * interrupted call's note names it; else the nearest user message with text above the call).
 */
export function turnOf(messages: readonly ClampMessage[], toolCallId: string): string | undefined {
  const note = interruptedNoteOf(messages, toolCallId);
  if (note?.userMessageId) return note.userMessageId;
  const at = messages.findIndex((m) => m.parts.some((p) => 'toolCallId' in p && p.toolCallId === toolCallId));
  for (let i = at; i >= 0; i--) if (messages[i].role === 'user' && messages[i].parts.some((p) => p.type === 'text')) return messages[i].id;
  return undefined;
}

/**
 * The rewind controls of one conversation (the context's value) and the dialog they open: `target` is
 * the message the dialog is open on (undefined: the picker), null while it is closed. The functions
 * read the latest conversation, so the value does not change with every streamed chunk.
 */
export function useRewindApi({ sessionId, messages, setMessages, busy, send, setDraft }: RewindConversation) {
  const qc = useQueryClient();
  const messagesRef = useRef(messages);
  const fns = useRef({ setMessages, send, setDraft });
  useLayoutEffect(() => {
    messagesRef.current = messages;
    fns.current = { setMessages, send, setDraft };
  });
  const [target, setTarget] = useState<{ messageId?: string } | null>(null);

  const rewind = useCallback(
    async (body: RewindRequest) => {
      const result = await postRewind(sessionId, body);
      // the answer's conversation: shortened by a conversation rewind, and ending with the rewind's note either way
      fns.current.setMessages(result.messages);
      // the changes, the branches and the session list all hang under the sessions key
      void qc.invalidateQueries({ queryKey: queryKeys.sessions });
      return result;
    },
    [qc, sessionId],
  );

  const api = useMemo<RewindApi>(
    () => ({
      sessionId,
      openRewind: (messageId) => setTarget({ messageId }),
      openRewindBefore: (toolCallId) => setTarget({ messageId: turnOf(messagesRef.current, toolCallId) }),
      interruptedNote: (toolCallId) => interruptedNoteOf(messagesRef.current, toolCallId),
      rewind,
      resend: async (messageId, text, { code, stopTasks }) => {
        await rewind({ messageId, conversation: true, code, ...(stopTasks ? { stopTasks } : {}) });
        fns.current.send(text);
      },
      blocked: busy ? 'Stop the running turn first: a rewind cannot run while the agent works.' : null,
      readOnly: false,
    }),
    [sessionId, rewind, busy],
  );

  const closeDialog = useCallback(() => setTarget(null), []);
  const onRewound = useCallback((text: string | null) => {
    setTarget(null);
    if (text !== null) fns.current.setDraft(text);
  }, []);

  return { api, target, closeDialog, onRewound };
}
