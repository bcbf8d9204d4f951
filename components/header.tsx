'use client';

import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { PERMISSION_MODES } from '@/lib/contract/types';
import { fetchTasks, TASKS_KEY } from '@/lib/ui/tasks-api';
import { useWorktree } from './worktree-api';
import type { PermissionMode, SessionSummary } from '@/lib/contract/protocol';
import type { StatusAnswer } from '@/lib/contract/rest';
import { ContextMeter, type ContextView } from './context-meter';
import { ModelPicker } from './model-picker';

export const MODE_HELP: Record<PermissionMode, string> = {
  default: 'reads run; writes and commands ask',
  'accept-edits': 'writes run; commands ask',
  plan: 'read-only tools only',
  debug: 'commands ask; writes are blocked',
  auto: 'nothing asks; dangerous commands are denied unless a rule allows them',
};

/** The model's name as the header shows it (a scripted model is labelled as a demo). */
export function modelLabel(status: StatusAnswer | undefined): string {
  if (!status) return '…';
  if (status.model.scripted) return 'scripted demo (not a real model)';
  if (!status.model.configured) return 'no model configured';
  return status.model.label;
}

/** A header button that opens a drawer (the task panel, the sessions list) and says whether it is open. */
function DrawerButton({ open, onOpen, label, title, className, children }: { open: boolean; onOpen: () => void; label?: string; title: string; className: string; children: ReactNode }) {
  return (
    <button type="button" onClick={onOpen} aria-haspopup="dialog" aria-expanded={open} aria-label={label} title={title} className={className}>
      {children}
    </button>
  );
}

/**
 * Below `lg` the task panel is not on screen: this button opens it in a drawer and shows how many
 * tasks run (from the same task list the panel keeps live).
 */
function TasksButton({ open, onOpen }: { open: boolean; onOpen: () => void }) {
  const tasks = useQuery({ queryKey: TASKS_KEY, queryFn: fetchTasks });
  const running = tasks.data?.filter((t) => t.status === 'running').length ?? 0;
  return (
    <DrawerButton
      open={open}
      onOpen={onOpen}
      title={running ? `Background tasks: ${running} running` : 'Background tasks'}
      className="flex items-center gap-1.5 rounded border border-zinc-300 px-2 py-0.5 text-xs text-zinc-700 hover:bg-zinc-100 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 lg:hidden dark:border-zinc-700 dark:text-zinc-200 dark:hover:bg-zinc-800"
    >
      Tasks{running > 0 ? ' ' : ''}
      {running > 0 && (
        <span className="rounded-full bg-sky-600 px-1.5 text-[11px] font-medium tabular-nums text-white">
          {running}
          <span className="sr-only"> running</span>
        </span>
      )}
    </DrawerButton>
  );
}

/** The header's icon buttons (Sessions, Settings). */
const ICON_BUTTON_CLS = 'rounded p-1 text-zinc-600 hover:bg-zinc-100 hover:text-zinc-900 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 dark:text-zinc-400 dark:hover:bg-zinc-800 dark:hover:text-zinc-100';

/** Below `md` the sessions list is not on screen: this button opens it in a drawer. */
function SessionsButton({ open, onOpen }: { open: boolean; onOpen: () => void }) {
  return (
    <DrawerButton open={open} onOpen={onOpen} label="Sessions" title="Sessions" className={`${ICON_BUTTON_CLS} md:hidden`}>
      <svg aria-hidden="true" viewBox="0 0 20 20" className="h-4 w-4" fill="currentColor">
        <path fillRule="evenodd" d="M3 5h14v1.5H3V5Zm0 4.25h14v1.5H3v-1.5Zm0 4.25h14V15H3v-1.5Z" clipRule="evenodd" />
      </svg>
    </DrawerButton>
  );
}

/** Shown only when commands are not confined: the sandbox is off, or cannot start here (with why, on hover). */
function SandboxBadge({ status }: { status: StatusAnswer | undefined }) {
  const sb = status?.sandbox;
  if (!sb || (sb.level !== 'off' && sb.available)) return null;
  const off = sb.level === 'off';
  return (
    <span
      role="status"
      data-testid="sandbox-badge"
      title={off ? 'CLAMP_SANDBOX=off: commands run with your full access.' : `${sb.problem}. Every command asks first; auto mode runs none.`}
      className="shrink-0 rounded bg-red-100 px-1.5 py-0.5 text-xs text-red-900 dark:bg-red-950 dark:text-red-200"
    >
      {off ? 'sandbox off' : 'no sandbox'}
    </span>
  );
}

/** Where the session works: its own worktree's folder and branch while it has one, else the workspace. */
function WorkspacePath({ status, session }: { status: StatusAnswer | undefined; session: SessionSummary | null }) {
  const wt = useWorktree(session?.id ?? null).data;
  const inTree = wt?.state === 'active' && wt.path ? wt : null;
  const text = inTree ? `${inTree.path} (worktree, branch ${inTree.branch})` : (status?.workspace ?? '…');
  return (
    <span data-testid="header-workspace" className="min-w-0 truncate font-mono text-xs text-zinc-600 max-sm:hidden dark:text-zinc-400" title={inTree ? `${text}, from ${inTree.base} in ${inTree.repo}` : status?.workspace}>
      {text}
    </span>
  );
}

/** The session's model picker; the model's label where there is nothing to pick (no session, no model, the scripted demo). */
function ModelBadge({ status, session }: { status: StatusAnswer | undefined; session: SessionSummary | null }) {
  const scripted = status?.model.scripted;
  if (session && status?.model.configured && !scripted) return <ModelPicker status={status} session={session} label={modelLabel(status)} />;
  return (
    <span
      className={`shrink-0 rounded px-1.5 py-0.5 text-xs max-lg:min-w-0 max-lg:shrink max-lg:truncate ${scripted ? 'bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-200' : 'bg-zinc-100 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300'}`}
      title={status?.model.provider ? `${status.model.provider}: ${status.model.model ?? ''}` : undefined}
    >
      {modelLabel(status)}
    </span>
  );
}

/** The session's permission mode, each option with what it lets run. */
function ModePicker({ status, session, onModeChange }: { status: StatusAnswer | undefined; session: SessionSummary | null; onModeChange: (mode: PermissionMode) => void }) {
  return (
    <label className="flex items-center gap-1.5 text-xs text-zinc-600 dark:text-zinc-400">
      <span className="max-sm:sr-only">Mode</span>
      <select
        id="mode-picker"
        value={session?.mode ?? status?.defaultMode ?? 'default'}
        disabled={!session}
        onChange={(e) => onModeChange(e.target.value as PermissionMode)}
        title={`${session?.mode ?? 'default'}: ${MODE_HELP[session?.mode ?? 'default']}`}
        className="rounded border border-zinc-300 bg-white px-1.5 py-0.5 text-xs text-zinc-900 focus:outline-none focus:ring-2 focus:ring-sky-500 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100"
      >
        {PERMISSION_MODES.map((m) => (
          <option key={m} value={m} title={MODE_HELP[m]}>
            {m}
          </option>
        ))}
      </select>
    </label>
  );
}

function SettingsButton({ onOpen }: { onOpen: () => void }) {
  return (
    <button
      type="button"
      onClick={onOpen}
      aria-label="Settings"
      title="Settings"
      className={ICON_BUTTON_CLS}
    >
      <svg aria-hidden="true" viewBox="0 0 20 20" className="h-4 w-4" fill="currentColor">
        <path
          fillRule="evenodd"
          d="M8.3 1.6a1.7 1.7 0 0 1 3.4 0l.1.6a1.7 1.7 0 0 0 2.5 1l.5-.3a1.7 1.7 0 0 1 2.4 2.4l-.3.5a1.7 1.7 0 0 0 1 2.5l.6.1a1.7 1.7 0 0 1 0 3.4l-.6.1a1.7 1.7 0 0 0-1 2.5l.3.5a1.7 1.7 0 0 1-2.4 2.4l-.5-.3a1.7 1.7 0 0 0-2.5 1l-.1.6a1.7 1.7 0 0 1-3.4 0l-.1-.6a1.7 1.7 0 0 0-2.5-1l-.5.3a1.7 1.7 0 0 1-2.4-2.4l.3-.5a1.7 1.7 0 0 0-1-2.5l-.6-.1a1.7 1.7 0 0 1 0-3.4l.6-.1a1.7 1.7 0 0 0 1-2.5l-.3-.5a1.7 1.7 0 0 1 2.4-2.4l.5.3a1.7 1.7 0 0 0 2.5-1l.1-.6ZM10 13a3 3 0 1 0 0-6 3 3 0 0 0 0 6Z"
          clipRule="evenodd"
        />
      </svg>
    </button>
  );
}

/** Workspace path, model, the session's permission mode, context use, the settings button (and the Sessions button below `md`, the Tasks button below `lg`). */
export function Header({
  status,
  session,
  context,
  onModeChange,
  onOpenSettings,
  tasksOpen,
  onOpenTasks,
  sessionsOpen,
  onOpenSessions,
  changes,
  many,
}: {
  status: StatusAnswer | undefined;
  session: SessionSummary | null;
  context: ContextView | null;
  onModeChange: (mode: PermissionMode) => void;
  onOpenSettings: () => void;
  tasksOpen: boolean;
  onOpenTasks: () => void;
  sessionsOpen: boolean;
  onOpenSessions: () => void;
  /** the Changes button (components/changes-panel.tsx) */
  changes?: ReactNode;
  /** the Board and Inbox buttons (components/board.tsx, components/inbox.tsx) */
  many?: ReactNode;
}) {
  return (
    <header className="flex min-h-11 shrink-0 flex-wrap items-center gap-x-2 gap-y-1 border-b border-zinc-200 bg-white px-2 py-1 text-sm sm:h-11 sm:flex-nowrap sm:gap-4 sm:px-3 sm:py-0 dark:border-zinc-800 dark:bg-zinc-900">
      <SessionsButton open={sessionsOpen} onOpen={onOpenSessions} />
      <span className="flex items-center gap-1.5 font-semibold tracking-tight">
        <span aria-hidden="true" className="inline-block h-2.5 w-2.5 rounded-sm bg-sky-600" />
        Clamp
      </span>
      <WorkspacePath status={status} session={session} />
      <ModelBadge status={status} session={session} />
      <SandboxBadge status={status} />
      <div className="ml-auto flex shrink-0 items-center gap-2 max-sm:min-w-0 max-sm:shrink max-sm:flex-wrap max-sm:justify-end sm:gap-4">
        <ContextMeter view={context} windowTokens={status?.model.windowTokens} windowSource={status?.model.windowSource} />
        <ModePicker status={status} session={session} onModeChange={onModeChange} />
        {many}
        {changes}
        <TasksButton open={tasksOpen} onOpen={onOpenTasks} />
        <SettingsButton onOpen={onOpenSettings} />
      </div>
    </header>
  );
}
