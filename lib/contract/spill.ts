import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { diskFullText, isDiskFull } from './disk-full';

/** Where a spill went: its absolute path, or why it could not be written (a sentence for the model). */
export type Spilled = { path: string; why?: undefined } | { path?: undefined; why: string };

/**
 * Write the full text of a cut output to the data dir. Never throws: a failed spill (a full disk …) comes back as
 * the reason, and leaves no partial file behind.
 */
export function spillOrWhy(dataDir: string, text: string | Buffer, label: string): Spilled {
  let file: string | undefined;
  try {
    const dir = path.join(dataDir, 'spill');
    fs.mkdirSync(dir, { recursive: true });
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const safe = label.replace(/[^a-zA-Z0-9_-]+/g, '_').slice(0, 40);
    file = path.join(dir, `${stamp}-${safe}-${crypto.randomBytes(4).toString('hex')}.txt`);
    fs.writeFileSync(file, text);
    return { path: file };
  } catch (err) {
    if (file) fs.rmSync(file, { force: true });
    if (isDiskFull(err)) return { why: diskFullText('The full text', dataDir, err) };
    return { why: `The full text could not be written (${err instanceof Error ? err.message : String(err)}).` };
  }
}

/**
 * Write the full text of a cut output to the data dir and return its absolute path.
 * Never throws: a failed spill returns undefined and the note simply has no path.
 */
export function spillText(dataDir: string, text: string | Buffer, label: string): string | undefined {
  return spillOrWhy(dataDir, text, label).path;
}
