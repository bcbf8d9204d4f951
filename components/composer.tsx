'use client';

import { useEffect, useMemo, useRef, useState, type KeyboardEvent, type MutableRefObject } from 'react';
import type { SessionSummary } from '@/lib/contract/protocol';
import type { SkillListAnswer } from '@/lib/contract/rest';
import { useSessions } from './api';
import { usePrompts, useSkills } from './composer-api';
import { allCommands } from './composer-commands';
import type { PendingFile } from './composer-files';
import { AttachButton, ComposerNotices, MessageBox, SendButtons } from './composer-parts';
import { ComposerPopup } from './composer-popup';
import { ComposerQueue } from './composer-queue';
import { useAttachments, useImageRefusal } from './use-composer-attachments';
import type { InfoPanel } from './use-composer-commands';
import { useComposerCompletion } from './use-composer-completion';
import { useMessageQueue } from './use-composer-queue';
import { useComposerSend } from './use-composer-send';

/** What the composer hands the chat to send. */
export interface ComposerMessage {
  text: string;
  files: PendingFile[];
  skill?: { name: string; args: string };
  /** a command from a file (the text is its expansion): its allowed-tools and model hold for the turn */
  command?: { name: string; args: string };
}

const NO_SKILLS: SkillListAnswer = { skills: [], commands: [] };

interface ComposerProps {
  session: SessionSummary;
  busy: boolean;
  /** why sending must wait (a pending approval): messages are queued meanwhile */
  blocked?: string;
  /** why nothing can be sent (no model) */
  disabled?: string;
  /** the last turn failed: the queue waits for the person */
  errored: boolean;
  onSend: (m: ComposerMessage) => void;
  onStop: () => void;
  onCompact: (focus: string) => void;
  /** /rewind: by default the rewind dialog's picker of user messages */
  onRewind?: () => void;
  /** filled with a setter that puts text into the composer when it is empty (a rewound message's text comes back) */
  draftRef?: MutableRefObject<((text: string) => void) | null>;
}

/** The box's text; draftRef, when given, is filled with a setter that puts text in only while the box is empty. */
function useDraft(draftRef: ComposerProps['draftRef']) {
  const [text, setText] = useState('');
  useEffect(() => {
    if (!draftRef) return;
    draftRef.current = (t) => setText((cur) => (cur.trim() ? cur : t));
    return () => {
      draftRef.current = null;
    };
  }, [draftRef]);
  return [text, setText] as const;
}

/** What the empty box says: why nothing can be sent, that messages queue, or how to use it. */
function placeholderOf(p: Pick<ComposerProps, 'busy' | 'blocked' | 'disabled'>): string {
  return p.disabled ?? (p.busy ? 'Type to queue a message (sent when the turn ends; Send now steers)' : p.blocked ? `${p.blocked} Messages typed now are queued.` : 'Message Clamp — @ to mention a file, / for commands, paste or drop images (Enter sends, Shift+Enter for a new line)');
}

/**
 * The message box: @-mentions with path completion (and a check before sending), images and text
 * files (button, paste, drop), slash commands with completion and help, and a queue for what is typed
 * while a turn runs ("Send now" steers: the turn ends at its next safe point and the message goes).
 */
export function Composer(props: ComposerProps) {
  const { busy, disabled, onStop } = props;
  const session = useSessions().data?.find((s) => s.id === props.session.id) ?? props.session;
  const found = useSkills().data ?? NO_SKILLS;
  const skills = found.skills;
  const prompts = usePrompts().data;
  const commands = useMemo(() => allCommands(found.skills, found.commands, prompts), [found, prompts]);
  const [text, setText] = useDraft(props.draftRef);
  const [panel, setPanel] = useState<InfoPanel | null>(null);
  const [problems, setProblems] = useState<string[] | null>(null);
  const box = useRef<HTMLTextAreaElement>(null);
  const { files, setFiles, addFiles, dragging, onPaste, drop } = useAttachments(setPanel);
  const imageRefusal = useImageRefusal(session, files);
  const queue = useMessageQueue({ ...props, sessionId: session.id });
  const completion = useComposerCompletion({ commands, box, text, setText, onInsert: () => setProblems(null), sessionId: session.id });
  const { send, sendNow, editQueued } = useComposerSend({ ...props, session, skills, commands, skipped: found.skipped, imageRefusal, box, text, setText, files, setFiles, setProblems, setPanel, completion, queue });

  const onKey = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.nativeEvent.isComposing || completion.onKey(e)) return;
    if (e.key === 'Enter' && !e.shiftKey) {
      e.preventDefault();
      void send();
    }
  };
  const onChange = (value: string, caret: number) => {
    setText(value);
    setProblems(null);
    completion.refresh(value, caret);
  };

  const hasInput = text.trim() !== '' || files.length > 0;
  const { popup } = completion;
  return (
    <div className="space-y-2" {...drop}>
      <ComposerQueue queue={queue.queue} busy={busy} onEdit={editQueued} onSteer={(id) => void queue.steer(id)} onCancel={queue.cancel} />
      <ComposerNotices panel={panel} onDismiss={() => setPanel(null)} problems={problems} onSendAnyway={() => void send(true)} files={files} onRemove={(id) => setFiles((l) => l.filter((x) => x.id !== id))} imageRefusal={imageRefusal} />
      <div className={`relative flex items-end gap-2 ${dragging ? 'rounded-md ring-2 ring-sky-500' : ''}`}>
        {popup && (
          <ComposerPopup id="composer-options" title={popup.kind === 'slash' ? 'Commands (Tab or Enter to complete)' : 'Workspace files and MCP resources (Tab or Enter to insert)'} items={popup.items} active={completion.active} onPick={completion.pick} note={popup.kind === 'mention' ? popup.note : undefined} />
        )}
        <AttachButton disabled={!!disabled} onFiles={(l) => void addFiles(l)} />
        <MessageBox box={box} text={text} completion={completion} onChange={onChange} onKeyDown={onKey} onPaste={onPaste} placeholder={placeholderOf(props)} disabled={!!disabled} />
        <SendButtons busy={busy} hasInput={hasInput} cannotSend={!!disabled || !!imageRefusal} onSend={() => void send()} onSendNow={sendNow} onStop={onStop} />
      </div>
    </div>
  );
}
