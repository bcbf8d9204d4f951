import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WORKSPACE_HEADER, WORKSPACE_PARAM, WORKSPACE_RECENT_MAX_ITEMS, type WorkspaceEntry, type WorkspacesAnswer } from '../contract/workspace';
import { isInside } from '../policy/workspace';
import { openDb, type Db } from '../store/db';
import { getSetting, setSetting } from '../store/settings';
import { sessionHome } from '../store/worktrees';
import { HttpError, type ServerConfig } from './http';

const SETTINGS_KEY = 'workspaces';

interface Opened {
  path: string;
  openedAt: number;
}

function openedList(db: Db): Opened[] {
  return getSetting<{ opened?: Opened[] }>(db, SETTINGS_KEY)?.opened ?? [];
}

function isOpen(db: Db, workspace: string): boolean {
  return openedList(db).some((o) => o.path === workspace);
}

/**
 * Check a folder a person asks to open and give its real path: absolute (or ~/…), existing, a directory Clamp can
 * read and enter, not `/` and not inside Clamp's data dir. Throws HttpError 400 whose text says what to give instead.
 */
export function checkWorkspacePath(raw: string, dataDir: string, home = os.homedir()): string {
  const given = raw.trim();
  const expanded = given === '~' || given.startsWith('~/') ? path.join(home, given.slice(1)) : given;
  if (!path.isAbsolute(expanded)) throw new HttpError(400, `${given} is not an absolute path. Give the folder's full path, such as /home/you/project or ~/project.`);
  let real: string;
  try {
    real = fs.realpathSync.native(expanded);
  } catch {
    throw new HttpError(400, `${expanded} does not exist. Check the path, or create the folder first.`);
  }
  if (!fs.statSync(real).isDirectory()) throw new HttpError(400, `${expanded} is a file, not a folder. Open the folder that holds it: ${path.dirname(real)}.`);
  try {
    fs.accessSync(real, fs.constants.R_OK | fs.constants.X_OK);
  } catch {
    throw new HttpError(400, `${real} cannot be read by Clamp (permission denied). Give Clamp's user read access to it, or open another folder.`);
  }
  if (real === path.parse(real).root) throw new HttpError(400, `${real} is the root of the file system and cannot be a workspace. Open a project folder.`);
  if (isInside(dataDir, real)) throw new HttpError(400, `${real} is Clamp's data dir (${dataDir}) or inside it and cannot be a workspace. Open a project folder.`);
  return real;
}

/** Open a folder on this server (checked as checkWorkspacePath does) and put it first among the recent ones. */
export function openWorkspace(cfg: ServerConfig, raw: string, now = Date.now()): WorkspaceEntry {
  const real = checkWorkspacePath(raw, cfg.dataDir);
  const db = openDb(cfg.dataDir);
  setSetting(db, SETTINGS_KEY, { opened: [{ path: real, openedAt: now }, ...openedList(db).filter((o) => o.path !== real)] });
  return entryOf(cfg, db, real, now);
}

function sessionCount(db: Db, workspace: string): number {
  return (db.prepare('SELECT COUNT(*) AS n FROM sessions WHERE workspace = ? AND parent_id IS NULL').get(workspace) as { n: number }).n;
}

function entryOf(cfg: ServerConfig, db: Db, at: string, openedAt: number | null): WorkspaceEntry {
  return { path: at, isDefault: at === cfg.workspace, openedAt, sessions: sessionCount(db, at) };
}

/** GET /api/workspaces: the launcher's workspace, then the most recently opened others, newest first. */
export function workspaceList(cfg: ServerConfig): WorkspacesAnswer {
  const db = openDb(cfg.dataDir);
  const opened = openedList(db);
  const own = opened.find((o) => o.path === cfg.workspace);
  const others = opened.filter((o) => o.path !== cfg.workspace).slice(0, WORKSPACE_RECENT_MAX_ITEMS);
  return { workspaces: [entryOf(cfg, db, cfg.workspace, own?.openedAt ?? null), ...others.map((o) => entryOf(cfg, db, o.path, o.openedAt))] };
}

/**
 * The configuration a request works with: a request about a session works in that session's own workspace (so
 * its files, rules, memories and approvals can never be another workspace's); any other request in the workspace
 * it names (header or ?workspace=) when that one is open here, else in the launcher's. Throws HttpError 404 for a
 * named workspace that was never opened.
 */
export function requestConfig(base: ServerConfig, req: Request, url: URL, sessionId?: string): ServerConfig {
  if (sessionId !== undefined) return sessionConfig(base, sessionId);
  const named = req.headers.get(WORKSPACE_HEADER) || url.searchParams.get(WORKSPACE_PARAM);
  if (!named) return base;
  const want = path.resolve(named);
  if (want === base.workspace) return base;
  if (!isOpen(openDb(base.dataDir), want)) {
    throw new HttpError(404, `The workspace ${want} is not open on this server. Open it first (the page's workspace menu, or POST /api/workspaces with { "path": "${want}" }).`);
  }
  return { ...base, workspace: want };
}

/**
 * The configuration for a request about one session: its own workspace when that is open on this server. An unknown
 * session, or one of a workspace never opened here, keeps the base, so its route answers 404.
 */
export function sessionConfig(base: ServerConfig, sessionId: string): ServerConfig {
  const db = openDb(base.dataDir);
  const home = sessionHome(db, sessionId);
  if (!home || home === base.workspace || !isOpen(db, home)) return base;
  return { ...base, workspace: home };
}
