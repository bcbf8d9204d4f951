'use client';

import { useSearchParams } from 'next/navigation';
import { Suspense, useCallback, useEffect, useRef, useState } from 'react';
import type { PermissionMode, SessionSummary } from '@/lib/contract/protocol';
import { useCreateSession, usePatchSession, useSessionDetail, useSessions, useStatus } from '@/components/api';
import { Board } from '@/components/board';
import { ChangesButton, ChangesPanel } from '@/components/changes-panel';
import { Chat } from '@/components/chat';
import type { ContextView } from '@/components/context-meter';
import { EmptyState } from '@/components/empty-state';
import { Header, modelLabel } from '@/components/header';
import { InboxButton, InboxPanel, useInboxItems } from '@/components/inbox';
import { SessionSidebar, type NewSessionOptions } from '@/components/session-sidebar';
import { SettingsDialog } from '@/components/settings-dialog';
import { SideDrawer } from '@/components/side-drawer';
import { TaskPanel } from '@/components/task-panel';
import { useAttention } from '@/components/use-attention';
import { useBoard, useBoardFeed } from '@/components/use-board';
import { askNotificationsOnce } from '@/components/use-notify-setting';
import { usePagePanels } from '@/components/use-page-panels';

/** The selected session lives in the URL (?s=…), so a reload comes back to it. */
function selectSession(id: string | null) {
  const url = new URL(window.location.href);
  if (id) url.searchParams.set('s', id);
  else url.searchParams.delete('s');
  window.history.replaceState(null, '', url);
}

function Notice({ children }: { children: React.ReactNode }) {
  return <div className="flex h-full items-center justify-center p-6 text-sm text-zinc-500">{children}</div>;
}

/** A workspace with no session gets one, so the page always opens ready to type. */
function useFirstSession(list: SessionSummary[] | undefined, create: ReturnType<typeof useCreateSession>) {
  const creatingFirst = useRef(false);
  useEffect(() => {
    if (list && list.length === 0 && !creatingFirst.current) {
      creatingFirst.current = true;
      create.mutate({}, { onSuccess: (s) => selectSession(s.id) });
    }
  }, [list, create]);
}

interface MainSources {
  status: ReturnType<typeof useStatus>;
  sessions: ReturnType<typeof useSessions>;
  detail: ReturnType<typeof useSessionDetail>;
  openSettings: () => void;
  onContext: (c: ContextView | null) => void;
}

/** What the main column shows: why nothing can be (no server, no model, a failed load), Loading…, or the chat. */
function mainOf({ status, sessions, detail, openSettings, onContext }: MainSources): React.ReactNode {
  const model = status.data?.model;
  if (status.error) return <Notice>Clamp&apos;s server did not answer: {status.error.message}. Is it still running?</Notice>;
  if (sessions.error) return <Notice>The sessions could not be loaded: {sessions.error.message}</Notice>;
  if (model && !model.configured) return <EmptyState help={model.help} onOpenSettings={openSettings} />;
  if (detail.error) return <Notice>This session could not be loaded: {detail.error.message}</Notice>;
  if (!detail.data || !status.data) return <Notice>Loading…</Notice>;
  return <Chat key={detail.data.session.id} detail={detail.data} onContext={onContext} />;
}

function ClampApp() {
  const params = useSearchParams();
  const status = useStatus();
  const sessions = useSessions();
  const create = useCreateSession();
  const patch = usePatchSession();
  const [context, setContext] = useState<ContextView | null>(null);
  const p = usePagePanels();

  const list = sessions.data;
  const wanted = params.get('s');
  const active = list?.find((s) => s.id === wanted) ?? list?.[0] ?? null;
  const activeId = active?.id ?? null;
  const detail = useSessionDetail(activeId);
  // ?t=<id>: a subagent's conversation, opened from its parent's card, read-only
  const transcriptId = params.get('t');
  const transcript = useSessionDetail(transcriptId);
  useFirstSession(list, create);

  const { setSessionsOpen } = p;
  const onNew = useCallback((o: NewSessionOptions = {}) => {
    create.mutate(o, {
      onSuccess: (s) => {
        selectSession(s.id);
        setSessionsOpen(false);
      },
    });
  }, [create, setSessionsOpen]);
  const onMode = (mode: PermissionMode) => activeId && patch.mutate({ id: activeId, mode });
  const onSelect = (id: string | null) => {
    setContext(null);
    selectSession(id);
    setSessionsOpen(false);
  };
  const openSettings = () => p.setSettingsOpen(true);
  const many = useMany(p, { activeId, onScreen: !transcriptId, onSelect, defaultModel: modelLabel(status.data) });
  const main = many.board ?? (transcriptId ? <Transcript id={transcriptId} detail={transcript} onContext={setContext} /> : mainOf({ status, sessions, detail, openSettings, onContext: setContext }));

  return (
    <div className="flex h-screen flex-col">
      <Header status={status.data} session={active} context={context} onModeChange={onMode} onOpenSettings={openSettings} tasksOpen={p.tasksOpen} onOpenTasks={() => p.setTasksOpen(true)} sessionsOpen={p.sessionsOpen} onOpenSessions={() => setSessionsOpen(true)} changes={<ChangesButton sessionId={activeId} open={p.changesOpen} onOpen={() => p.setChangesOpen(true)} />} many={many.buttons} />
      {patch.error && (
        <p role="alert" className="border-b border-rose-200 bg-rose-50 px-3 py-1 text-xs text-rose-800 dark:border-rose-900 dark:bg-rose-950 dark:text-rose-200">
          {patch.error.message}
        </p>
      )}
      <div className="flex min-h-0 flex-1">
        <SideDrawer place="sessions" drawer={p.sessionsOpen} onClose={p.closeSessions}>
          <SessionSidebar sessions={list} activeId={activeId} onSelect={many.select} onNew={onNew} creating={create.isPending} createError={create.error?.message} />
        </SideDrawer>
        <main className="min-w-0 flex-1">{main}</main>
        <SideDrawer place="tasks" drawer={p.tasksOpen} onClose={p.closeTasks}>
          <TaskPanel />
        </SideDrawer>
      </div>
      <SettingsDialog open={p.settingsOpen} onClose={() => p.setSettingsOpen(false)} />
      {p.changesOpen && activeId && <ChangesPanel key={activeId} sessionId={activeId} onClose={() => p.setChangesOpen(false)} />}
    </div>
  );
}

interface ManyOptions {
  activeId: string | null;
  /** the active session's chat is what the main column shows (not a transcript) */
  onScreen: boolean;
  onSelect: (id: string | null) => void;
  defaultModel: string;
}

/**
 * The board and the inbox: the header's Board and Inbox buttons (with the inbox panel), the board in the main
 * column while open, the live feed both read, and what the tab's title, icon and notifications say while
 * something waits. Opening a session from either closes them.
 */
function useMany(p: ReturnType<typeof usePagePanels>, o: ManyOptions) {
  useBoardFeed();
  const board = useBoard();
  const inbox = useInboxItems();
  const onScreenId = p.boardOpen || !o.onScreen ? null : o.activeId;
  const open = (id: string | null) => {
    o.onSelect(id);
    p.setBoardOpen(false);
    p.setInboxOpen(false);
  };
  useAttention(board.data, onScreenId, open);
  const buttons = (
    <>
      <button
        type="button"
        aria-pressed={p.boardOpen}
        onClick={() => {
          askNotificationsOnce();
          p.setBoardOpen(!p.boardOpen);
        }}
        aria-label="Board"
        title="Board: every session as it stands"
        className="rounded border border-zinc-300 px-2 py-0.5 text-xs text-zinc-700 hover:bg-zinc-100 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 aria-pressed:bg-zinc-200 max-sm:px-1 dark:border-zinc-700 dark:text-zinc-200 dark:hover:bg-zinc-800 dark:aria-pressed:bg-zinc-700"
      >
        <span className="max-sm:hidden">Board</span>
        <span aria-hidden="true" className="sm:hidden">▦</span>
      </button>
      <InboxButton
        count={inbox.items.length}
        open={p.inboxOpen}
        onToggle={() => {
          askNotificationsOnce();
          p.setInboxOpen(!p.inboxOpen);
        }}
      />
      {p.inboxOpen && <InboxPanel items={inbox.items} markAnswered={inbox.markAnswered} onScreenId={onScreenId} onOpenSession={open} onClose={() => p.setInboxOpen(false)} />}
    </>
  );
  const boardView = p.boardOpen ? <Board activeId={o.activeId} defaultModel={o.defaultModel} onOpen={open} onClose={() => p.setBoardOpen(false)} /> : null;
  return { buttons, board: boardView, select: open };
}

/** A subagent's conversation as it was stored: its task, its calls and its report; nothing can be sent to it. */
function Transcript({ id, detail, onContext }: { id: string; detail: ReturnType<typeof useSessionDetail>; onContext: (c: ContextView | null) => void }) {
  if (detail.error) return <Notice>This transcript could not be loaded: {detail.error.message}</Notice>;
  if (!detail.data) return <Notice>Loading…</Notice>;
  const back = detail.data.session.parentId ? `?s=${encodeURIComponent(detail.data.session.parentId)}` : '?';
  return (
    <div className="flex h-full flex-col" data-transcript={id}>
      <p className="border-b border-indigo-200 bg-indigo-50 px-4 py-1.5 text-xs text-indigo-900 dark:border-indigo-900 dark:bg-indigo-950 dark:text-indigo-200">
        Subagent transcript (read-only): <span className="font-medium">{detail.data.session.title}</span>.{' '}
        <a href={back} className="underline">
          Back to the conversation
        </a>
      </p>
      <div className="min-h-0 flex-1">
        <Chat key={id} detail={detail.data} disabled="This is a subagent's transcript: it is read-only." onContext={onContext} />
      </div>
    </div>
  );
}

export default function Page() {
  return (
    <Suspense fallback={<Notice>Loading…</Notice>}>
      <ClampApp />
    </Suspense>
  );
}
