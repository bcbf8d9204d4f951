import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildSystemPrompt, collectProjectDocs } from '../../lib/agent/system-prompt';
import { tempWorkspace } from '../helpers';

let ws: ReturnType<typeof tempWorkspace>;
beforeEach(() => (ws = tempWorkspace()));
afterEach(() => ws.cleanup());

describe('project guidance in the system prompt', () => {
  it('collects AGENTS.md (else CLAUDE.md) from the repository root down to the workspace, root first', () => {
    // the repository is ws.root (it holds .git); the workspace is a sub-folder
    fs.mkdirSync(path.join(ws.root, '.git'));
    fs.writeFileSync(path.join(ws.root, 'AGENTS.md'), 'root rules');
    fs.writeFileSync(path.join(ws.workspace, 'CLAUDE.md'), 'workspace rules');
    const d = collectProjectDocs(ws.workspace);
    expect(d.docs.map((x) => [path.basename(x.path), x.fate])).toEqual([
      ['CLAUDE.md', 'included'],
      ['AGENTS.md', 'included'],
    ]);
    expect(d.text.indexOf('root rules')).toBeLessThan(d.text.indexOf('workspace rules'));
    expect(d.note).toBeUndefined();
    const p = buildSystemPrompt({ workspace: ws.workspace }).prompt;
    expect(p).toContain('workspace rules');
    expect(p).toContain(`The workspace is ${ws.workspace}.`);
  });
  it('keeps the nearest files when over the cap and says what was dropped', () => {
    fs.mkdirSync(path.join(ws.root, '.git'));
    fs.writeFileSync(path.join(ws.root, 'AGENTS.md'), 'R'.repeat(3000));
    fs.writeFileSync(path.join(ws.workspace, 'AGENTS.md'), 'near '.repeat(200));
    const d = collectProjectDocs(ws.workspace, 1200);
    expect(d.docs.map((x) => x.fate)).toEqual(['included', 'dropped']);
    expect(d.text).toContain('near near');
    expect(d.text).not.toContain('RRR');
    expect(d.note).toBe(
      `Project guidance is capped at 1,200 bytes; nearer files win. ${path.join(ws.root, 'AGENTS.md')} (3,000 bytes) was dropped. Read the full files with read_file if you need them.`,
    );
  });

  it('lists the skills by name and description', () => {
    ws.write('.clamp/skills/release/SKILL.md', '---\nname: release\ndescription: How to cut a release of this project\n---\nSteps…\n');
    const p = buildSystemPrompt({ workspace: ws.workspace, dataDir: ws.dataDir }).prompt;
    expect(p).toContain('## Skills');
    expect(p).toMatch(/release.*How to cut a release of this project/);
    expect(p).not.toContain('Steps…');
  });
});
