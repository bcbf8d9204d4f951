/**
 * Settings "Test connection": real HTTP to loopback stand-ins (the fake OpenAI-compatible server's
 * /v1/models, a fake Ollama's /api/tags), real files for the scripted provider, and the exact words the
 * dialog shows for each failure.
 */
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkModel } from '../../lib/server/model-check';
import { resolveModel } from '../../lib/agent/providers';
import { writeSecrets } from '../../lib/store/secrets';
import { startFakeOpenAI } from '../fake-openai';
import { startFakeOllama } from '../fake-ollama';
import { tempWorkspace } from '../helpers';

let ws: ReturnType<typeof tempWorkspace>;
let fake: Awaited<ReturnType<typeof startFakeOpenAI>>;
let keyed: Awaited<ReturnType<typeof startFakeOpenAI>>;
let ollama: Awaited<ReturnType<typeof startFakeOllama>>;
let deadUrl: string;
const env: Record<string, string> = {};

/** A port nobody listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

beforeAll(async () => {
  ws = tempWorkspace('clamp-model-check-');
  fake = await startFakeOpenAI([], { models: ['qwen2.5-coder-7b', 'llama-3.1-8b'] });
  keyed = await startFakeOpenAI([], { models: ['claude-sonnet-4-5-20250929', 'claude-haiku-4-5-20251001'], apiKey: 'sk-right' });
  ollama = await startFakeOllama(['qwen3-coder:latest', 'gemma3:4b']);
  deadUrl = `http://127.0.0.1:${await closedPort()}/v1`;
});
afterAll(async () => {
  await Promise.all([fake?.close(), keyed?.close(), ollama?.close()]);
  ws?.cleanup();
});

const check = (provider: Parameters<typeof checkModel>[0]['provider'], model: string | null, baseUrl: string | null = null, key: string | null = null, extraEnv: Record<string, string> = {}, timeoutMs?: number) =>
  checkModel({ provider, model, baseUrl, key }, { dataDir: ws.dataDir, env: { ...env, ...extraEnv }, timeoutMs });

describe('Test connection', () => {
  it('lists an OpenAI-compatible (vLLM, LM Studio) server’s /v1/models and checks the model against them', async () => {
    const ok = await check('openai-compatible', 'llama-3.1-8b', fake.url);
    expect(ok).toEqual({ ok: true, message: `Reached the server at ${new URL(fake.url).origin}: 2 models listed. llama-3.1-8b is one of them.`, models: ['llama-3.1-8b', 'qwen2.5-coder-7b'], reached: true, pick: 'llama-3.1-8b' });
    const wrong = await check('openai-compatible', 'gpt-9', fake.url);
    expect(wrong).toMatchObject({ ok: false, reached: true, pick: null });
    expect(wrong.message).toBe(`Reached the server at ${new URL(fake.url).origin}: 2 models listed. “gpt-9” is not one of them: pick a listed model, or check the name.`);
    expect(wrong.models).toEqual(['llama-3.1-8b', 'qwen2.5-coder-7b']);
    // reached, with a choice left to make: not a failure of the connection
    const none = await check('openai-compatible', null, `${fake.url}/`);
    expect(none).toEqual({ ok: false, message: `Reached the server at ${new URL(fake.url).origin}: 2 models listed. Pick the model to use from the list.`, models: ['llama-3.1-8b', 'qwen2.5-coder-7b'], reached: true, pick: null });
  });

  it('with Model empty and one model listed, that model is the one: the check succeeds and picks it', async () => {
    const single = await startFakeOpenAI([], { models: ['only-coder'] });
    try {
      const r = await check('openai-compatible', null, single.url);
      expect(r).toEqual({ ok: true, message: `Reached the server at ${new URL(single.url).origin}: 1 model listed. Clamp uses only-coder, the only one listed; it is filled in as the Model.`, models: ['only-coder'], reached: true, pick: 'only-coder' });
      // a name the list holds with a suffix is picked as listed
      await expect(check('openai-compatible', 'only', single.url)).resolves.toMatchObject({ ok: true, pick: 'only-coder' });
    } finally {
      await single.close();
    }
  });

  it('lists Ollama’s /api/tags, from its own address or its /v1 one', async () => {
    const r = await check('ollama', 'qwen3-coder', ollama.url);
    expect(r).toEqual({ ok: true, message: `Reached Ollama at ${ollama.url}: 2 models listed. qwen3-coder is one of them.`, models: ['gemma3:4b', 'qwen3-coder:latest'], reached: true, pick: 'qwen3-coder:latest' });
    await expect(check('ollama', 'gemma3:4b', `${ollama.url}/v1`)).resolves.toMatchObject({ ok: true });
    const empty = await startFakeOllama([]);
    try {
      await expect(check('ollama', 'qwen3-coder', empty.url)).resolves.toMatchObject({ ok: false, message: expect.stringMatching(/0 models listed\. Pull one first \(ollama pull qwen3-coder\), then test again\.$/) });
    } finally {
      await empty.close();
    }
  });

  it('lists Anthropic’s and OpenAI’s models with the key, where the provider itself would call', async () => {
    const base = { ANTHROPIC_BASE_URL: keyed.url, OPENAI_BASE_URL: keyed.url };
    const a = await check('anthropic', 'claude-sonnet-4-5', null, 'sk-right', base);
    expect(a).toMatchObject({ ok: true, models: ['claude-haiku-4-5-20251001', 'claude-sonnet-4-5-20250929'] });
    expect(keyed.modelListRequests.at(-1)).toMatchObject({ 'x-api-key': 'sk-right', 'anthropic-version': '2023-06-01' });
    await expect(check('openai', null, null, 'sk-right', base)).resolves.toMatchObject({ ok: true, message: expect.stringMatching(/With Model empty, Clamp uses gpt-5\.$/) });
    expect(keyed.modelListRequests.at(-1)).toMatchObject({ authorization: 'Bearer sk-right' });
    // a wrong key is named by where it came from
    const typed = await check('anthropic', 'claude-sonnet-4-5', null, 'sk-wrong', base);
    expect(typed.message).toMatch(new RegExp(`^${new URL(keyed.url).origin} refused the key you typed \\(HTTP 401: .*Incorrect API key provided.*\\)\\. Paste a valid key\\.$`));
    writeSecrets(ws.dataDir, { openai: 'sk-stored-wrong' });
    await expect(check('openai', 'gpt-5', null, null, base)).resolves.toMatchObject({ ok: false, message: expect.stringContaining('refused the stored key (HTTP 401') });
    writeSecrets(ws.dataDir, { openai: null });
    await expect(check('openai', 'gpt-5', null, null, { ...base, OPENAI_API_KEY: 'sk-env-wrong' })).resolves.toMatchObject({ message: expect.stringContaining('refused the key in OPENAI_API_KEY') });
    // no key at all: the field to fill, and no environment variable the person did not use
    const none = await check('anthropic', 'claude-sonnet-4-5', null, null, base);
    expect(none).toEqual({ ok: false, message: 'The anthropic provider needs an API key: paste it in the API key field.', models: [], reached: false, pick: null });
  });

  it('a base URL where nothing listens says so, in those words', async () => {
    const r = await check('openai-compatible', 'x', deadUrl);
    expect(r).toEqual({ ok: false, message: `Nothing listens at ${new URL(deadUrl).origin} (connection refused). Start the server there, or correct the URL.`, models: [], reached: false, pick: null });
    await expect(check('ollama', 'x', new URL(deadUrl).origin)).resolves.toMatchObject({ message: expect.stringMatching(/^Nothing listens at /) });
    await expect(check('openai-compatible', 'x', 'localhost:1234')).resolves.toMatchObject({ message: 'localhost:1234 is not a URL. Write it as http://host:port/v1.' });
    await expect(check('openai-compatible', 'x', null)).resolves.toMatchObject({ ok: false, message: expect.stringMatching(/^Enter the base URL of your server/) });
  });

  it('a server that never answers is given up on in bounded time; a wrong path is a 404 with the fix', async () => {
    const sockets: net.Socket[] = [];
    const silent = net.createServer((s) => sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
    const notFound = http.createServer((_q, res) => res.writeHead(404).end('nope'));
    await new Promise<void>((r) => notFound.listen(0, '127.0.0.1', () => r()));
    try {
      const t0 = Date.now();
      const slow = await check('openai-compatible', 'x', `http://127.0.0.1:${(silent.address() as net.AddressInfo).port}/v1`, null, {}, 300);
      expect(Date.now() - t0).toBeLessThan(2000);
      expect(slow.message).toBe(`http://127.0.0.1:${(silent.address() as net.AddressInfo).port} did not answer within 0.3 s. Is the server there busy or behind a firewall?`);
      const port = (notFound.address() as net.AddressInfo).port;
      const nf = await check('openai-compatible', 'x', `http://127.0.0.1:${port}`);
      expect(nf.message).toBe(`http://127.0.0.1:${port}/models is not there (HTTP 404): the server at http://127.0.0.1:${port} answers, but not with a model list. Check the URL (OpenAI-compatible servers usually end in /v1).`);
    } finally {
      for (const s of sockets) s.destroy();
      silent.close();
      notFound.close();
    }
  });

  it('a missing script file is a missing file, not a JSON error; a real one is counted', async () => {
    const missing = path.join(ws.root, 'nope.json');
    const r = await check('scripted', missing);
    expect(r).toEqual({ ok: false, message: `The script file ${missing} does not exist. Give the path of a JSON script of model turns (docs/scripted-model.md).`, models: [], reached: false, pick: null });
    expect(r.message).not.toMatch(/JSON error|CLAMP_MODEL/);
    const bad = path.join(ws.root, 'bad.json');
    fs.writeFileSync(bad, '[{"text": "hi",}]');
    await expect(check('scripted', bad)).resolves.toMatchObject({ ok: false, message: expect.stringMatching(/^The script file .*bad\.json is not valid JSON \(/) });
    await expect(check('scripted', ws.root)).resolves.toMatchObject({ message: `${ws.root} is a folder, not a script file. Give the path of a JSON script of model turns (docs/scripted-model.md).` });
    const good = path.join(ws.root, 'good.json');
    fs.writeFileSync(good, JSON.stringify([{ text: 'one' }, { text: 'two' }]));
    await expect(check('scripted', good)).resolves.toEqual({ ok: true, message: `The script ${good} has 2 turns. It replays them; it is not a real model.`, models: [], reached: false, pick: null });
    await expect(check('scripted', null)).resolves.toMatchObject({ ok: false, message: expect.stringMatching(/^Enter the path of a script file as the model/) });
  });

  it('with no provider chosen, checks what the environment configures', async () => {
    const r = await check(null, null, null, null, { CLAMP_MODEL: 'openai-compatible:qwen2.5-coder-7b', CLAMP_BASE_URL: fake.url });
    expect(r).toMatchObject({ ok: true, message: expect.stringMatching(/^No provider chosen, so Clamp uses openai-compatible · qwen2\.5-coder-7b · .*Reached the server/) });
    await expect(check(null, null)).resolves.toMatchObject({ ok: false, message: expect.stringMatching(/^No model is configured\./) });
  });
});

describe('the model in use, in the words of where it was configured', () => {
  it('a provider chosen on the settings page gets page words; one from the environment keeps its variables', () => {
    const page = resolveModel({}, { provider: 'anthropic' });
    expect(page.status.help).toBe('The anthropic provider needs an API key: paste it in the settings.');
    expect(resolveModel({ CLAMP_MODEL: 'anthropic:claude-sonnet-4-5' }, {}).status.help).toBe('The anthropic provider needs ANTHROPIC_API_KEY (in the environment, or saved on the settings page).');
    expect(resolveModel({}, { provider: 'openai-compatible', model: 'm' }).status.help).toBe('The openai-compatible provider needs a base URL: fill it in on the settings page (for example http://127.0.0.1:1234/v1).');
    expect(resolveModel({}, { provider: 'scripted' }).status.help).toBe('The scripted provider needs the path of a script file: enter it as the model on the settings page.');
    for (const r of [page, resolveModel({}, { provider: 'openai-compatible', model: 'm' }), resolveModel({}, { provider: 'ollama' }), resolveModel({}, { provider: 'scripted' })]) {
      expect(r.status.help).not.toMatch(/CLAMP_|_API_KEY/);
    }
    const missing = path.join(ws.root, 'gone.json');
    expect(resolveModel({}, { provider: 'scripted', model: missing }).status.help).toBe(`The script file ${missing} does not exist. Give the path of a JSON script of model turns (docs/scripted-model.md).`);
  });

  it('Ollama’s own address, as the settings take it, is served under /v1', () => {
    const r = resolveModel({}, { provider: 'ollama', model: 'qwen3-coder', baseUrl: 'http://127.0.0.1:11434' });
    expect(r.status.label).toBe('ollama · qwen3-coder · http://127.0.0.1:11434/v1');
    expect(resolveModel({}, { provider: 'ollama', model: 'qwen3-coder', baseUrl: 'http://127.0.0.1:11434/v1' }).status.label).toBe('ollama · qwen3-coder · http://127.0.0.1:11434/v1');
    expect(resolveModel({}, { provider: 'ollama', model: 'qwen3-coder' }).status.label).toBe('ollama · qwen3-coder · http://127.0.0.1:11434/v1');
  });
});
