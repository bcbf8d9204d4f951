import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { defineTool } from '../../contract/types';
import { ToolError, type ToolOutput } from '../../contract/types';
import { byteLength, clipLine, countLines, cutHead, fitWithNote, formatBytes, formatCount, type Cut } from '../../contract/text';
import { spillText } from '../../contract/spill';
import { isInside } from '../../policy/workspace';
import { readTextInside } from '../../policy/confined-fs';
import { listSkills, parseFrontMatter, scanSkills } from './skill-files';

export { listSkills, scanSkills, skillsPromptSection, type Skill, type SkillScan } from './skill-files';

/** A path as the model may pass it to read_file: relative inside the workspace, else absolute. */
function shownPath(workspace: string, abs: string): string {
  return isInside(workspace, abs) ? path.relative(workspace, abs).split(path.sep).join('/') : abs;
}

/** What skill tells the page: the skill loaded and its SKILL.md. */
export interface SkillMeta {
  skill: string;
  path: string;
}

export const skillTool = defineTool({
  name: 'skill',
  effect: 'read',
  traits: { deferRank: 1 },
  schema: z.strictObject({
    name: z.string().describe('A skill name from the system prompt\'s skills list.'),
  }),
  nonEmpty: ['name'],
  summary: (input) => input.name.trim(),
  // listed only when a skill exists: a tool that can never succeed only costs context
  available: (ctx) => listSkills(ctx.workspace, ctx.dataDir).length > 0,
  describe: (b) =>
    `Load a skill's instructions (the body of its SKILL.md) by name; the skills and what each is for are listed in the system prompt. At most ${formatBytes(b.SKILL_BODY_MAX_BYTES)} of body; files the skill mentions are relative to its folder (read them with read_file).`,
  async run(input, ctx): Promise<ToolOutput<SkillMeta>> {
    const b = ctx.budget;
    const skills = scanSkills(ctx.workspace, ctx.dataDir, b).skills;
    const name = input.name.trim();
    const skill = skills.find((s) => s.name === name) ?? skills.find((s) => s.name.toLowerCase() === name.toLowerCase());
    if (!skill) {
      const step = skills.length ? `Available skills: ${skills.map((s) => s.name).join(', ')}. Call skill with one of these names.` : 'No skills are installed; carry on without one.';
      throw new ToolError(`Unknown skill: ${clipLine(name, b.NAME_SHOWN_MAX_BYTES)}. ${step}`, step);
    }
    // a workspace's skill is read only where it really lies inside the workspace (a link there may lead out)
    const read = skill.source === 'workspace' ? readTextInside(ctx.workspace, skill.path) : readOrUndefined(skill.path);
    if (read === undefined) {
      throw new ToolError(`The skill ${skill.name} could not be read (${skill.path}); it may have just been removed or replaced by a link out of the workspace. Call skill again, or carry on without it.`);
    }
    const text = read;
    const body = (parseFrontMatter(text)?.body ?? text).replace(/^\s*\n/, '');
    const folder = shownPath(ctx.workspace, path.dirname(skill.path));
    const header = `Skill ${skill.name} (folder ${folder}):`;
    const meta = { skill: skill.name, path: skill.path };
    const total = byteLength(body);
    const whole = `${header}\n${body.replace(/\s+$/, '')}`;
    const outMax = b.TOOL_OUTPUT_MAX_BYTES;
    if (total <= b.SKILL_BODY_MAX_BYTES && byteLength(whole) <= outMax) return { output: whole, meta };

    const inWorkspace = isInside(ctx.workspace, skill.path);
    const readable = inWorkspace ? shownPath(ctx.workspace, skill.path) : spillText(ctx.dataDir, text, `skill-${skill.name}`);
    const before = countLines(text.slice(0, text.length - body.length));
    const restOf = (cut: Cut) => {
      // the line the rest starts on, in the whole file (front matter included), for read_file's offset
      // (a last line cut in two is read again whole)
      const firstLine = before + cut.shownLines + (cut.text.endsWith('\n') ? 1 : 0);
      return readable
        ? `Read the rest with read_file(path: ${JSON.stringify(readable)}, offset: ${firstLine}).`
        : `The rest could not be saved where read_file can reach it; ask the user to shorten ${skill.path}.`;
    };
    const noteFor = (cut: Cut) =>
      `[Skill body cut at ${formatBytes(cut.shownBytes)} of ${formatBytes(total)} (${formatCount(total - cut.shownBytes)} bytes, ${formatCount(cut.totalLines - cut.shownLines)} lines omitted). ${restOf(cut)}]`;
    const fit = fitWithNote(
      outMax,
      (room) => cutHead(body, Math.min(b.SKILL_BODY_MAX_BYTES, room)),
      (cut) => `${header}\n${cut.text.replace(/\n$/, '')}\n${noteFor(cut)}`,
    );
    const { cut } = fit;
    const rest = restOf(cut);
    return {
      output: fit.text,
      truncation: {
        unit: 'bytes',
        shown: cut.shownBytes,
        total,
        omittedLines: cut.totalLines - cut.shownLines,
        ...(readable ? { spillPath: inWorkspace ? skill.path : readable } : {}),
        by: 'tool',
      },
      hint: rest,
      meta,
    };
  },
});

function readOrUndefined(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}
