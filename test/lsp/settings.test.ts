import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDb } from '../../lib/store/db';
import { diagnosticsEnabled, diagnosticsSettingsView, updateDiagnosticsSettings } from '../../lib/server/diagnostics';
import { tempWorkspace } from '../helpers';

let ws: ReturnType<typeof tempWorkspace>;
const env = (vars: Record<string, string | undefined> = {}) => vars as NodeJS.ProcessEnv;
beforeEach(() => {
  ws = tempWorkspace('clamp-lsp-settings-');
});
afterEach(() => ws.cleanup());

describe('the diagnostics switch and the server list', () => {
  it('on by default; the saved switch; CLAMP_DIAGNOSTICS wins, and a value that is not a switch is reported', async () => {
    const db = openDb(ws.dataDir);
    expect(diagnosticsEnabled(db, env())).toBe(true);
    await updateDiagnosticsSettings(db, ws.workspace, ws.dataDir, { enabled: false }, env());
    expect(diagnosticsEnabled(db, env())).toBe(false);
    expect(diagnosticsEnabled(db, env({ CLAMP_DIAGNOSTICS: '1' }))).toBe(true);
    expect(diagnosticsEnabled(db, env({ CLAMP_DIAGNOSTICS: 'off' }))).toBe(false);
    const view = diagnosticsSettingsView(db, ws.workspace, ws.dataDir, env({ CLAMP_DIAGNOSTICS: 'maybe' }));
    expect(view).toMatchObject({ enabled: false, saved: false, env: 'maybe', envProblem: 'CLAMP_DIAGNOSTICS=maybe is not a switch; use 1 or 0 (on or off). The saved setting applies meanwhile.' });
  });

  it('a broken lsp.json is reported with the expected shape, and the built-in server still listed', () => {
    const db = openDb(ws.dataDir);
    fs.writeFileSync(path.join(ws.dataDir, 'lsp.json'), JSON.stringify({ servers: { pyright: { command: 'pyright-langserver' } } }));
    const view = diagnosticsSettingsView(db, ws.workspace, ws.dataDir, env({ PATH: process.env.PATH }));
    expect(view.configProblem).toMatch(/lsp\.json: servers\.pyright\.patterns: .*Expected \{"servers": \{"<name>": \{"command": "\.\.\.", "args": \[\.\.\.\], "patterns": \["\*\.py"\]\}\}\}/);
    expect(view.servers.map((s) => s.name)).toEqual(['typescript']);
    fs.writeFileSync(path.join(ws.dataDir, 'lsp.json'), '{ not json');
    expect(diagnosticsSettingsView(db, ws.workspace, ws.dataDir, env()).configProblem).toMatch(/lsp\.json is not valid JSON/);
    fs.writeFileSync(path.join(ws.dataDir, 'lsp.json'), JSON.stringify({ servers: { typescript: { disabled: true } } }));
    expect(diagnosticsSettingsView(db, ws.workspace, ws.dataDir, env()).servers).toEqual([]);
  });
});
