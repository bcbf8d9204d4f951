import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';

/**
 * Write the full text of a cut output to the data dir and return its absolute path.
 * Never throws: a failed spill returns undefined and the note simply has no path.
 */
export function spillText(dataDir: string, text: string | Buffer, label: string): string | undefined {
  try {
    const dir = path.join(dataDir, 'spill');
    fs.mkdirSync(dir, { recursive: true });
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const safe = label.replace(/[^a-zA-Z0-9_-]+/g, '_').slice(0, 40);
    const file = path.join(dir, `${stamp}-${safe}-${crypto.randomBytes(4).toString('hex')}.txt`);
    fs.writeFileSync(file, text);
    return file;
  } catch {
    return undefined;
  }
}
