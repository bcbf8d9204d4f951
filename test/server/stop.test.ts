import fs from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { handleChat, stopTurn } from '../../lib/server/chat';
import { closeDb, openDb } from '../../lib/store/db';
import { createSession } from '../../lib/store/sessions';
import { loadMessages } from '../../lib/store/messages';
import type { ServerConfig } from '../../lib/server/http';
import { tempWorkspace } from '../helpers';
import { readChunks } from './harness';

let ws: ReturnType<typeof tempWorkspace>;
const savedEnv = { ...process.env };
beforeEach(() => (ws = tempWorkspace()));
afterEach(() => {
  closeDb(ws.dataDir);
  process.env = { ...savedEnv };
  ws.cleanup();
});

describe('Stop', () => {
  it('aborts the turn and kills the running command; the session is saved and usable again', async () => {
    const file = path.join(ws.root, 'script.json');
    fs.writeFileSync(file, JSON.stringify([{ toolCalls: [{ name: 'run_command', args: { command: 'echo started; sleep 30; echo late > late.txt' }, id: 's1' }] }, { text: 'never' }]));
    process.env.CLAMP_MODEL = `scripted:${file}`;
    const cfg: ServerConfig = { workspace: ws.workspace, dataDir: ws.dataDir, mode: 'default' };
    const s = createSession(openDb(ws.dataDir), { workspace: ws.workspace, mode: 'auto' }, 'default');
    const t0 = Date.now();
    const res = await handleChat(cfg, { sessionId: s.id, message: { id: 'u1', text: 'go' } }, new AbortController().signal);
    const reading = readChunks(res);
    await new Promise((r) => setTimeout(r, 800));
    expect(stopTurn(s.id)).toBe(true);
    const chunks = await reading;
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(fs.existsSync(path.join(ws.workspace, 'late.txt'))).toBe(false);
    expect(chunks.at(-1)).toMatchObject({ type: 'abort' });
    // the command's process group is gone, not left sleeping
    await new Promise((r) => setTimeout(r, 300));
    const alive = spawnSync('pgrep', ['-f', `sleep 30; echo late > late.txt`]).stdout.toString().trim();
    expect(alive).toBe('');
    expect(stopTurn(s.id)).toBe(false);
    const stored = loadMessages(openDb(ws.dataDir), s.id);
    expect(stored.map((m) => m.role)).toEqual(['user', 'assistant']);
    const part = stored[1].parts.find((p) => p.type === 'tool-run_command') as { state: string; errorText: string };
    expect(part).toMatchObject({ state: 'output-error', errorText: 'Stopped by the user before it finished.' });
  });
});
