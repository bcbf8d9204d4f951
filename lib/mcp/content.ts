import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Budget } from '../contract/budget';
import type { ToolOutput } from '../contract/types';
import { byteLength, formatBytes, headBytes } from '../contract/text';

/** ctx.services key: true when the model in use takes images in tool results (set by the turn's host). */
export const MODEL_TAKES_IMAGES = 'modelTakesImages';

/** An image of a result, passed to the model as an image part (toModelOutput), never in the text. */
export interface McpImage {
  mediaType: string;
  /** base64 */
  data: string;
}

/** What an MCP call's result carries for the page (and, for images, for the model's image parts). */
export interface McpCallMeta {
  server: string;
  tool: string;
  images?: McpImage[];
  structuredContent?: unknown;
  isError?: boolean;
}

function base64Bytes(b64: string): number {
  return Math.floor((b64.length * 3) / 4);
}

/**
 * An MCP result as a tool output: text parts as they are; images as image parts for a model that takes
 * them (bounded in size and count), else a note; embedded resources' text bounded, blobs and links named;
 * structuredContent as JSON when no text part already carries it; isError as an error with the server's
 * text. Dispatch's exit clamp then cuts and spills the text like any tool's.
 */
export function toolOutputOf(r: CallToolResult, o: CallContext): ToolOutput<McpCallMeta> {
  const images: McpImage[] = [];
  const content = Array.isArray(r.content) ? r.content : [];
  const texts = content.map((c) => partText(c, o, images));
  const structured = r.structuredContent;
  if (structured !== undefined && !carriesJson(texts, structured)) texts.push(`structuredContent:\n${JSON.stringify(structured, null, 2)}`);
  let output = texts.join('\n');
  if (r.isError) output = `The MCP tool ${o.tool} on server ${o.server} reported an error:\n${output || '(no text)'}`;
  else if (output === '') output = '(the tool returned no content)';
  const meta: McpCallMeta = { server: o.server, tool: o.tool };
  if (images.length) meta.images = images;
  if (structured !== undefined) meta.structuredContent = structured;
  if (r.isError) meta.isError = true;
  return { output, status: r.isError ? 'error' : 'ok', meta };
}

interface CallContext {
  server: string;
  tool: string;
  budget: Budget;
  takesImages: boolean;
}
type Part = CallToolResult['content'][number];

/** One content part's text; an image the model may see is added to `images` and named in the text. */
function partText(c: Part, o: CallContext, images: McpImage[]): string {
  switch (c.type) {
    case 'text':
      return c.text;
    case 'image':
      return imageText(c, o, images);
    case 'audio':
      return `[audio: ${c.mimeType}, ${formatBytes(base64Bytes(c.data))} — not shown: Clamp passes no audio to the model]`;
    case 'resource':
      return resourceText(c.resource, o.budget.MCP_RESOURCE_MAX_BYTES);
    case 'resource_link':
      return `[resource link: ${c.uri}${c.name ? ` (${c.name})` : ''}${c.description ? ` — ${c.description}` : ''}]`;
    default:
      return `[content of type ${(c as { type: string }).type} — not shown]`;
  }
}

/** An image attached when the model takes images, it fits the size limit and the count allows; else why not. */
function imageText(c: Extract<Part, { type: 'image' }>, o: CallContext, images: McpImage[]): string {
  const size = base64Bytes(c.data);
  const b = o.budget;
  if (!o.takesImages) return `[image: ${c.mimeType}, ${formatBytes(size)} — not shown: the model in use takes no images in tool results]`;
  if (size > b.MCP_IMAGE_MAX_BYTES) return `[image: ${c.mimeType}, ${formatBytes(size)} — not shown: over the ${formatBytes(b.MCP_IMAGE_MAX_BYTES)} image limit]`;
  if (images.length >= b.MCP_IMAGES_MAX_COUNT) return `[image: ${c.mimeType}, ${formatBytes(size)} — not shown: only ${b.MCP_IMAGES_MAX_COUNT} images per result]`;
  images.push({ mediaType: c.mimeType, data: c.data });
  return `[image ${images.length}: ${c.mimeType}, ${formatBytes(size)}, attached]`;
}

/** An embedded resource: its text up to `max` bytes, or a binary one named with its size. */
function resourceText(res: Extract<Part, { type: 'resource' }>['resource'], max: number): string {
  if ('text' in res && typeof res.text === 'string') {
    const bytes = byteLength(res.text);
    const body = bytes > max ? `${headBytes(res.text, max)}\n[resource cut: showing ${formatBytes(max)} of ${formatBytes(bytes)}; read the rest through the server]` : res.text;
    return `[resource ${res.uri}${res.mimeType ? ` (${res.mimeType})` : ''}]\n${body}`;
  }
  const blob = 'blob' in res && typeof res.blob === 'string' ? res.blob : '';
  return `[resource ${res.uri}: binary${res.mimeType ? ` ${res.mimeType}` : ''}, ${formatBytes(base64Bytes(blob))} — not shown]`;
}

/** A text part already holds this structured content as JSON. */
function carriesJson(texts: string[], structured: unknown): boolean {
  const compact = JSON.stringify(structured);
  return texts.some((t) => {
    try {
      return JSON.stringify(JSON.parse(t)) === compact;
    } catch {
      return false;
    }
  });
}

/** The images an MCP result carries for the model (none for any other result). */
export function mcpImagesOf(r: { meta?: Record<string, unknown> }): McpImage[] {
  const imgs = r.meta?.images;
  if (!Array.isArray(imgs)) return [];
  return imgs.filter((i): i is McpImage => !!i && typeof i === 'object' && typeof (i as McpImage).data === 'string' && typeof (i as McpImage).mediaType === 'string');
}
