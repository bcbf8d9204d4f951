import fs from 'node:fs';
import path from 'node:path';
import { BUDGET } from '../contract/budget';
import { byteLength, formatBytes, headBytes } from '../contract/text';
import { listSkills, skillsPromptSection } from '../tools/skills/skill-files';
import { agentsPromptSection, scanAgents } from '../tools/agents/agent-files';

export interface ProjectDoc {
  path: string;
  bytes: number;
  /** included whole, cut to fit, or dropped for the cap */
  fate: 'included' | 'cut' | 'dropped';
}

export interface ProjectDocs {
  text: string;
  docs: ProjectDoc[];
  note?: string;
}

/** The repository root: the nearest ancestor of the workspace holding .git, else the workspace. */
export function repositoryRoot(workspace: string): string {
  let dir = workspace;
  for (;;) {
    if (fs.existsSync(path.join(dir, '.git'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return workspace;
    dir = parent;
  }
}

/**
 * Collect AGENTS.md (falling back to CLAUDE.md) in every folder from the repository root down to the
 * workspace, under a byte cap. When over, the most specific (nearest the workspace) are kept and the
 * text says what was dropped.
 */
export function collectProjectDocs(workspace: string, maxBytes: number = BUDGET.PROJECT_DOCS_MAX_BYTES): ProjectDocs {
  const root = repositoryRoot(workspace);
  const dirs: string[] = [];
  for (let d = workspace; ; d = path.dirname(d)) {
    dirs.push(d);
    if (d === root || path.dirname(d) === d) break;
  }
  // nearest first: they win the budget
  const found: { path: string; text: string }[] = [];
  for (const d of dirs) {
    for (const name of ['AGENTS.md', 'CLAUDE.md']) {
      const p = path.join(d, name);
      try {
        if (fs.statSync(p).isFile()) {
          found.push({ path: p, text: fs.readFileSync(p, 'utf8') });
          break;
        }
      } catch {
        // not there: try the next name
      }
    }
  }
  let left = maxBytes;
  const kept: { path: string; text: string }[] = [];
  const docs: ProjectDoc[] = [];
  for (const f of found) {
    const bytes = byteLength(f.text);
    if (bytes <= left) {
      kept.push(f);
      docs.push({ path: f.path, bytes, fate: 'included' });
      left -= bytes;
    } else if (left > 500) {
      kept.push({ path: f.path, text: headBytes(f.text, left) + `\n… [cut: ${formatBytes(bytes - left)} of this file did not fit the project-guidance cap]` });
      docs.push({ path: f.path, bytes, fate: 'cut' });
      left = 0;
    } else {
      docs.push({ path: f.path, bytes, fate: 'dropped' });
    }
  }
  const dropped = docs.filter((d) => d.fate !== 'included');
  const note = dropped.length
    ? `Project guidance is capped at ${formatBytes(maxBytes)}; nearer files win. ` +
      dropped.map((d) => `${d.path} (${formatBytes(d.bytes)}) was ${d.fate}`).join('; ') +
      '. Read the full files with read_file if you need them.'
    : undefined;
  // root first in the prompt, so the nearest file reads last and overrides
  const text = kept
    .reverse()
    .map((k) => `<project-guidance path="${k.path}">\n${k.text.trim()}\n</project-guidance>`)
    .join('\n\n');
  return { text, docs, note };
}

const GUIDANCE = `You are Clamp, a coding agent working in the user's repository through tools. The user watches every tool call in a browser and approves commands and file changes.

How to work:
- Explore with the read-only tools first (list_dir, glob, grep, read_file); they run without asking and can run in parallel.
- Change files with edit_file (one change), apply_patch (several changes or files) or write_file (new files, whole rewrites). Do not use shell commands to edit files.
- Run builds, tests and other programs with run_command. For servers and watchers use background: true, then task_output to read new output.
- Every tool output has a cap. When a result says it was cut, it says how much and how to get the rest (offset/limit, a narrower pattern, or a log file to read). Never treat a cut result as complete.
- When a tool fails, read its error: it says what to do next.
- When the user denies a call, do not retry it or work around it; ask the user what to do instead.
- Paths are relative to the workspace root. Keep your answers short and concrete.`;

/** The system prompt: tool guidance, then the workspace's project guidance under its cap. */
export function buildSystemPrompt(opts: { workspace: string; dataDir?: string; extra?: string[] }): { prompt: string; docs: ProjectDocs } {
  const docs = collectProjectDocs(opts.workspace);
  const parts = [GUIDANCE, `The workspace is ${opts.workspace}.`];
  if (opts.dataDir) parts.push(skillsPromptSection(listSkills(opts.workspace, opts.dataDir)), agentsPromptSection(scanAgents(opts.workspace, opts.dataDir).agents));
  parts.push(...(opts.extra ?? []));
  if (docs.text) parts.push(`Project guidance (AGENTS.md / CLAUDE.md), from the repository root down to the workspace:\n\n${docs.text}`);
  if (docs.note) parts.push(docs.note);
  return { prompt: parts.filter(Boolean).join('\n\n'), docs };
}
