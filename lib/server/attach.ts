import fs from 'node:fs';
import path from 'node:path';
import type { FileUIPart } from 'ai';
import { BUDGET } from '../contract/budget';
import { isImageType, type AttachedFile, type ChatBody } from '../contract/chat-body';
import { looksLikePath, mentionReadArgs, parseMentions, resourceMention } from '../contract/mentions';
import type { ClampDataParts, ImageInput } from '../contract/protocol';
import { byteLength, cutHead, fitWithNote, formatBytes } from '../contract/text';
import type { PermissionMode } from '../contract/types';
import { createToolRegistry } from '../dispatch/all-tools';
import { createContext } from '../dispatch/context';
import { dispatch, type Approver } from '../dispatch/dispatch';
import { HOOKS_SERVICE, type HookService } from '../contract/hooks';
import { openDb, type Db } from '../store/db';
import { sessionHome } from '../store/worktrees';
import { READ_GUARD_SERVICE, SANDBOX_RULES_SERVICE } from '../contract/permission-rest';
import { sandboxRulesFor } from '../hooks/sandbox-rules';
import { fileRuleVerdict, readGuardFor } from '../hooks/permission-verdict';
import { hookServiceFor, promptHookParts, type HookContextPart } from './hooks';
import { listSkills } from '../tools/skills/skills';
import { HttpError } from './http';
import { resourceMentionParts } from './mcp-mentions';

type AttachmentPart = { type: 'data-attachment'; id: string; data: ClampDataParts['attachment'] };
type SkillPart = { type: 'data-skill-request'; id: string; data: ClampDataParts['skill-request'] };
/** The parts a user message carries besides its text. */
export type ExtraPart = AttachmentPart | SkillPart | FileUIPart | HookContextPart;

export interface AttachOptions {
  workspace: string;
  dataDir: string;
  mode: PermissionMode;
  sessionId: string;
  signal: AbortSignal;
  /** the model's answer to "does it take images" (lib/agent/vision.ts), and its name for the error */
  imageInput: ImageInput | undefined;
  modelLabel: string;
}

/** A data: URL's bytes and type; throws HttpError 400 when it is not one. */
function decodeDataUrl(f: AttachedFile): Buffer {
  const m = /^data:([^;,]*)(;base64)?,(.*)$/s.exec(f.url);
  if (!m) throw new HttpError(400, `The attached file ${f.name} is not a data: URL. Attach it again.`);
  return m[2] ? Buffer.from(m[3], 'base64') : Buffer.from(decodeURIComponent(m[3]), 'utf8');
}

/** An @-mention of a word that is no file (`@alice`) is a person, not an attachment. */
function isFileOrPathLike(workspace: string, p: string): boolean {
  if (looksLikePath(p)) return true;
  try {
    return fs.statSync(path.join(workspace, p)).isFile();
  } catch {
    return false;
  }
}

/** Each @-mention as read_file's result through dispatch: confined to the workspace, under read_file's caps, with its notes. */
async function mentionParts(text: string, o: AttachOptions, hooks: HookService, db: Db): Promise<AttachmentPart[]> {
  const mentions = parseMentions(text, BUDGET.MENTION_MAX_COUNT).filter((m) => !resourceMention(m.path) && isFileOrPathLike(o.workspace, m.path));
  if (mentions.length === 0) return [];
  const reg = createToolRegistry();
  const place = { workspace: o.workspace, dataDir: o.dataDir, home: sessionHome(db, o.sessionId) ?? o.workspace };
  // the person's hooks see these reads as any read_file call (a PreToolUse hook can refuse one), and so do the settings files' permission rules
  const ctx = createContext({ workspace: o.workspace, dataDir: o.dataDir, mode: o.mode, signal: o.signal, sessionId: o.sessionId, services: { [HOOKS_SERVICE]: hooks, [READ_GUARD_SERVICE]: readGuardFor(db, place), [SANDBOX_RULES_SERVICE]: sandboxRulesFor(db, place) } });
  const approver: Approver = { rule: (t, input, d, paths) => fileRuleVerdict(db, place, t, input, d, paths) };
  return Promise.all(
    mentions.map(async (m, i) => {
      // never approved: a read that would need a person (outside the workspace) is refused, and says so; a Read deny rule refuses too
      const r = await dispatch(reg, 'read_file', mentionReadArgs(m), ctx, { approver });
      const ok = r.status === 'ok';
      const data: ClampDataParts['attachment'] = { kind: 'mention', path: m.path, ...(m.lines ? { lines: m.lines } : {}), status: ok ? 'ok' : 'error', text: r.output, truncation: r.truncation };
      return { type: 'data-attachment' as const, id: `mention-${i}`, data };
    }),
  );
}

/** A text file as the model reads it: whole, or its head under TOOL_OUTPUT_MAX_BYTES with a note that says so. */
function textFilePart(f: AttachedFile, bytes: Buffer, i: number): AttachmentPart {
  const text = bytes.toString('utf8');
  const total = byteLength(text);
  const cap = BUDGET.TOOL_OUTPUT_MAX_BYTES;
  let out = text;
  let truncation: ClampDataParts['attachment']['truncation'] = null;
  if (total > cap) {
    const fit = fitWithNote(cap, (room) => cutHead(text, room), (c) => `${c.text}\n\n[${f.name} cut: showing the first ${formatBytes(byteLength(c.text))} of ${formatBytes(total)}. Ask the user for the rest, or for the file's path in the workspace to read it with read_file.]`);
    out = fit.text;
    truncation = { unit: 'bytes', shown: byteLength(fit.cut.text), total, by: 'tool' };
  }
  return { type: 'data-attachment', id: `file-${i}`, data: { kind: 'file', path: f.name, status: 'ok', text: out, truncation } };
}

/** Attached files: images as file parts (for a model that takes them), text files as attachments. Throws HttpError 400 with the fix. */
function fileParts(files: readonly AttachedFile[], o: AttachOptions): ExtraPart[] {
  const out: ExtraPart[] = [];
  let images = 0;
  let texts = 0;
  files.forEach((f, i) => {
    const bytes = decodeDataUrl(f);
    if (isImageType(f.mediaType)) {
      if (!o.imageInput?.accepted) {
        throw new HttpError(400, `${o.modelLabel} does not take images (${o.imageInput?.source ?? 'unknown'}). Remove ${f.name}, or pick a vision model in the header.`);
      }
      if (++images > BUDGET.ATTACH_IMAGES_MAX_COUNT) throw new HttpError(400, `At most ${BUDGET.ATTACH_IMAGES_MAX_COUNT} images per message. Remove some and send them in the next message.`);
      if (bytes.byteLength > BUDGET.ATTACH_IMAGE_MAX_BYTES) {
        throw new HttpError(400, `The image ${f.name} is ${bytes.byteLength.toLocaleString('en-US')} bytes; at most ${BUDGET.ATTACH_IMAGE_MAX_BYTES.toLocaleString('en-US')} bytes (${formatBytes(BUDGET.ATTACH_IMAGE_MAX_BYTES)}). Scale it down or crop it.`);
      }
      out.push({ type: 'file', mediaType: f.mediaType.toLowerCase(), filename: f.name, url: f.url });
      return;
    }
    if (bytes.includes(0)) throw new HttpError(400, `${f.name} (${f.mediaType}) is neither text nor an image (png, jpeg, gif, webp). Attach a text file or an image.`);
    if (++texts > BUDGET.ATTACH_TEXT_FILES_MAX_COUNT) throw new HttpError(400, `At most ${BUDGET.ATTACH_TEXT_FILES_MAX_COUNT} text files per message. Remove some.`);
    out.push(textFilePart(f, bytes, i));
  });
  return out;
}

/**
 * The parts a user message carries besides its text: each @-mention read through dispatch, the
 * attached files, and a /<skill> request. Throws HttpError 400 for what cannot be sent (an image to
 * a model without vision, too many or too large files, an unknown skill).
 */
export async function attachmentParts(message: NonNullable<ChatBody['message']>, o: AttachOptions): Promise<ExtraPart[]> {
  const files = fileParts(message.files ?? [], o);
  const db = openDb(o.dataDir);
  const hooks = hookServiceFor(db, o);
  // UserPromptSubmit (and SessionStart) first: a blocked prompt reads nothing
  const fromHooks = await promptHookParts(db, hooks, o.sessionId, message.text, o.signal);
  // @<server>:<uri> mentions: the MCP server's resource, read through dispatch (its read_resource tool) under the same hooks
  const resources = await resourceMentionParts(message.text, createContext({ workspace: o.workspace, dataDir: o.dataDir, mode: o.mode, signal: o.signal, sessionId: o.sessionId, services: { [HOOKS_SERVICE]: hooks } }));
  const parts: ExtraPart[] = [...(await mentionParts(message.text, o, hooks, db)), ...resources, ...files, ...fromHooks];
  if (message.skill) {
    const skills = listSkills(o.workspace, o.dataDir);
    if (!skills.some((s) => s.name === message.skill!.name)) {
      throw new HttpError(400, `There is no skill "${message.skill.name}". ${skills.length ? `Skills: ${skills.map((s) => s.name).join(', ')}.` : 'No skills are installed.'}`);
    }
    parts.push({ type: 'data-skill-request', id: 'skill', data: message.skill });
  }
  return parts;
}
