import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI } from '../fake-openai';
import { messageText } from '../e2e/scenarios';
import { tempWorkspace } from '../helpers';
import { startClamp, type RunningClamp, stopBed } from './harness';
import { turnInNewSession } from './chat-turn';

/**
 * glob and grep inside the built server: the bundle loads fast-glob's own modules (glob reads patterns
 * with them) and grep's worker pool the way Node does there, not the way the tests' loader does.
 */
let ws: ReturnType<typeof tempWorkspace>;
let fake: Awaited<ReturnType<typeof startFakeOpenAI>>;
let clamp: RunningClamp;

beforeAll(async () => {
  ws = tempWorkspace('clamp-search-http-');
  ws.write('.gitignore', 'dist/\n');
  ws.write('src/a.ts', 'export const needle = 1;\n');
  ws.write('src/lib/b.ts', 'export const b = 2;\n');
  ws.write('dist/c.ts', 'export const needle = 3;\n');
  ws.write('README.md', '# needle\n');
  fake = await startFakeOpenAI((req) => {
    const last = req.body.messages[req.body.messages.length - 1];
    if (last.role !== 'user') return { text: 'Done.' };
    const text = messageText(last);
    return text.startsWith('glob')
      ? { toolCalls: [{ name: 'glob', args: { pattern: '{src,dist}/**/*.ts' }, id: `call_glob_${Date.now()}` }] }
      : { toolCalls: [{ name: 'grep', args: { pattern: 'needle' }, id: `call_grep_${Date.now()}` }] };
  });
  clamp = await startClamp({ CLAMP_WORKSPACE: ws.workspace, CLAMP_DATA_DIR: ws.dataDir, CLAMP_MODEL: 'openai-compatible:fake', CLAMP_BASE_URL: fake.url });
}, 240_000);

afterAll(() => stopBed(clamp, fake, ws));

const turn = (text: string) => turnInNewSession(clamp, fake, text);

describe('search tools through the server', () => {
  it('glob answers with its ignore rules and the sorted first paths', { timeout: 60_000 }, async () => {
    const seen = await turn('glob the sources');
    expect(seen).toContain('src/a.ts\nsrc/lib/b.ts\n\n2 files match.');
  });

  it('grep answers the same way', { timeout: 60_000 }, async () => {
    const seen = await turn('grep for the needle');
    expect(seen).toContain('README.md:1:# needle\nsrc/a.ts:1:export const needle = 1;');
  });
});
