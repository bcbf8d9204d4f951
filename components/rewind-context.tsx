'use client';

import { createContext, useContext, useImperativeHandle, useMemo, type ReactNode, type Ref } from 'react';
import type { InterruptedNote } from '@/lib/contract/protocol';
import type { RewindRequest, RewindResult } from './checkpoint-api';
import { RewindDialog } from './rewind-dialog';
import { useRewindApi, type RewindConversation } from './use-rewind-api';

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

/**
 * Rewind for one conversation: the dialog (preview, choices, confirmation) and edit-and-resend.
 * After a rewind the chat shows the answer's conversation (shortened by a conversation rewind, and
 * ending with the rewind's note, a divider in the list); the rewound message's text goes back to the
 * composer (`setDraft`), so it can be changed and sent again. Children read it with useRewind();
 * the component that renders the provider reaches openRewind through `handle` (for `/rewind`).
 */
export function RewindProvider({
  handle,
  children,
  ...conversation
}: RewindConversation & {
  /** for the chat itself (it renders the provider, so it cannot read the context): openRewind */
  handle?: Ref<Pick<RewindApi, 'openRewind'>>;
  children?: ReactNode;
}) {
  const { api, target, closeDialog, onRewound } = useRewindApi(conversation);
  useImperativeHandle(handle, () => ({ openRewind: api.openRewind }), [api]);
  return (
    <RewindContext.Provider value={api}>
      {children}
      {target && <RewindDialog messageId={target.messageId} messages={conversation.messages} api={api} onClose={closeDialog} onRewound={onRewound} />}
    </RewindContext.Provider>
  );
}
