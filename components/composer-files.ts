import { BUDGET } from '@/lib/contract/budget';
import { IMAGE_MEDIA_TYPES, isImageType } from '@/lib/contract/chat-body';
import { formatBytes } from '@/lib/contract/text';

/** A file the composer holds until it is sent: its data: URL is what the chat body carries. */
export interface PendingFile {
  id: string;
  name: string;
  mediaType: string;
  url: string;
  bytes: number;
  image: boolean;
}

function readAs(file: Blob, how: 'url' | 'buffer'): Promise<string | ArrayBuffer> {
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => resolve(r.result as string | ArrayBuffer);
    r.onerror = () => reject(r.error ?? new Error('the file could not be read'));
    if (how === 'url') r.readAsDataURL(file);
    else r.readAsArrayBuffer(file);
  });
}

/** An image over ATTACH_IMAGE_MAX_BYTES, scaled down (as JPEG) until it fits; null when it cannot be made to. */
async function scaleDown(file: Blob): Promise<Blob | null> {
  const bitmap = await createImageBitmap(file);
  for (let side = 2048; side >= 512; side = Math.floor(side * 0.75)) {
    const k = Math.min(1, side / Math.max(bitmap.width, bitmap.height));
    const canvas = document.createElement('canvas');
    canvas.width = Math.max(1, Math.round(bitmap.width * k));
    canvas.height = Math.max(1, Math.round(bitmap.height * k));
    canvas.getContext('2d')!.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
    const blob = await new Promise<Blob | null>((r) => canvas.toBlob(r, 'image/jpeg', 0.85));
    if (blob && blob.size <= BUDGET.ATTACH_IMAGE_MAX_BYTES) return blob;
  }
  return null;
}

const TEXT_NAME = /\.(txt|md|markdown|json|jsonc|ya?ml|toml|ini|cfg|conf|csv|tsv|log|xml|html?|css|scss|less|[cm]?[jt]sx?|py|rb|go|rs|java|kt|swift|c|h|cc|cpp|hpp|cs|php|sh|bash|zsh|fish|sql|graphql|proto|vue|svelte|lua|pl|r|scala|ex|exs|erl|hs|ml|clj|dart|env|gitignore|dockerfile|makefile|patch|diff)$/i;

/**
 * Read a file the person attached, pasted or dropped: an image (scaled down when over the cap), or a
 * text file. Throws an Error whose message the composer shows (a binary file, an image too large).
 */
export async function readPendingFile(file: File): Promise<PendingFile> {
  const id = `${file.name}-${file.size}-${Math.random().toString(36).slice(2, 8)}`;
  const name = file.name || (file.type.startsWith('image/') ? `pasted-image.${file.type.slice(6)}` : 'attachment.txt');
  if (isImageType(file.type)) {
    let blob: Blob = file;
    if (file.size > BUDGET.ATTACH_IMAGE_MAX_BYTES) {
      const smaller = await scaleDown(file).catch(() => null);
      if (!smaller) throw new Error(`${name} is ${formatBytes(file.size)} and could not be scaled under ${formatBytes(BUDGET.ATTACH_IMAGE_MAX_BYTES)}. Crop it and attach it again.`);
      blob = smaller;
    }
    const url = (await readAs(blob, 'url')) as string;
    return { id, name, mediaType: blob.type || file.type, url, bytes: blob.size, image: true };
  }
  if (file.type.startsWith('image/')) throw new Error(`${name}: ${file.type} images cannot be sent; attach ${IMAGE_MEDIA_TYPES.map((t) => t.slice(6)).join(', ')}.`);
  if (file.size > BUDGET.CHAT_BODY_MAX_BYTES / 2) throw new Error(`${name} is ${formatBytes(file.size)}; a text file may be at most ${formatBytes(BUDGET.CHAT_BODY_MAX_BYTES / 2)}. Put it in the workspace and mention it (@path) instead.`);
  const buf = new Uint8Array((await readAs(file, 'buffer')) as ArrayBuffer);
  if (buf.includes(0) || !(file.type.startsWith('text/') || file.type === 'application/json' || TEXT_NAME.test(name) || file.type === '')) {
    throw new Error(`${name} is neither text nor an image (png, jpeg, gif, webp); it cannot be attached.`);
  }
  const mediaType = file.type || 'text/plain';
  const url = `data:${mediaType};base64,${btoa(Array.from(buf, (b) => String.fromCharCode(b)).join(''))}`;
  return { id, name, mediaType, url, bytes: file.size, image: false };
}
