import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { harness, tempWorkspace } from '../helpers';
import { listSkills, scanSkills, skillsPromptSection, skillTool } from '../../lib/tools/skills/skills';
import { parseFrontMatter } from '../../lib/tools/skills/skill-files';
import { createRegistry, listedTools } from '../../lib/dispatch/registry';
import { budgetTable } from '../../lib/contract/budget';

let ws: ReturnType<typeof tempWorkspace>;
beforeEach(() => {
  ws = tempWorkspace('clamp-skills-');
});
afterEach(() => ws.cleanup());

const skillMd = (name: string, description: string, body = 'Do the thing.\n') => `---\nname: ${name}\ndescription: ${description}\n---\n\n${body}`;
function dataSkill(dir: string, text: string) {
  const abs = path.join(ws.dataDir, 'skills', dir, 'SKILL.md');
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  fs.writeFileSync(abs, text);
  return abs;
}

describe('parseFrontMatter', () => {
  it('reads key: value lines, quoted values, block scalars, and returns the body', () => {
    const text = [
      '---',
      'name: "pdf-tools"',
      "description: 'It''s for PDFs' ",
      'other: plain # a comment',
      'long: >',
      '  folded over',
      '  two lines',
      'lit: |',
      '  kept',
      '  lines',
      '---',
      'Body here.',
    ].join('\n');
    expect(parseFrontMatter(text)).toEqual({
      data: { name: 'pdf-tools', description: "It's for PDFs", other: 'plain', long: 'folded over two lines', lit: 'kept\nlines' },
      body: 'Body here.',
    });
  });

  it('no front matter at the top: undefined', () => {
    expect(parseFrontMatter('# Title\n---\nname: x\n---\n')).toBeUndefined();
    expect(parseFrontMatter('---\nname: x\n')).toBeUndefined();
  });

  it('a BOM and CRLF line ends are fine', () => {
    expect(parseFrontMatter('\uFEFF---\r\nname: x\r\ndescription: y\r\n---\r\nbody')).toEqual({ data: { name: 'x', description: 'y' }, body: 'body' });
  });
});

describe('listSkills / scanSkills', () => {
  it('finds skills in .clamp/skills, .claude/skills and the data dir, sorted by name; the first of a name wins', () => {
    ws.write('.clamp/skills/b/SKILL.md', skillMd('beta', 'Second letter.'));
    ws.write('.claude/skills/a/SKILL.md', skillMd('alpha', 'First letter.'));
    ws.write('.claude/skills/dup/SKILL.md', skillMd('beta', 'A shadowed copy.'));
    const data = dataSkill('g', skillMd('gamma', 'Third letter.'));
    const scan = scanSkills(ws.workspace, ws.dataDir);
    expect(scan.skills).toEqual([
      { name: 'alpha', description: 'First letter.', path: path.join(ws.workspace, '.claude/skills/a/SKILL.md'), source: 'workspace' },
      { name: 'beta', description: 'Second letter.', path: path.join(ws.workspace, '.clamp/skills/b/SKILL.md'), source: 'workspace' },
      { name: 'gamma', description: 'Third letter.', path: data, source: 'data' },
    ]);
    expect(scan.skipped).toEqual([{ path: path.join(ws.workspace, '.claude/skills/dup/SKILL.md'), reason: `the name beta is already taken by ${path.join(ws.workspace, '.clamp/skills/b/SKILL.md')}` }]);
    expect(listSkills(ws.workspace, ws.dataDir).map((s) => s.name)).toEqual(['alpha', 'beta', 'gamma']);
  });

  it('skips and counts invalid files, each with its reason', () => {
    ws.write('.clamp/skills/nofm/SKILL.md', '# just text\n');
    ws.write('.clamp/skills/noname/SKILL.md', '---\ndescription: d\n---\n');
    ws.write('.clamp/skills/nodesc/SKILL.md', '---\nname: x\n---\n');
    ws.write('.clamp/skills/badname/SKILL.md', '---\nname: has spaces\ndescription: d\n---\n');
    ws.write('.clamp/skills/big/SKILL.md', skillMd('big', 'd', 'x'.repeat(200)));
    ws.write('.clamp/skills/empty-dir/README.md', 'not a skill');
    ws.write('.clamp/skills/loose.md', skillMd('loose', 'not in a folder'));
    const scan = scanSkills(ws.workspace, ws.dataDir, budgetTable({ SKILL_FILE_MAX_BYTES: 100 }));
    expect(scan.skills).toEqual([]);
    const reasons = Object.fromEntries(scan.skipped.map((s) => [path.basename(path.dirname(s.path)), s.reason]));
    expect(reasons).toEqual({
      nofm: 'no front matter (--- name/description ---) at the top',
      noname: 'no name',
      nodesc: 'no description',
      badname: 'invalid name "has spaces"',
      big: 'larger than 100 bytes',
    });
  });

  it('past SKILLS_MAX_COUNT the rest are counted, not listed', () => {
    for (const n of ['a', 'b', 'c']) ws.write(`.clamp/skills/${n}/SKILL.md`, skillMd(n, 'x'));
    const scan = scanSkills(ws.workspace, ws.dataDir, budgetTable({ SKILLS_MAX_COUNT: 2 }));
    expect(scan.skills.map((s) => s.name)).toEqual(['a', 'b']);
    expect(scan.overflow).toBe(1);
  });

  it('no skill folders at all: nothing, no error', () => {
    expect(scanSkills(ws.workspace, ws.dataDir)).toEqual({ skills: [], skipped: [], overflow: 0 });
  });
});

describe('skillsPromptSection', () => {
  it('lists names and descriptions; empty when there are no skills', () => {
    ws.write('.clamp/skills/a/SKILL.md', skillMd('alpha', 'Use for A.'));
    ws.write('.clamp/skills/b/SKILL.md', skillMd('beta', 'Use for B.'));
    expect(skillsPromptSection(listSkills(ws.workspace, ws.dataDir))).toBe(
      '## Skills\nSkills are instructions for particular tasks. When the task matches one, load it with skill(name) before you start, and follow it.\n- alpha: Use for A.\n- beta: Use for B.',
    );
    expect(skillsPromptSection([])).toBe('');
  });

  it('cuts long descriptions and counts the skills past SKILLS_PROMPT_MAX_BYTES', () => {
    const skills = Array.from({ length: 10 }, (_, i) => ({ name: `s${i}`, description: 'd'.repeat(50), path: '/x', source: 'data' as const }));
    const text = skillsPromptSection(skills, budgetTable({ SKILLS_PROMPT_MAX_BYTES: 400, SKILL_DESCRIPTION_MAX_BYTES: 20 }));
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(400);
    const listed = text.split('\n').filter((l) => l.startsWith('- '));
    expect(listed[0]).toBe(`- s0: ${'d'.repeat(20)}… [line cut: 30 more bytes]`);
    expect(text.endsWith(`(${10 - listed.length} more skills not listed here: call skill with any name to see every name.)`)).toBe(true);
  });
});

describe('skill tool', () => {
  it('exists only when at least one skill does', () => {
    const reg = createRegistry([skillTool]);
    const ctx = { workspace: ws.workspace, dataDir: ws.dataDir, services: {} };
    expect(listedTools(reg, 'default', ctx)).toEqual([]);
    dataSkill('one', skillMd('one', 'd'));
    expect(listedTools(reg, 'default', ctx).map((t) => t.name)).toEqual(['skill']);
    expect(listedTools(reg, 'plan', ctx).map((t) => t.name)).toEqual(['skill']);
  });

  it('loads a skill\'s body (front matter left out) with its folder', async () => {
    ws.write('.clamp/skills/rel/SKILL.md', skillMd('release', 'How to release.', 'Step 1: run scripts/release.sh.\n'));
    const r = await harness([skillTool], ws).call('skill', { name: 'release' });
    expect(r).toMatchObject({ status: 'ok', output: 'Skill release (folder .clamp/skills/rel):\nStep 1: run scripts/release.sh.', truncation: null });
    expect(r.meta).toEqual({ skill: 'release', path: path.join(ws.workspace, '.clamp/skills/rel/SKILL.md') });
    // a different case still finds it
    expect((await harness([skillTool], ws).call('skill', { name: 'Release' })).status).toBe('ok');
  });

  it('an unknown name lists the available ones', async () => {
    ws.write('.clamp/skills/a/SKILL.md', skillMd('alpha', 'x'));
    dataSkill('b', skillMd('beta', 'y'));
    const r = await harness([skillTool], ws).call('skill', { name: 'gamma' });
    const step = 'Available skills: alpha, beta. Call skill with one of these names.';
    expect(r).toMatchObject({ status: 'error', output: `Unknown skill: gamma. ${step}`, hint: step });
  });

  it('an empty name is refused before any I/O', async () => {
    expect((await harness([skillTool], ws).call('skill', { name: ' ' })).output).toBe(
      'Invalid arguments for skill:\n- `name`: must not be empty.\nPass a non-empty name and call skill again.',
    );
  });

  it('past SKILL_BODY_MAX_BYTES: cut with a note saying how to read the rest (workspace skill: its own path)', async () => {
    const body = Array.from({ length: 100 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
    const abs = ws.write('.claude/skills/long/SKILL.md', skillMd('long', 'Long one.', body));
    const r = await harness([skillTool], ws, { budget: { SKILL_BODY_MAX_BYTES: 100 } }).call('skill', { name: 'long' });
    const shown = r.truncation!.shown;
    const kept = body.slice(0, shown);
    expect(kept.endsWith('\n')).toBe(true);
    const shownLines = kept.split('\n').length - 1;
    // 4 lines of front matter and a blank line come before the body
    const rest = `Read the rest with read_file(path: ".claude/skills/long/SKILL.md", offset: ${5 + shownLines + 1}).`;
    expect(r.output).toBe(
      `Skill long (folder .claude/skills/long):\n${kept.slice(0, -1)}\n[Skill body cut at ${shown} bytes of ${Buffer.byteLength(body)} bytes (${Buffer.byteLength(body) - shown} bytes, ${100 - shownLines} lines omitted). ${rest}]`,
    );
    expect(fs.readFileSync(abs, 'utf8').split('\n')[5 + shownLines]).toBe(`line ${shownLines + 1}`);
    expect(r.truncation).toEqual({ unit: 'bytes', shown, total: Buffer.byteLength(body), omittedLines: 100 - shownLines, spillPath: abs, by: 'tool' });
    expect(r.hint).toBe(rest);
  });

  it('a cut data-dir skill is spilled where read_file can reach it', async () => {
    dataSkill('d', skillMd('dd', 'In the data dir.', 'y'.repeat(500)));
    const r = await harness([skillTool], ws, { budget: { SKILL_BODY_MAX_BYTES: 100 } }).call('skill', { name: 'dd' });
    const spill = r.truncation!.spillPath!;
    expect(spill.startsWith(path.join(ws.dataDir, 'spill'))).toBe(true);
    expect(fs.readFileSync(spill, 'utf8')).toBe(skillMd('dd', 'In the data dir.', 'y'.repeat(500)));
    // the one long line was cut in two: read it again whole from its own line
    expect(r.hint).toBe(`Read the rest with read_file(path: ${JSON.stringify(spill)}, offset: 6).`);
    expect(r.output.split('\n')[0]).toBe(`Skill dd (folder ${path.join(ws.dataDir, 'skills', 'd')}):`);
  });

  it('schema', () => {
    expect(z.toJSONSchema(skillTool.schema)).toMatchSnapshot();
  });
});
