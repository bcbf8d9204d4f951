import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BUDGET, type Budget } from '../../contract/budget';
import type { FileCommand } from '../../contract/command-text';
import { clipLine, formatBytes } from '../../contract/text';
import { isInside } from '../../policy/workspace';
import type { Db } from '../../store/db';
import { getSetting, setSetting } from '../../store/settings';
import { parseFrontMatter } from './skill-files';

/**
 * Commands from files: `<name>.md` in `.clamp/commands/` and `.claude/commands/` of the workspace and in
 * the person's folders (`<dataDir>/commands`, `~/.claude/commands` when the person turned that on), one
 * level of sub-folders as `folder:name`. Front matter (description, argument-hint, allowed-tools, model)
 * is optional, as in Claude Code. Read fresh on every listing; a name found earlier wins.
 */

const CLAUDE_USER_FILES_KEY = 'commands.claudeUser';

/** Whether the person's Claude Code folders (`~/.claude/commands`, `~/.claude/agents`) are read: the settings page's switch, default off. */
export function claudeUserFilesOn(db: Db): boolean {
  return getSetting<boolean>(db, CLAUDE_USER_FILES_KEY) === true;
}

export function setClaudeUserFiles(db: Db, on: boolean): void {
  setSetting(db, CLAUDE_USER_FILES_KEY, on);
}

/** The home whose `.claude` folders are read, when the person turned that on; else undefined. */
export function claudeHome(db: Db, env: NodeJS.ProcessEnv = process.env): string | undefined {
  return claudeUserFilesOn(db) ? env.HOME || os.homedir() : undefined;
}

/** A folder searched, with whose it is. */
export interface CommandRoot {
  dir: string;
  source: FileCommand['source'];
}

/** The folders searched, in precedence order; `home` is given only when the person turned `~/.claude` on. */
export function commandRoots(workspace: string, dataDir: string, home?: string): CommandRoot[] {
  return [
    { dir: path.join(workspace, '.clamp', 'commands'), source: 'workspace' },
    { dir: path.join(workspace, '.claude', 'commands'), source: 'workspace' },
    { dir: path.join(dataDir, 'commands'), source: 'person' },
    ...(home ? [{ dir: path.join(home, '.claude', 'commands'), source: 'person' as const }] : []),
  ];
}

/** What a scan found: the commands, and the files skipped with why. */
export interface CommandScan {
  commands: FileCommand[];
  skipped: { path: string; reason: string }[];
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** `allowed-tools` as written: a YAML list on one line (`[Bash(git add:*), Read]`) or comma-separated. */
function toolList(v: string | undefined): string[] | undefined {
  if (!v?.trim()) return undefined;
  const inner = v.trim().replace(/^\[(.*)\]$/s, '$1');
  const items = inner.split(/,(?![^(]*\))/).map((s) => s.trim().replace(/^["']|["']$/g, '')).filter(Boolean);
  return items.length ? items : undefined;
}

/** A command's or agent's file as text, or why it cannot be read (not a file, past its cap — `cap` names the budget's constant —, unreadable). */
export function readCapped(file: string, b: Budget, cap: 'COMMAND_FILE_MAX_BYTES' | 'AGENT_FILE_MAX_BYTES'): { text: string } | { reason: string } {
  try {
    const st = fs.statSync(file);
    if (!st.isFile()) return { reason: 'not a file' };
    if (st.size > b[cap]) return { reason: `${formatBytes(st.size)}, larger than ${formatBytes(b[cap])} (${cap})` };
    return { text: fs.readFileSync(file, 'utf8') };
  } catch {
    return { reason: 'unreadable' };
  }
}

/** One command file, or why it cannot be used. */
function readCommand(file: string, name: string, root: CommandRoot, b: Budget): FileCommand | { reason: string } {
  const read = readCapped(file, b, 'COMMAND_FILE_MAX_BYTES');
  if ('reason' in read) return read;
  const { text } = read;
  const fm = parseFrontMatter(text);
  const data = fm?.data ?? {};
  const body = (fm ? fm.body : text.replace(/^\uFEFF/, '')).trim();
  if (!body) return { reason: 'the file has no text after its front matter' };
  const first = body.split('\n').find((l) => l.trim())?.replace(/^#+\s*/, '') ?? '';
  const description = clipLine((data.description ?? '').replace(/\s+/g, () => ' ').trim() || first, b.COMMAND_DESCRIPTION_MAX_BYTES);
  const hint = data['argument-hint']?.trim();
  const model = data.model?.trim();
  const allowedTools = toolList(data['allowed-tools']);
  return { name, description, ...(hint ? { argumentHint: hint } : {}), ...(allowedTools ? { allowedTools } : {}), ...(model ? { model } : {}), source: root.source, path: file, body };
}

/** The `.md` files of a root and of its sub-folders (one level), with the command name each gives. */
function filesOf(dir: string): { file: string; name: string }[] {
  const out: { file: string; name: string }[] = [];
  const list = (d: string) => {
    try {
      return fs.readdirSync(d, { withFileTypes: true }).sort((a, c) => (a.name < c.name ? -1 : a.name > c.name ? 1 : 0));
    } catch {
      return [];
    }
  };
  for (const e of list(dir)) {
    if (e.name.endsWith('.md')) out.push({ file: path.join(dir, e.name), name: e.name.slice(0, -3) });
    else if (e.isDirectory() && NAME.test(e.name)) {
      for (const s of list(path.join(dir, e.name))) if (s.name.endsWith('.md')) out.push({ file: path.join(dir, e.name, s.name), name: `${e.name}:${s.name.slice(0, -3)}` });
    }
  }
  return out;
}

/** A workspace's command is its own file: its real path lies inside the workspace (no link out). */
function realInside(workspace: string, file: string): boolean {
  try {
    return isInside(workspace, fs.realpathSync.native(file));
  } catch {
    return false;
  }
}

/** Scan every command folder. Never throws: unreadable or invalid files are skipped with a reason. */
export function scanCommands(workspace: string, roots: readonly CommandRoot[], b: Budget = BUDGET): CommandScan {
  const byName = new Map<string, FileCommand>();
  const skipped: CommandScan['skipped'] = [];
  for (const root of roots) {
    if (!fs.existsSync(root.dir)) continue;
    for (const { file, name } of filesOf(root.dir)) {
      const why = !name.split(':').every((p) => NAME.test(p))
        ? `the name ${JSON.stringify(clipLine(name, 80))} is not a command name (letters, digits, . _ -)`
        : root.source === 'workspace' && !realInside(workspace, file)
          ? 'it leads outside the workspace (through a link)'
          : byName.has(name)
            ? `the name ${name} is already taken by ${byName.get(name)!.path}`
            : byName.size >= b.COMMAND_FILES_MAX_COUNT
              ? `more than ${b.COMMAND_FILES_MAX_COUNT} commands (COMMAND_FILES_MAX_COUNT)`
              : undefined;
      if (why) {
        skipped.push({ path: file, reason: why });
        continue;
      }
      const got = readCommand(file, name, root, b);
      if ('reason' in got) skipped.push({ path: file, reason: got.reason });
      else byName.set(name, got);
    }
  }
  return { commands: [...byName.values()], skipped };
}
