import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI } from '../fake-openai';
import { messageText } from '../e2e/scenarios';
import { tempWorkspace } from '../helpers';
import { startClamp, type RunningClamp, stopBed } from './harness';
import { turnInNewSession } from './chat-turn';
import type { DiagnosticsSettingsView } from '../../lib/contract/diagnostics';
import { DIAGNOSTICS_COLD_START_FIGURE_MS } from '../../bench/diagnostics';

/**
 * Diagnostics after edits through the real server: a model's edit_file of a TypeScript file (the
 * language server found and started from inside the server bundle), the result the model reads next,
 * the settings route that lists the servers and turns diagnostics off.
 */
let ws: ReturnType<typeof tempWorkspace>;
let fake: Awaited<ReturnType<typeof startFakeOpenAI>>;
let clamp: RunningClamp;

beforeAll(async () => {
  ws = tempWorkspace('clamp-diag-http-');
  ws.write('tsconfig.json', JSON.stringify({ compilerOptions: { strict: true, noEmit: true }, include: ['src'] }));
  ws.write('src/a.ts', 'export const port: number = 8080;\n');
  fake = await startFakeOpenAI((req) => {
    const last = req.body.messages[req.body.messages.length - 1];
    if (last.role !== 'user') return { text: 'Done.' };
    const text = messageText(last);
    const [from, to] = text.includes('[break]') ? ['port: number = 8080', "port: number = '8080'"] : ["port: number = '8080'", 'port: number = 8080'];
    return { toolCalls: [{ name: 'edit_file', args: { path: 'src/a.ts', old_string: from, new_string: to }, id: `call_${text.includes('[break]') ? 'break' : 'fix'}_${Date.now()}` }] };
  });
  // a loaded machine starts tsserver slowly: wait long enough to see the answer
  clamp = await startClamp({ CLAMP_WORKSPACE: ws.workspace, CLAMP_DATA_DIR: ws.dataDir, CLAMP_MODEL: 'openai-compatible:fake-coder', CLAMP_BASE_URL: fake.url, CLAMP_MODE: 'accept-edits' });
}, 240_000);

afterAll(() => stopBed(clamp, fake, ws));

const turn = (text: string) => turnInNewSession(clamp, fake, text);

describe('diagnostics after edits, through the server', () => {
  it("the model reads the compiler's new error in edit_file's result; the settings route lists the server", { timeout: 4 * DIAGNOSTICS_COLD_START_FIGURE_MS }, async () => {
    // the first edit may meet a cold server (not ready within the timeout on a loaded machine); the next is checked
    let seen = await turn('[break] the port');
    if (seen.includes('Diagnostics not ready')) {
      await turn('fix it');
      seen = await turn('[break] the port again');
    }
    expect(seen).toContain("Diagnostics (typescript): 1 new error (showing 1):\n  src/a.ts:1:14 error TS2322: Type 'string' is not assignable to type 'number'.");
    const view = (await (await clamp.api('/api/settings/diagnostics')).json()) as DiagnosticsSettingsView;
    expect(view.enabled).toBe(true);
    expect(view.servers.find((s) => s.name === 'typescript')).toMatchObject({ state: 'running', typescript: 'clamp' });
    expect(view.configPath).toBe(`${ws.dataDir}/lsp.json`);
  });

  it('turned off on the settings page, the next edit has no diagnostics; a bad body is refused', { timeout: 120_000 }, async () => {
    const bad = await clamp.api('/api/settings/diagnostics', { method: 'PUT', json: { enabled: 'no' } });
    expect(bad.status).toBe(400);
    const off = await clamp.api('/api/settings/diagnostics', { method: 'PUT', json: { enabled: false } });
    expect(off.status).toBe(200);
    const view = (await off.json()) as DiagnosticsSettingsView;
    expect(view).toMatchObject({ enabled: false, saved: false });
    expect(view.servers.find((s) => s.name === 'typescript')?.state).toBe('idle');
    const fixed = await turn('fix it');
    expect(fixed).toMatch(/^Edited src\/a\.ts/);
    const broken = await turn('[break] once more');
    expect(broken).not.toContain('Diagnostics');
    const on = await clamp.api('/api/settings/diagnostics', { method: 'PUT', json: { enabled: true } });
    expect(((await on.json()) as DiagnosticsSettingsView).enabled).toBe(true);
  });
});
