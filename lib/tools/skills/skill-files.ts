import fs from 'node:fs';
import path from 'node:path';
import { BUDGET, type Budget } from '../../contract/budget';
import { byteLength, clipLine, formatBytes, formatCount, headBytes } from '../../contract/text';
import { isInside } from '../../policy/workspace';

/**
 * Skills: SKILL.md files (front matter `name` and `description`, then instructions) in
 * .clamp/skills/<dir>/ and .claude/skills/<dir>/ of the workspace, and <dataDir>/skills/<dir>/.
 * Found fresh on every call (a few directory reads), so a new skill shows without a restart.
 */

/** A skill found on disk. */
export interface Skill {
  name: string;
  description: string;
  /** absolute path of its SKILL.md */
  path: string;
  /** where it was found */
  source: 'workspace' | 'data';
}

/** What a scan found: usable skills, and the files it skipped with why. */
export interface SkillScan {
  skills: Skill[];
  skipped: { path: string; reason: string }[];
  /** skills past SKILLS_MAX_COUNT, not listed */
  overflow: number;
}

/** The folders searched, in precedence order (a name found earlier wins). */
export function skillRoots(workspace: string, dataDir: string): { dir: string; source: Skill['source'] }[] {
  return [
    { dir: path.join(workspace, '.clamp', 'skills'), source: 'workspace' },
    { dir: path.join(workspace, '.claude', 'skills'), source: 'workspace' },
    { dir: path.join(dataDir, 'skills'), source: 'data' },
  ];
}

/** Front matter is at the top; reading this much is enough to find its end. */
const FRONT_MATTER_MAX_BYTES = 16 * 1024;

/** Parse `---` front matter of simple `key: value` lines (quoted values and `|`/`>` blocks too). */
export function parseFrontMatter(text: string): { data: Record<string, string>; body: string } | undefined {
  const src = text.replace(/^\uFEFF/, '');
  const m = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(src);
  if (!m) return undefined;
  const data: Record<string, string> = {};
  const lines = m[1].split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const kv = /^([A-Za-z_][\w-]*)[ \t]*:[ \t]*(.*)$/.exec(lines[i]);
    if (!kv) continue;
    const [, key, rawValue] = kv;
    let value = rawValue.trim();
    if (/^[|>][+-]?$/.test(value)) {
      const block: string[] = [];
      while (i + 1 < lines.length && (/^\s/.test(lines[i + 1]) || lines[i + 1] === '')) block.push(lines[++i].trim());
      value = value.startsWith('|') ? block.join('\n').trim() : block.join(' ').replace(/\s+/g, () => ' ').trim();
    } else if (/^"(.*)"$/.test(value)) {
      try {
        value = JSON.parse(value) as string;
      } catch {
        value = value.slice(1, -1);
      }
    } else if (/^'(.*)'$/.test(value)) {
      value = value.slice(1, -1).split("''").join("'");
    } else {
      value = value.replace(/\s+#.*$/, '');
    }
    data[key] = value;
  }
  return { data, body: src.slice(m[0].length) };
}

function readHead(file: string, maxBytes: number): string {
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.alloc(maxBytes);
    const n = fs.readSync(fd, buf, 0, maxBytes, 0);
    return buf.subarray(0, n).toString('utf8');
  } finally {
    fs.closeSync(fd);
  }
}

/** Read one SKILL.md's name and description, or why it cannot be used. */
function readSkill(file: string, b: Budget): { name: string; description: string } | { reason: string } {
  let size: number;
  try {
    const st = fs.statSync(file);
    if (!st.isFile()) return { reason: 'not a file' };
    size = st.size;
  } catch {
    return { reason: 'unreadable' };
  }
  if (size > b.SKILL_FILE_MAX_BYTES) return { reason: `larger than ${formatBytes(b.SKILL_FILE_MAX_BYTES)}` };
  let head: string;
  try {
    head = readHead(file, FRONT_MATTER_MAX_BYTES);
  } catch {
    return { reason: 'unreadable' };
  }
  const fm = parseFrontMatter(head);
  if (!fm) return { reason: 'no front matter (--- name/description ---) at the top' };
  const name = (fm.data.name ?? '').trim();
  const description = (fm.data.description ?? '').replace(/\s+/g, () => ' ').trim();
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(name)) return { reason: name ? `invalid name ${JSON.stringify(clipLine(name, 80))}` : 'no name' };
  if (!description) return { reason: 'no description' };
  return { name, description };
}

/** True when file's real path lies inside the workspace (a skill the workspace offers is its own file). */
function realInside(workspace: string, file: string): boolean {
  try {
    return isInside(workspace, fs.realpathSync.native(file));
  } catch {
    return false;
  }
}

/** Scan every skill folder. Never throws: unreadable or invalid files are skipped with a reason. */
export function scanSkills(workspace: string, dataDir: string, b: Budget = BUDGET): SkillScan {
  const byName = new Map<string, Skill>();
  const skipped: SkillScan['skipped'] = [];
  let overflow = 0;
  for (const root of skillRoots(workspace, dataDir)) {
    // the tool's availability scans at every step: a missing folder (the usual case) is not an exception
    if (!fs.existsSync(root.dir)) continue;
    let dirs: string[];
    try {
      dirs = fs
        .readdirSync(root.dir, { withFileTypes: true })
        .filter((d) => d.isDirectory() || d.isSymbolicLink())
        .map((d) => d.name)
        .sort();
    } catch {
      continue;
    }
    for (const d of dirs) {
      const file = path.join(root.dir, d, 'SKILL.md');
      if (!fs.existsSync(file)) continue;
      if (root.source === 'workspace' && !realInside(workspace, file)) {
        skipped.push({ path: file, reason: 'it leads outside the workspace (through a link)' });
        continue;
      }
      const got = readSkill(file, b);
      if ('reason' in got) {
        skipped.push({ path: file, reason: got.reason });
        continue;
      }
      const seen = byName.get(got.name);
      if (seen) {
        skipped.push({ path: file, reason: `the name ${got.name} is already taken by ${seen.path}` });
        continue;
      }
      if (byName.size >= b.SKILLS_MAX_COUNT) {
        overflow++;
        continue;
      }
      byName.set(got.name, { ...got, path: file, source: root.source });
    }
  }
  const skills = [...byName.values()].sort((a, c) => (a.name < c.name ? -1 : a.name > c.name ? 1 : 0));
  return { skills, skipped, overflow };
}

/** The usable skills of a workspace and the data dir, sorted by name (invalid files skipped; scanSkills counts them). */
export function listSkills(workspace: string, dataDir: string): Skill[] {
  return scanSkills(workspace, dataDir).skills;
}

/**
 * The system prompt's skills section: each name with its description (cut), under
 * SKILLS_PROMPT_MAX_BYTES; the skills that did not fit are counted. '' when there are none.
 */
export function skillsPromptSection(skills: readonly Skill[], b: Budget = BUDGET): string {
  if (skills.length === 0) return '';
  const head = [
    '## Skills',
    'Skills are instructions for particular tasks. When the task matches one, load it with skill(name) before you start, and follow it.',
  ].join('\n');
  const lines: string[] = [];
  let used = byteLength(head) + 120; // room for the "more skills" line
  for (const s of skills) {
    const line = `- ${s.name}: ${clipLine(s.description, b.SKILL_DESCRIPTION_MAX_BYTES)}`;
    const n = byteLength(line) + 1;
    if (used + n > b.SKILLS_PROMPT_MAX_BYTES) break;
    lines.push(line);
    used += n;
  }
  const more = skills.length - lines.length;
  const tail = more > 0 ? [`(${formatCount(more)} more skill${more === 1 ? '' : 's'} not listed here: call skill with any name to see every name.)`] : [];
  return headBytes([head, ...lines, ...tail].join('\n'), b.SKILLS_PROMPT_MAX_BYTES);
}
