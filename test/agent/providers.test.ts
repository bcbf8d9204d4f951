import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveModel, resolveProvider } from '../../lib/agent/providers';
import { withServerWindow } from '../../lib/agent/windows';
import { clearWindowCache, discoverServerWindow } from '../../lib/agent/context/discover';
import { BUDGET } from '../../lib/contract/budget';
import { PROVIDER_TABLE, PROVIDERS, SECRET_ENV, type ProviderRow } from '../../lib/contract/providers';
import { settingsUpdateBody } from '../../lib/contract/rest';
import { listRequest } from '../../lib/server/model-check';
import { SERVER_WINDOWS_FILE_NAME } from '../../lib/store/server-windows';
import { BaseUrlField, ApiKeyField } from '../../components/model-fields';
import type { ModelForm } from '../../components/use-model-form';
import { startFakeOpenAI } from '../fake-openai';
import { startFakeOllama } from '../fake-ollama';
import { tempWorkspace } from '../helpers';

let ws: ReturnType<typeof tempWorkspace>;
beforeEach(() => {
  ws = tempWorkspace('clamp-providers-');
  clearWindowCache();
});
afterEach(() => {
  clearWindowCache();
  ws.cleanup();
});

/** A provider the table does not hold: one row, speaking an API Clamp has a client for. */
const lmStudio = (url: string): ProviderRow => ({
  name: 'lmstudio',
  api: 'openai-compatible',
  fields: { modelLabel: 'Model', modelPlaceholder: 'as LM Studio lists it', baseUrl: { placeholder: 'http://127.0.0.1:1234/v1', help: 'LM Studio’s server address' }, listedBy: 'LM Studio' },
  secret: { name: 'lmstudio', env: 'LMSTUDIO_API_KEY', required: false, onPage: true },
  endpoint: { default: url, env: ['LMSTUDIO_BASE_URL'], setting: true },
  listing: { path: '/models', root: false, auth: 'bearer', what: 'LM Studio', kind: 'LM Studio' },
  windowProbes: ['vllm'],
  catalogue: null,
  cacheBreakpoints: false,
  toolResultImages: false,
  configure: '  CLAMP_MODEL=lmstudio:<model>',
});

describe('the provider table', () => {
  it('names every provider once; the REST schema and the secrets file take their names and keys from it', () => {
    expect(PROVIDERS).toEqual(['anthropic', 'openai', 'openai-compatible', 'ollama', 'scripted']);
    expect(SECRET_ENV).toEqual({ anthropic: 'ANTHROPIC_API_KEY', openai: 'OPENAI_API_KEY', 'openai-compatible': 'CLAMP_API_KEY' });
    const body = { provider: 'ollama', model: null, baseUrl: null, contextWindow: null, defaultMode: 'default', imageInput: 'auto' };
    expect(settingsUpdateBody.safeParse({ ...body, keys: { 'openai-compatible': 'k' } }).success).toBe(true);
    expect(settingsUpdateBody.safeParse({ ...body, keys: { ollama: 'k' } }).success).toBe(false);
    expect(settingsUpdateBody.safeParse({ ...body, provider: 'lmstudio' }).success).toBe(false);
    for (const r of PROVIDER_TABLE as readonly ProviderRow[]) expect(r.endpoint.setting ? !!r.fields.baseUrl : true, r.name).toBe(true);
  });

  it('a fixture row is resolved, listed, asked for its window and given its settings fields with no other file touched', async () => {
    const fake = await startFakeOpenAI([{ text: 'hi' }], { models: ['qwen-local'], window: { tokens: 12_288 } });
    try {
      const row = lmStudio(fake.url);
      const r = resolveProvider(row, { env: {}, settings: {}, keys: {}, modelId: 'qwen-local', onPage: false });
      expect(r.ok && r.status).toMatchObject({ configured: true, provider: 'lmstudio', model: 'qwen-local', label: `lmstudio · qwen-local · ${fake.url}` });
      expect(r.ok && r.baseUrl).toBe(fake.url);
      expect(resolveProvider(row, { env: {}, settings: {}, keys: {}, modelId: null, onPage: true }).status.help).toBe(
        "The lmstudio provider needs a model name: set it on the settings page (Test connection lists the server's models).",
      );
      expect(listRequest(row, null, { value: 'k', from: 'the key you typed' }, {})).toEqual({ url: `${fake.url}/models`, headers: { authorization: 'Bearer k' }, what: 'LM Studio' });
      expect(await discoverServerWindow(row.name, fake.url, 'fake-coder', { probes: row.windowProbes })).toEqual({ tokens: 12_288, detail: "the server's /v1/models (max_model_len)" });
      const form = { row, secret: 'lmstudio', draft: { baseUrl: '', key: '' }, edit: () => undefined, removeKey: () => undefined } as unknown as ModelForm;
      const view = { keys: {}, envKeys: { lmstudio: true }, secretsFile: '/data/secrets.json' } as never;
      expect(renderToStaticMarkup(createElement(BaseUrlField, { form }))).toContain('placeholder="http://127.0.0.1:1234/v1"');
      expect(renderToStaticMarkup(createElement(ApiKeyField, { form, view }))).toContain('LMSTUDIO_API_KEY is also set where Clamp was started; the stored key wins.');
    } finally {
      await fake.close();
    }
  });
});

describe("a server's window, learnt once and remembered in the data dir", () => {
  const windowOf = async (url: string, o: { now?: number } = {}) => {
    const r = resolveModel({ CLAMP_MODEL: 'openai-compatible:fake-coder', CLAMP_BASE_URL: url }, {});
    if (!r.ok) throw new Error(r.status.help);
    return withServerWindow(r.status, r.baseUrl, { dataDir: ws.dataDir, ...o });
  };
  const file = () => path.join(ws.dataDir, SERVER_WINDOWS_FILE_NAME);

  it('a second run (a new process: nothing in memory) makes no probe request; an expired entry probes again', async () => {
    const fake = await startFakeOpenAI([], { window: { tokens: 12_288 } });
    try {
      // the probes this stand-in sees: vLLM's /v1/models and LM Studio's /api/v0/models
      expect(await windowOf(fake.url)).toMatchObject({ windowTokens: 12_288, windowSource: { kind: 'server' } });
      const asked = fake.modelListRequests.length;
      expect(asked).toBeGreaterThan(0);
      clearWindowCache();
      expect(await windowOf(fake.url)).toMatchObject({ windowTokens: 12_288, windowSource: { kind: 'server' } });
      expect(fake.modelListRequests).toHaveLength(asked);
      clearWindowCache();
      await windowOf(fake.url, { now: Date.now() + BUDGET.WINDOW_DISCOVERY_CACHE_MS + 1000 });
      expect(fake.modelListRequests).toHaveLength(2 * asked);
    } finally {
      await fake.close();
    }
  });

  it('a wrong remembered value is not kept: it expires, and one dated in the future or a broken file is not trusted', async () => {
    const fake = await startFakeOpenAI([], { window: { tokens: 12_288 } });
    try {
      const key = `openai-compatible ${fake.url} fake-coder`;
      const wrong = (at: number) => fs.writeFileSync(file(), JSON.stringify({ [key]: { at, value: { tokens: 999_999, detail: 'stale' } } }));
      wrong(Date.now() - 1000);
      expect((await windowOf(fake.url)).windowTokens).toBe(999_999);
      expect(fake.modelListRequests).toHaveLength(0);
      for (const at of [Date.now() - BUDGET.WINDOW_DISCOVERY_CACHE_MS - 1000, Date.now() + 60_000]) {
        clearWindowCache();
        wrong(at);
        const before = fake.modelListRequests.length;
        expect((await windowOf(fake.url)).windowTokens).toBe(12_288);
        expect(fake.modelListRequests.length).toBeGreaterThan(before);
        expect(JSON.parse(fs.readFileSync(file(), 'utf8'))[key].value.tokens).toBe(12_288);
      }
      clearWindowCache();
      fs.writeFileSync(file(), '{ not json');
      const before = fake.modelListRequests.length;
      expect((await windowOf(fake.url)).windowTokens).toBe(12_288);
      expect(fake.modelListRequests.length).toBeGreaterThan(before);
    } finally {
      await fake.close();
    }
  });

  it('Ollama: /api/show is asked once, then the data dir answers', async () => {
    const ollama = await startFakeOllama(['qwen3:8b'], { contextLength: 40_960 });
    try {
      const r = resolveModel({}, { provider: 'ollama', model: 'qwen3:8b', baseUrl: ollama.url });
      if (!r.ok) throw new Error(r.status.help);
      const ask = () => withServerWindow(r.status, r.baseUrl, { dataDir: ws.dataDir });
      expect(await ask()).toMatchObject({ windowTokens: 40_960, windowSource: { kind: 'server', detail: 'Ollama /api/show (qwen3.context_length)' } });
      clearWindowCache();
      expect((await ask()).windowTokens).toBe(40_960);
      expect(ollama.showRequests).toHaveLength(1);
    } finally {
      await ollama.close();
    }
  });

  it('when it must probe, it asks every probe at once and the most trusted answer wins', async () => {
    let inFlight = 0;
    let most = 0;
    const answers: Record<string, unknown> = {
      'GET /v1/models': { data: [{ id: 'm', max_model_len: 8192 }] },
      'GET /props': { default_generation_settings: { n_ctx: 4096 } },
    };
    const server = http.createServer((req, res) => {
      most = Math.max(most, ++inFlight);
      const body = answers[`${req.method} ${req.url}`];
      // vLLM's answer comes last, and still wins over llama.cpp's
      setTimeout(() => {
        inFlight--;
        res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body ?? {}));
      }, req.url === '/v1/models' ? 300 : 100);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
      expect(await discoverServerWindow('openai-compatible', url, 'm')).toEqual({ tokens: 8192, detail: "the server's /v1/models (max_model_len)" });
      expect(most).toBe(4);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
