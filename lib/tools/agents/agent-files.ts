import fs from 'node:fs';
import path from 'node:path';
import { BUDGET, type Budget } from '../../contract/budget';
import type { FileAgent } from '../../contract/subagents';
import { byteLength, clipLine, formatCount, headBytes } from '../../contract/text';
import { isInside } from '../../policy/workspace';
import { claudeHome, readCapped } from '../skills/command-files';
import { openDb } from '../../store/db';
import { parseFrontMatter } from '../skills/skill-files';

/**
 * Agent types from files, in Claude Code's format: `<name>.md` in `.clamp/agents/` and `.claude/agents/` of the
 * workspace, in `<dataDir>/agents` and, when the person turned that on, `~/.claude/agents`, with front matter `name`, `description`, `tools` (comma-separated; absent:
 * the general child's tools) and `model`; the body is the child's system prompt. Read fresh at each use; a name
 * found earlier wins, and `explore` and `general` stay Clamp's own.
 */

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const RESERVED = new Set(['explore', 'general']);

/** The folders searched, in precedence order; `home` is given only when the person turned `~/.claude` on. */
export function agentRoots(workspace: string, dataDir: string, home?: string): { dir: string; source: FileAgent['source'] }[] {
  return [
    { dir: path.join(workspace, '.clamp', 'agents'), source: 'workspace' },
    { dir: path.join(workspace, '.claude', 'agents'), source: 'workspace' },
    { dir: path.join(dataDir, 'agents'), source: 'person' },
    ...(home ? [{ dir: path.join(home, '.claude', 'agents'), source: 'person' as const }] : []),
  ];
}

/** One agent file, or why it cannot be used. */
function readAgent(file: string, source: FileAgent['source'], workspace: string, b: Budget): FileAgent | { reason: string } {
  try {
    if (source === 'workspace' && !isInside(workspace, fs.realpathSync.native(file))) return { reason: 'it leads outside the workspace (through a link)' };
  } catch {
    return { reason: 'unreadable' };
  }
  const read = readCapped(file, b, 'AGENT_FILE_MAX_BYTES');
  if ('reason' in read) return read;
  const fm = parseFrontMatter(read.text);
  if (!fm) return { reason: 'no front matter (--- name/description ---) at the top' };
  const name = (fm.data.name ?? '').trim() || path.basename(file, '.md');
  if (!NAME.test(name)) return { reason: `invalid name ${JSON.stringify(clipLine(name, 80))}` };
  if (RESERVED.has(name)) return { reason: `${name} is one of Clamp's own agent types` };
  const description = (fm.data.description ?? '').replace(/\s+/g, () => ' ').trim();
  if (!description) return { reason: 'no description' };
  const prompt = fm.body.trim();
  if (!prompt) return { reason: 'no system prompt (the text after the front matter)' };
  const tools = (fm.data.tools ?? '').replace(/^\[(.*)\]$/s, '$1').split(',').map((t) => t.trim().replace(/^["']|["']$/g, '')).filter(Boolean);
  const model = fm.data.model?.trim();
  return { name, description, ...(tools.length ? { tools } : {}), ...(model ? { model } : {}), prompt, path: file, source };
}

/** Every usable agent type from files, and the files skipped with why. Never throws. */
export function scanAgents(workspace: string, dataDir: string, b: Budget = BUDGET, home = claudeHome(openDb(dataDir))): { agents: FileAgent[]; skipped: { path: string; reason: string }[] } {
  const byName = new Map<string, FileAgent>();
  const skipped: { path: string; reason: string }[] = [];
  for (const root of agentRoots(workspace, dataDir, home)) {
    if (!fs.existsSync(root.dir)) continue;
    let names: string[];
    try {
      names = fs.readdirSync(root.dir).filter((n) => n.endsWith('.md')).sort();
    } catch {
      continue;
    }
    for (const n of names) {
      const file = path.join(root.dir, n);
      const got = readAgent(file, root.source, workspace, b);
      if ('reason' in got) skipped.push({ path: file, reason: got.reason });
      else if (byName.has(got.name)) skipped.push({ path: file, reason: `the name ${got.name} is already taken by ${byName.get(got.name)!.path}` });
      else if (byName.size >= b.AGENT_FILES_MAX_COUNT) skipped.push({ path: file, reason: `more than ${b.AGENT_FILES_MAX_COUNT} agent types (AGENT_FILES_MAX_COUNT)` });
      else byName.set(got.name, got);
    }
  }
  return { agents: [...byName.values()], skipped };
}

/** The system prompt's section naming the agent types from files, under SKILLS_PROMPT_MAX_BYTES; '' when there are none. */
export function agentsPromptSection(agents: readonly FileAgent[], b: Budget = BUDGET): string {
  if (agents.length === 0) return '';
  const head = '## Agent types\nBesides explore and general, the agent tool takes these types (each with its own instructions and tools):';
  const lines: string[] = [];
  let used = byteLength(head) + 120;
  for (const a of agents) {
    const line = `- ${a.name}: ${clipLine(a.description, b.AGENT_DESCRIPTION_MAX_BYTES)}`;
    if (used + byteLength(line) + 1 > b.SKILLS_PROMPT_MAX_BYTES) break;
    lines.push(line);
    used += byteLength(line) + 1;
  }
  const more = agents.length - lines.length;
  const tail = more > 0 ? [`(${formatCount(more)} more not listed: an agent call with an unknown type names every type.)`] : [];
  return headBytes([head, ...lines, ...tail].join('\n'), b.SKILLS_PROMPT_MAX_BYTES);
}
