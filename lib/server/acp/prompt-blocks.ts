import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ContentBlock } from '@agentclientprotocol/sdk';
import type { AttachedFile } from '../../contract/chat-body';
import { isInside } from '../../policy/workspace';

/** A prompt as the page's composer would send it: its text (with @-mentions) and its attached files. */
export interface PromptMessage {
  text: string;
  files: AttachedFile[];
}

/** A file: URI as an absolute path, or undefined for any other scheme. */
function filePath(uri: string): string | undefined {
  if (!uri.startsWith('file:')) return undefined;
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
}

/** A workspace file as an @-mention (read through read_file, confined, when the turn starts); spaces escaped as the composer does. */
function mention(abs: string, workspace: string): string | undefined {
  if (!isInside(workspace, abs)) return undefined;
  const rel = path.relative(workspace, abs);
  return rel ? `@${rel.replace(/ /g, '\\ ')}` : undefined;
}

function dataUrl(mediaType: string, base64: string): string {
  return `data:${mediaType};base64,${base64}`;
}

function nameOf(uri: string): string {
  const p = filePath(uri);
  return (p ? path.basename(p) : uri.split(/[/?#]/).filter(Boolean).at(-1)) || 'attachment';
}

/**
 * The blocks of a `session/prompt` as a message: text as it is; a link to a workspace file as an @-mention (the
 * server reads it with read_file through dispatch, so confinement and the caps hold); any other link as its
 * address; an embedded text resource (the editor's buffer, unsaved changes included) as an attached text file;
 * images as attached images (the attachment step refuses them for a model that takes none).
 */
export function promptMessage(blocks: readonly ContentBlock[], workspace: string): PromptMessage {
  const texts: string[] = [];
  const files: AttachedFile[] = [];
  for (const b of blocks) {
    if (b.type === 'text') texts.push(b.text);
    else if (b.type === 'resource_link') {
      const abs = filePath(b.uri);
      texts.push((abs && mention(abs, workspace)) ?? b.uri);
    } else if (b.type === 'resource') {
      const r = b.resource;
      if ('text' in r) files.push({ name: nameOf(r.uri), mediaType: r.mimeType || 'text/plain', url: dataUrl(r.mimeType || 'text/plain', Buffer.from(r.text, 'utf8').toString('base64')) });
      else files.push({ name: nameOf(r.uri), mediaType: r.mimeType || 'application/octet-stream', url: dataUrl(r.mimeType || 'application/octet-stream', r.blob) });
    } else if (b.type === 'image') {
      files.push({ name: b.uri ? nameOf(b.uri) : 'image', mediaType: b.mimeType, url: dataUrl(b.mimeType, b.data) });
    } else {
      texts.push(`(an ${b.type} block was left out: Clamp takes text, files and images)`);
    }
  }
  return { text: texts.join(' ').trim(), files };
}
