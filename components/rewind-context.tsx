'use client';

import { useQueryClient } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useImperativeHandle, useLayoutEffect, useMemo, useRef, useState, type ReactNode, type Ref } from 'react';
import type { ClampMessage, InterruptedNote } from '@/lib/contract/protocol';
import { queryKeys } from './api';
import { postRewind, type RewindRequest, type RewindResult } from './checkpoint-api';
import { RewindDialog } from './rewind-dialog';

export interface RewindApi {
  sessionId: string;
  /** Open the rewind dialog before a user message; without one it first asks which message (`/rewind`). */
  openRewind: (messageId?: string) => void;
  /** Open the rewind dialog on the turn a tool call was made in (the checkpoint taken before it). */
  openRewindBefore: (toolCallId: string) => void;
  /** The note the server wrote beside a call it found interrupted at a restart (its log, its checkpoint). */
  interruptedNote: (toolCallId: string) => InterruptedNote | undefined;
  /** Rewind (conversation, and code if asked) and apply the answer; throws ApiError (409 while tasks or a turn run). */
  rewind: (body: RewindRequest) => Promise<RewindResult>;
  /** Rewind the conversation (and code if asked) to before messageId, then send text in its place. */
  resend: (messageId: string, text: string, o: { code: boolean; stopTasks?: boolean }) => Promise<void>;
  /** Why no rewind can start now (a turn is running), else null. */
  blocked: string | null;
  /** A view of a kept branch: no rewind controls. */
  readOnly: boolean;
}

const noop = () => undefined;
const RewindContext = createContext<RewindApi>({
  sessionId: '',
  openRewind: noop,
  openRewindBefore: noop,
  interruptedNote: () => undefined,
  rewind: () => Promise.reject(new Error('No conversation to rewind here.')),
  resend: () => Promise.reject(new Error('No conversation to rewind here.')),
  blocked: 'No conversation to rewind here.',
  readOnly: true,
});

/** The rewind controls of the conversation around; the default (outside a chat) does nothing and is read-only. */
export function useRewind(): RewindApi {
  return useContext(RewindContext);
}

/** A branch's read-only view: its user messages carry no rewind or edit controls. */
export function ReadOnlyRewind({ children }: { children: ReactNode }) {
  const outer = useRewind();
  const value = useMemo<RewindApi>(() => ({ ...outer, readOnly: true, blocked: 'A kept branch is read-only.' }), [outer]);
  return <RewindContext.Provider value={value}>{children}</RewindContext.Provider>;
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
 * Rewind for one conversation: the dialog (preview, choices, confirmation) and edit-and-resend.
 * After a rewind the chat shows the answer's conversation (shortened by a conversation rewind, and
 * ending with the rewind's note, a divider in the list); the rewound message's text goes back to the
 * composer (`setDraft`), so it can be changed and sent again. Children read it with useRewind();
 * the component that renders the provider reaches openRewind through `handle` (for `/rewind`).
 */
export function RewindProvider({
  sessionId,
  messages,
  setMessages,
  busy,
  send,
  setDraft,
  handle,
  children,
}: {
  sessionId: string;
  messages: ClampMessage[];
  setMessages: (m: ClampMessage[]) => void;
  busy: boolean;
  send: (text: string) => void;
  setDraft: (text: string) => void;
  /** for the chat itself (it renders the provider, so it cannot read the context): openRewind */
  handle?: Ref<Pick<RewindApi, 'openRewind'>>;
  children?: ReactNode;
}) {
  const qc = useQueryClient();
  // the context's functions read the latest conversation; the context does not change with every streamed chunk
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

  useImperativeHandle(handle, () => ({ openRewind: api.openRewind }), [api]);

  const onRewound = useCallback((text: string | null) => {
    setTarget(null);
    if (text !== null) fns.current.setDraft(text);
  }, []);

  return (
    <RewindContext.Provider value={api}>
      {children}
      {target && <RewindDialog messageId={target.messageId} messages={messages} onClose={() => setTarget(null)} onRewound={onRewound} />}
    </RewindContext.Provider>
  );
}
