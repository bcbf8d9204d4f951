'use client';

import { useState, type ClipboardEvent, type DragEvent } from 'react';
import { BUDGET } from '@/lib/contract/budget';
import type { ImageInput, SessionSummary } from '@/lib/contract/protocol';
import { useStatus } from './api';
import { useModelCapability } from './composer-api';
import { readPendingFile, type PendingFile } from './composer-files';
import type { InfoPanel } from './use-composer-commands';

export interface Attachments {
  files: PendingFile[];
  setFiles: (files: PendingFile[] | ((prev: PendingFile[]) => PendingFile[])) => void;
  /** read and attach files (button, paste, drop); what cannot be attached is shown as a panel */
  addFiles: (list: Iterable<File>) => Promise<void>;
  /** a file is dragged over the composer */
  dragging: boolean;
  onPaste: (e: ClipboardEvent<HTMLTextAreaElement>) => void;
  /** the drop zone's handlers (the whole composer) */
  drop: { onDragOver: (e: DragEvent<HTMLDivElement>) => void; onDragLeave: () => void; onDrop: (e: DragEvent<HTMLDivElement>) => void };
}

/** The images and text files a message carries until it is sent: from the button, a paste or a drop, images capped in number. */
export function useAttachments(show: (panel: InfoPanel | null) => void): Attachments {
  const [files, setFiles] = useState<PendingFile[]>([]);
  const [dragging, setDragging] = useState(false);

  async function addFiles(list: Iterable<File>) {
    const errors: string[] = [];
    const added: PendingFile[] = [];
    for (const f of list) {
      try {
        added.push(await readPendingFile(f));
      } catch (err) {
        errors.push((err as Error).message);
      }
    }
    setFiles((prev) => {
      const next = [...prev, ...added];
      const imgs = next.filter((f) => f.image);
      if (imgs.length > BUDGET.ATTACH_IMAGES_MAX_COUNT) errors.push(`At most ${BUDGET.ATTACH_IMAGES_MAX_COUNT} images per message: the rest were not attached.`);
      const keep = new Set(imgs.slice(BUDGET.ATTACH_IMAGES_MAX_COUNT).map((f) => f.id));
      return next.filter((f) => !keep.has(f.id));
    });
    show(errors.length ? { title: 'Attachments', lines: errors, tone: 'error' } : null);
  }

  const onPaste = (e: ClipboardEvent<HTMLTextAreaElement>) => {
    const pasted = Array.from(e.clipboardData.files);
    if (pasted.length === 0) return;
    e.preventDefault();
    void addFiles(pasted);
  };
  const drop = {
    onDragOver: (e: DragEvent<HTMLDivElement>) => {
      if (e.dataTransfer.types.includes('Files')) {
        e.preventDefault();
        setDragging(true);
      }
    },
    onDragLeave: () => setDragging(false),
    onDrop: (e: DragEvent<HTMLDivElement>) => {
      e.preventDefault();
      setDragging(false);
      if (e.dataTransfer.files.length) void addFiles(Array.from(e.dataTransfer.files));
    },
  };

  return { files, setFiles, addFiles, dragging, onPaste, drop };
}

/** Why the message cannot go with its images: the model (the session's own, else the default) does not take them; null when it can. */
export function useImageRefusal(session: SessionSummary, files: PendingFile[]): string | null {
  const status = useStatus().data;
  const own = useModelCapability(session.model).data;
  const imageInput: ImageInput | undefined = session.model ? own?.imageInput : status?.model.imageInput;
  const modelLabel = session.model ? (own?.label ?? session.model) : (status?.model.label ?? 'the model');
  const images = files.filter((f) => f.image);
  return images.length > 0 && imageInput && !imageInput.accepted ? `${modelLabel} does not take images (${imageInput.source}). Remove the image, or pick a vision model in the header.` : null;
}
