'use client';

import { useCallback, useState } from 'react';
import { useWideScreen } from './side-drawer';

/**
 * What the page has open besides the chat: the settings, the changes panel, the board, the inbox, and the drawers — the task
 * panel below `lg`, the sessions list below `md`. A window widened past a drawer's breakpoint shows it as
 * a column instead, so the drawer closes.
 */
export function usePagePanels() {
  const [settingsOpen, setSettingsOpen] = useState(false);
  // below lg the task panel opens as a drawer; a window widened past lg shows it as the column instead
  const [tasksOpen, setTasksOpen] = useState(false);
  const wide = useWideScreen();
  if (wide && tasksOpen) setTasksOpen(false);
  const closeTasks = useCallback(() => setTasksOpen(false), []);
  // below md the sessions list opens as a drawer from the header's Sessions button
  const [sessionsOpen, setSessionsOpen] = useState(false);
  const mediumWide = useWideScreen('md');
  if (mediumWide && sessionsOpen) setSessionsOpen(false);
  const closeSessions = useCallback(() => setSessionsOpen(false), []);
  const [changesOpen, setChangesOpen] = useState(false);
  // the board takes the main column's place; the inbox opens over the page
  const [boardOpen, setBoardOpen] = useState(false);
  const [inboxOpen, setInboxOpen] = useState(false);
  return { settingsOpen, setSettingsOpen, tasksOpen, setTasksOpen, closeTasks, sessionsOpen, setSessionsOpen, closeSessions, changesOpen, setChangesOpen, boardOpen, setBoardOpen, inboxOpen, setInboxOpen };
}
