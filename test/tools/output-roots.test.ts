import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFileTool } from '../../lib/tools/read-file/read-file';
import { grepTool } from '../../lib/tools/grep/grep';
import { editFileTool } from '../../lib/tools/edit-file/edit-file';
import { harness, tempWorkspace } from '../helpers';

let ws: ReturnType<typeof tempWorkspace>;
beforeEach(() => (ws = tempWorkspace()));
afterEach(() => ws.cleanup());

describe("Clamp's own outputs outside the workspace", () => {
  it('can be read and searched where a cut note points (spill and logs), and nothing else in the data dir', async () => {
    const h = harness([readFileTool, grepTool, editFileTool], ws);
    const spill = path.join(ws.dataDir, 'spill', 'x.txt');
    fs.mkdirSync(path.dirname(spill), { recursive: true });
    fs.writeFileSync(spill, 'alpha\nbeta\n');
    const log = path.join(ws.dataDir, 'logs', 'cmd.stdout.log');
    fs.mkdirSync(path.dirname(log), { recursive: true });
    fs.writeFileSync(log, 'error: boom\n');
    const r = await h.call('read_file', { path: spill });
    expect(r.status).toBe('ok');
    expect(r.output).toContain('beta');
    const g = await h.call('grep', { pattern: 'boom', path: log });
    expect(g.status).toBe('ok');
    expect(g.output).toContain('error: boom');
    fs.writeFileSync(path.join(ws.dataDir, 'secrets.json'), '{}');
    const secret = await h.call('read_file', { path: path.join(ws.dataDir, 'secrets.json') });
    expect(secret.status).toBe('denied');
    const write = await h.call('edit_file', { path: spill, old_string: 'alpha', new_string: 'x' });
    expect(write.status).toBe('denied');
    expect(fs.readFileSync(spill, 'utf8')).toBe('alpha\nbeta\n');
  });
});
