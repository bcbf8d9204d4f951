/**
 * The composer's routes on the real launcher: the chat body's caps (a text body over 512 KiB refused,
 * an image body allowed up to its own cap and refused past it), images refused for a model without
 * vision, path completion under the ignore rules, the model switch recorded once, export and import.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI } from '../fake-openai';
import { BUDGET } from '../../lib/contract/budget';
import { tempWorkspace } from '../helpers';
import { readChunks, startClamp, type RunningClamp, stopBed } from './harness';

let ws: ReturnType<typeof tempWorkspace>;
let fake: Awaited<ReturnType<typeof startFakeOpenAI>>;
let clamp: RunningClamp;

beforeAll(async () => {
  ws = tempWorkspace();
  ws.write('README.md', '# demo\n');
  ws.write('src/app.ts', 'export const a = 1;\n');
  ws.write('node_modules/dep/index.js', 'x\n');
  ws.write('.gitignore', 'dist/\n');
  ws.write('dist/app.js', 'x\n');
  ws.write('src/.gitignore', 'gen/\n');
  ws.write('src/gen/app-generated.ts', 'x\n');
  fake = await startFakeOpenAI(() => ({ text: 'Answered.' }), { models: ['fake', 'llava-fake'] });
  clamp = await startClamp({ CLAMP_WORKSPACE: ws.workspace, CLAMP_DATA_DIR: ws.dataDir, CLAMP_MODEL: 'openai-compatible:fake', CLAMP_BASE_URL: fake.url });
}, 240_000);

afterAll(() => stopBed(clamp, fake, ws));

async function newSession(): Promise<string> {
  return ((await (await clamp.api('/api/sessions', { json: {} })).json()) as { session: { id: string } }).session.id;
}
const image = (bytes: number) => ({ name: 'shot.png', mediaType: 'image/png', url: `data:image/png;base64,${Buffer.alloc(bytes, 7).toString('base64')}` });

describe('the composer routes', () => {
  it('completes paths through the ignore rules and checks a mention', async () => {
    const r = (await (await clamp.api('/api/paths?q=app')).json()) as { items: { path: string }[] };
    // src/gen is ignored by src/.gitignore
    expect(r.items.map((i) => i.path)).toEqual(['src/app.ts']);
    const all = (await (await clamp.api('/api/paths?q=')).json()) as { items: { path: string }[] };
    expect(all.items.map((i) => i.path).some((p) => p.startsWith('node_modules') || p.startsWith('dist'))).toBe(false);
    expect(await (await clamp.api('/api/paths?check=src/app.ts')).json()).toEqual({ path: 'src/app.ts', ok: true });
    expect(await (await clamp.api('/api/paths?check=../etc/passwd')).json()).toMatchObject({ ok: false, error: expect.stringContaining('outside the workspace') });
  });

  it('an image for a model without vision is refused with the fix; a vision model takes it up to its cap; past the image cap 413', { timeout: 120_000 }, async () => {
    const s = await newSession();
    const refused = await clamp.api('/api/chat', { json: { sessionId: s, message: { id: 'i1', text: 'look', files: [image(100)] } } });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: string }).error).toMatch(/^openai-compatible · fake · .* does not take images \(not a known vision model \(set CLAMP_IMAGE_INPUT=1 if it takes images\)\)\. Remove shot\.png, or pick a vision model in the header\.$/);

    expect((await clamp.api(`/api/sessions/${s}`, { method: 'PATCH', json: { model: 'openai-compatible:llava-fake' } })).status).toBe(200);
    // 900 KB of image: more than a text body may hold, within an image body's cap
    const big = await clamp.api('/api/chat', { json: { sessionId: s, message: { id: 'i2', text: 'look', files: [image(900 * 1024)] } } });
    expect(big.status).toBe(200);
    await readChunks(big);
    const req = fake.requests.at(-1)!;
    expect(req.body.model).toBe('llava-fake');
    expect(JSON.stringify(req.body.messages.at(-1))).toContain('"type":"image_url"');

    const over = await clamp.api('/api/chat', { json: { sessionId: s, message: { id: 'i3', text: 'x', files: [image(BUDGET.CHAT_BODY_WITH_IMAGES_MAX_BYTES)] } } });
    expect(over.status).toBe(413);
    const tooLarge = await clamp.api('/api/chat', { json: { sessionId: s, message: { id: 'i4', text: 'x', files: [image(BUDGET.ATTACH_IMAGE_MAX_BYTES + 1)] } } });
    expect(tooLarge.status).toBe(400);
    expect(((await tooLarge.json()) as { error: string }).error).toBe(`The image shot.png is ${(BUDGET.ATTACH_IMAGE_MAX_BYTES + 1).toLocaleString('en-US')} bytes; at most ${BUDGET.ATTACH_IMAGE_MAX_BYTES.toLocaleString('en-US')} bytes (1.0 MB). Scale it down or crop it.`);
    // a text body stays under its own cap
    const text = await clamp.api('/api/chat', { json: { sessionId: s, message: { id: 'i5', text: 'y'.repeat(BUDGET.CHAT_BODY_MAX_BYTES) } } });
    expect(text.status).toBe(413);
  });

  it('a model switch between turns is recorded once, in the next turn', { timeout: 120_000 }, async () => {
    const s = await newSession();
    await readChunks(await clamp.api('/api/chat', { json: { sessionId: s, message: { id: 'm1', text: 'one' } } }));
    await clamp.api(`/api/sessions/${s}`, { method: 'PATCH', json: { model: 'openai-compatible:llava-fake' } });
    const chunks = await readChunks(await clamp.api('/api/chat', { json: { sessionId: s, message: { id: 'm2', text: 'two' } } }));
    expect(chunks.filter((c) => c.type === 'data-model-switch').map((c) => c.data)).toEqual([{ from: 'fake', to: 'llava-fake' }]);
    const detail = (await (await clamp.api(`/api/sessions/${s}`)).json()) as { messages: { role: string; parts: { type: string }[] }[] };
    expect(detail.messages.flatMap((m) => m.parts).filter((p) => p.type === 'data-model-switch')).toHaveLength(1);
    expect(detail.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
  });

  it('export and import: a round trip, and clear errors for what is not an export', async () => {
    const s = await newSession();
    await readChunks(await clamp.api('/api/chat', { json: { sessionId: s, message: { id: 'e1', text: 'export me' } } }));
    const exp = await clamp.api(`/api/sessions/${s}/export?format=json`);
    expect(exp.headers.get('content-disposition')).toMatch(/^attachment; filename="clamp-export-me\.json"$/);
    const data = (await exp.json()) as { messages: unknown[] };
    const imp = await clamp.api('/api/sessions/import', { json: data });
    expect(imp.status).toBe(201);
    const id = ((await imp.json()) as { session: { id: string; title: string } }).session.id;
    const copy = (await (await clamp.api(`/api/sessions/${id}`)).json()) as { session: { title: string }; messages: unknown[] };
    expect(copy.session.title).toBe('export me (imported)');
    expect(copy.messages).toEqual(data.messages);
    const bad = await clamp.api('/api/sessions/import', { json: { format: 'clamp-session', version: 2, session: { title: 't' }, messages: [] } });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toBe('Invalid request: field "version": must be 1 (this Clamp reads version 1 exports).');
    const notJson = await clamp.api('/api/sessions/import', { method: 'POST', body: 'not json', headers: { 'content-type': 'application/json' } });
    expect(notJson.status).toBe(400);
    expect((await clamp.api(`/api/sessions/${s}/export?format=pdf`)).status).toBe(400);
  });
});
