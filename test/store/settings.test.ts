import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { closeDb, openDb, type Db } from '../../lib/store/db';
import { getModelSettings, getSetting, setModelSettings, setSetting, settingsView, updateSettings } from '../../lib/store/settings';
import {
  APPROVAL_SECRET_FILE_NAME,
  envSecretStatus,
  getApprovalSecret,
  readSecrets,
  resolveApiKey,
  SECRETS_FILE_NAME,
  secretStatus,
  writeSecrets,
} from '../../lib/store/secrets';
import { tempWorkspace } from '../helpers';

let ws: ReturnType<typeof tempWorkspace>;
let db: Db;

beforeEach(() => {
  ws = tempWorkspace('clamp-settings-');
  db = openDb(ws.dataDir);
});
afterEach(() => {
  closeDb(ws.dataDir);
  ws.cleanup();
});

const mode = (file: string) => fs.statSync(file).mode & 0o777;

describe('settings', () => {
  it('has defaults with the launch mode until something is saved', () => {
    expect(getModelSettings(db)).toEqual({ provider: null, model: null, baseUrl: null, contextWindow: null, defaultMode: 'default' });
    expect(getModelSettings(db, 'plan').defaultMode).toBe('plan');
  });

  it('merges changes, keeps what was not sent, and survives a restart', () => {
    setModelSettings(db, { provider: 'openai-compatible', model: 'qwen3', baseUrl: 'http://127.0.0.1:1234/v1' });
    setModelSettings(db, { contextWindow: 32768, model: undefined });
    closeDb(ws.dataDir);
    db = openDb(ws.dataDir);
    expect(getModelSettings(db, 'plan')).toEqual({
      provider: 'openai-compatible',
      model: 'qwen3',
      baseUrl: 'http://127.0.0.1:1234/v1',
      contextWindow: 32768,
      defaultMode: 'plan',
    });
    setModelSettings(db, { baseUrl: null, defaultMode: 'auto' });
    expect(getModelSettings(db, 'plan')).toMatchObject({ baseUrl: null, defaultMode: 'auto' });
  });

  it('stores any JSON value under a key', () => {
    expect(getSetting(db, 'ui')).toBeUndefined();
    setSetting(db, 'ui', { theme: 'dark', n: [1, 2] });
    setSetting(db, 'ui', { theme: 'light' });
    expect(getSetting(db, 'ui')).toEqual({ theme: 'light' });
  });

  it('the view says which keys are set, never the keys; updates go to the database and the secrets file', () => {
    const env = { OPENAI_API_KEY: 'sk-env' } as unknown as NodeJS.ProcessEnv;
    const view = updateSettings(db, ws.dataDir, { provider: 'anthropic', keys: { anthropic: 'sk-ant-secret' } }, 'default', env);
    expect(view).toEqual({
      settings: { provider: 'anthropic', model: null, baseUrl: null, contextWindow: null, defaultMode: 'default' },
      sandbox: { level: 'by-mode', network: false, passEnv: [], hide: [], show: [], allowHosts: [] },
      sandboxEnv: {},
      keys: { anthropic: true, openai: false, 'openai-compatible': false },
      envKeys: { anthropic: false, openai: true, 'openai-compatible': false },
      secretsFile: path.join(ws.dataDir, 'secrets.json'),
    });
    expect(JSON.stringify(view)).not.toContain('sk-');
    expect(JSON.stringify(settingsView(db, ws.dataDir, 'default', env))).not.toContain('sk-');
    // keys never reach the database
    const dump = (db.prepare('SELECT json FROM settings').all() as { json: string }[]).map((r) => r.json).join('\n');
    expect(dump).not.toContain('sk-ant-secret');
    expect(readSecrets(ws.dataDir)).toEqual({ anthropic: 'sk-ant-secret' });
  });
});

describe('secrets', () => {
  it('writes keys atomically to a 0600 file, removes them with null, and leaves no temp files', () => {
    const file = path.join(ws.dataDir, SECRETS_FILE_NAME);
    expect(readSecrets(ws.dataDir)).toEqual({});
    expect(writeSecrets(ws.dataDir, { anthropic: ' a-key ', openai: 'o-key' })).toEqual({ anthropic: true, openai: true, 'openai-compatible': false });
    expect(mode(file)).toBe(0o600);
    expect(readSecrets(ws.dataDir)).toEqual({ anthropic: 'a-key', openai: 'o-key' });
    writeSecrets(ws.dataDir, { openai: null, 'openai-compatible': 'c-key' });
    expect(readSecrets(ws.dataDir)).toEqual({ anthropic: 'a-key', 'openai-compatible': 'c-key' });
    expect(secretStatus(ws.dataDir)).toEqual({ anthropic: true, openai: false, 'openai-compatible': true });
    expect(mode(file)).toBe(0o600);
    expect(fs.readdirSync(ws.dataDir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('ignores unknown names and non-string values in the file', () => {
    fs.writeFileSync(path.join(ws.dataDir, SECRETS_FILE_NAME), JSON.stringify({ anthropic: 'k', other: 'x', openai: 5 }));
    expect(readSecrets(ws.dataDir)).toEqual({ anthropic: 'k' });
  });

  it('explains a corrupt secrets file', () => {
    const file = path.join(ws.dataDir, SECRETS_FILE_NAME);
    fs.writeFileSync(file, '{not json');
    expect(() => readSecrets(ws.dataDir)).toThrow(`${file} is not valid JSON. Fix it, or delete it and enter the API keys again in the settings.`);
  });

  it('resolves a key from the data dir first, else the environment', () => {
    const env = { ANTHROPIC_API_KEY: 'from-env', CLAMP_API_KEY: 'compat-env' } as unknown as NodeJS.ProcessEnv;
    expect(resolveApiKey(ws.dataDir, 'anthropic', env)).toBe('from-env');
    writeSecrets(ws.dataDir, { anthropic: 'from-file' });
    expect(resolveApiKey(ws.dataDir, 'anthropic', env)).toBe('from-file');
    expect(resolveApiKey(ws.dataDir, 'openai-compatible', env)).toBe('compat-env');
    expect(resolveApiKey(ws.dataDir, 'openai', env)).toBeUndefined();
    expect(envSecretStatus(env)).toEqual({ anthropic: true, openai: false, 'openai-compatible': true });
  });

  it('creates the approval secret once: 32 random bytes in a 0600 file that survive a restart', () => {
    const file = path.join(ws.dataDir, APPROVAL_SECRET_FILE_NAME);
    const a = getApprovalSecret(ws.dataDir);
    expect(a).toBeInstanceOf(Uint8Array);
    expect(a.length).toBe(32);
    expect(mode(file)).toBe(0o600);
    expect(Buffer.from(getApprovalSecret(ws.dataDir)).equals(Buffer.from(a))).toBe(true);
    expect(Buffer.from(a).equals(Buffer.alloc(32))).toBe(false);
    const other = tempWorkspace('clamp-secret-');
    try {
      expect(Buffer.from(getApprovalSecret(other.dataDir)).equals(Buffer.from(a))).toBe(false);
    } finally {
      other.cleanup();
    }
    expect(fs.readdirSync(ws.dataDir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('refuses a truncated approval secret with the fix', () => {
    const file = path.join(ws.dataDir, APPROVAL_SECRET_FILE_NAME);
    fs.writeFileSync(file, 'short');
    expect(() => getApprovalSecret(ws.dataDir)).toThrow(
      `${file} holds 5 bytes, not 32. Delete it and restart Clamp (pending approvals will have to be asked again).`,
    );
  });
});
