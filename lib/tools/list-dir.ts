/**
 * list_dir: one folder, directories first then files, each in byte order of their names, with exact
 * sizes; paged by entry count. Nothing is hidden: build, vendor and dot folders are listed like any other.
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { defineTool } from '../contract/types';
import { ToolError, type ToolContext, type ToolOutput, type ToolResult } from '../contract/types';
import type { Budget } from '../contract/budget';
import { isInside } from '../policy/workspace';
import type { Pin } from '../policy/confined-fs';
import { pinConfined } from '../policy/confined-io';
import { confinedPath } from '../contract/paths';
import { formatCount } from '../contract/text';
import { notFoundError, pathArg } from './common/near-names';

const schema = z.strictObject({
  path: z.string().optional().describe("Folder relative to the workspace root (default '.')."),
  offset: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe('Entries to skip (default 0).'),
});

interface Entry {
  name: string;
  kind: 'dir' | 'file' | 'link-dir' | 'link-file' | 'link-broken' | 'other';
}

const isDirKind = (k: Entry['kind']) => k === 'dir' || k === 'link-dir';

/** A name as one safe line: quoted when it holds control characters (a newline would fake an entry). */
function showName(name: string): string {
  return /[\u0000-\u001f\u007f]/.test(name) ? JSON.stringify(name) : name;
}

/**
 * Classify every entry of the held folder; only symlinks cost a stat (to sort a link to a folder among the
 * folders). `dir.via` reaches the folder that was opened and checked, whatever its path leads to now.
 */
async function readEntries(dir: Pin): Promise<Entry[]> {
  const dirents = await fs.promises.readdir(dir.via, { withFileTypes: true });
  return Promise.all(
    dirents.map(async (d): Promise<Entry> => {
      if (d.isDirectory()) return { name: d.name, kind: 'dir' };
      if (d.isFile()) return { name: d.name, kind: 'file' };
      if (d.isSymbolicLink()) {
        try {
          const st = await fs.promises.stat(`${dir.via}/${d.name}`);
          return { name: d.name, kind: st.isDirectory() ? 'link-dir' : 'link-file' };
        } catch {
          return { name: d.name, kind: 'link-broken' };
        }
      }
      return { name: d.name, kind: 'other' };
    }),
  );
}

/** The line for one entry of the held folder: "dir/", "file.ts  1234", "link -> target". */
async function entryLine(dir: Pin, workspace: string, e: Entry): Promise<string> {
  const abs = `${dir.via}/${e.name}`;
  const name = showName(e.name);
  if (e.kind === 'dir') return `${name}/`;
  if (e.kind === 'file' || e.kind === 'other') {
    try {
      const st = await fs.promises.lstat(abs);
      if (st.isFile()) return `${name}  ${st.size}`;
      const what = st.isFIFO() ? 'pipe' : st.isSocket() ? 'socket' : st.isCharacterDevice() || st.isBlockDevice() ? 'device' : 'special file';
      return `${name}  (${what})`;
    } catch {
      return `${name}  (vanished while listing)`;
    }
  }
  let target = '?';
  try {
    target = await fs.promises.readlink(abs);
  } catch {
    // keep '?': the link changed while listing
  }
  const shownTarget = showName(target);
  if (e.kind === 'link-broken') return `${name} -> ${shownTarget}  (broken link)`;
  let outside = false;
  try {
    outside = !isInside(workspace, await fs.promises.realpath(path.join(dir.real, e.name)));
  } catch {
    outside = false;
  }
  const note = outside ? '  (outside the workspace)' : '';
  return e.kind === 'link-dir' ? `${name}/ -> ${shownTarget}${note}` : `${name} -> ${shownTarget}${note}`;
}

/** Sort by the UTF-8 bytes of the names (stable across platforms and locales); keys encoded once. */
function sortByName(entries: Entry[]): Entry[] {
  return entries
    .map((e) => ({ e, key: Buffer.from(e.name) }))
    .sort((a, b) => Buffer.compare(a.key, b.key))
    .map((x) => x.e);
}

const plural = (n: number, one: string, many: string) => `${formatCount(n)} ${n === 1 ? one : many}`;

function describe(b: Budget): string {
  return [
    'List one folder (not recursive): directories first ("name/"), then files with their size in bytes ("name  1234"), each sorted by name; symlinks as "name -> target". Nothing is hidden (dot files, build output, vendor folders).',
    `At most ${b.LIST_DIR_MAX_ENTRIES} entries per call; a longer listing gives the total and the offset of the next page.`,
    'To find files by pattern across the tree use glob; to read a file use read_file.'
  ].join('\n');
}

/** What list_dir tells the page about a folder (the counts only when it is not empty). */
export interface ListDirMeta {
  path: string;
  /** entries in the folder */
  total: number;
  directories?: number;
  files?: number;
  /** the page's first entry, 0-based, and how many it shows */
  offset?: number;
  shown?: number;
}

async function run(input: z.infer<typeof schema>, ctx: ToolContext): Promise<ToolOutput<ListDirMeta>> {
  const target = confinedPath(ctx, input.path ?? '.');
  const { rel } = target;
  // the folder itself, opened and checked inside the workspace: a link put in its way since is not listed
  const dir = pinConfined(target, 'list');
  if (!dir) throw notFoundError(ctx.workspace, rel, 'Directory');
  try {
    return await listHeld(dir, rel, input.offset ?? 0, ctx);
  } finally {
    dir.close();
  }
}

/** The page of the held folder's entries at offset. */
async function listHeld(dir: Pin, rel: string, offset: number, ctx: ToolContext): Promise<ToolOutput<ListDirMeta>> {
  const b = ctx.budget;
  if (!dir.stat.isDirectory()) {
    const parent = path.posix.dirname(rel);
    throw new ToolError(
      `${rel} is a file, not a directory. Use read_file with path=${pathArg(rel)} to read it${parent === '.' ? '' : `, or list_dir with path=${pathArg(parent)} to see its folder`}.`,
    );
  }
  if (ctx.signal.aborted) throw new Error('aborted');
  const entries = await readEntries(dir);
  const dirs = sortByName(entries.filter((e) => isDirKind(e.kind)));
  const files = sortByName(entries.filter((e) => !isDirKind(e.kind)));
  const all = [...dirs, ...files];
  const total = all.length;
  const where = rel === '.' ? 'the workspace root' : `${rel}/`;
  if (total === 0) {
    if (offset > 0) throw new ToolError(`Offset ${offset} is past the end: ${where} is empty (0 entries).`);
    return { output: `(${where} is empty: 0 entries)`, meta: { path: rel, total: 0 } };
  }
  if (offset >= total) {
    const lastPage = Math.floor((total - 1) / b.LIST_DIR_MAX_ENTRIES) * b.LIST_DIR_MAX_ENTRIES;
    throw new ToolError(
      `Offset ${offset} is past the end: ${where} has ${plural(total, 'entry', 'entries')}. Use an offset from 0 to ${total - 1} (offset=${lastPage} shows the last page).`,
    );
  }
  const page = all.slice(offset, offset + b.LIST_DIR_MAX_ENTRIES);
  const lines = await Promise.all(page.map((e) => entryLine(dir, ctx.workspace, e)));
  const first = offset + 1;
  const last = offset + page.length;
  const counts = `${plural(dirs.length, 'directory', 'directories')}, ${plural(files.length, 'file', 'files')}`;
  const more = last < total;
  let footer: string;
  if (first === 1 && !more) footer = `(${plural(total, 'entry', 'entries')}: ${counts})`;
  else footer = `(${plural(total, 'entry', 'entries')}, showing ${first}–${last}; ${more ? `offset=${last} for more` : 'end of listing'}; ${counts} in all)`;
  return {
    output: `${lines.join('\n')}\n${footer}`,
    ...(more ? { hint: `Next page: list_dir with path=${pathArg(rel)} offset=${last}.` } : {}),
    truncation: more ? { unit: 'entries' as const, shown: page.length, total, by: 'tool' as const } : null,
    meta: { path: rel, total, directories: dirs.length, files: files.length, offset, shown: page.length },
  };
}

export const listDirTool = defineTool({
  name: 'list_dir',
  effect: 'read',
  traits: { hookAs: { name: 'LS' } },
  schema,
  describe,
  summary: (input, r?: ToolResult<ListDirMeta>) => {
    const where = r?.meta?.path ?? (input.path || '.');
    return r?.meta?.total !== undefined ? `${where} (${plural(r.meta.total, 'entry', 'entries')})` : where;
  },
  paths: (input) => [{ path: input.path ?? '.', access: 'read', field: 'path' }],
  run,
});
