/**
 * A command file's allowed-tools and model hold for the turn it starts, and an agent file's model and tools for its
 * child: through the chat route, against the stand-in model server, which records what each request carried.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { handleChat } from '../../lib/server/chat';
import { closeDb, openDb } from '../../lib/store/db';
import { createSession } from '../../lib/store/sessions';
import type { ServerConfig } from '../../lib/server/http';
import { startFakeOpenAI, type FakeReply, type FakeRequest } from '../fake-openai';
import { messageText } from '../e2e/scenarios';
import { tempWorkspace } from '../helpers';
import { readChunks } from '../server/harness';

const LOOK = '---\ndescription: Look around\nallowed-tools: Read, Grep, Bash(git status:*)\nmodel: fake-small\n---\n[cmd:look] Look at $ARGUMENTS.\n';
const SCOUT = '---\nname: scout\ndescription: Reads one file\ntools: Read\nmodel: openai-compatible:fake-tiny\n---\nYou read files and report.\n';

const lastUserText = (r: FakeRequest) => messageText([...r.body.messages].reverse().find((m) => m.role === 'user')!);
const toolsOf = (r: FakeRequest) => (r.body.tools ?? []).map((t) => t.function.name).sort();
const results = (r: FakeRequest) => r.body.messages.filter((m) => m.role === 'tool').map(messageText);

function reply(req: FakeRequest): FakeReply {
  const user = lastUserText(req);
  const done = req.body.messages.filter((m) => m.role === 'tool').length;
  if (user.includes('[cmd:look]')) {
    if (done === 0) return { toolCalls: [{ name: 'run_command', id: 'c1', args: { command: 'ls -la' } }, { name: 'write_file', id: 'c2', args: { path: 'x.txt', content: 'no' } }] };
    return { text: 'Looked.' };
  }
  if (user.includes('[agent:scout]')) return done === 0 ? { toolCalls: [{ name: 'agent', id: 'a1', args: { type: 'scout', description: 'read the readme', prompt: '[child] read README.md' } }] } : { text: 'Scouted.' };
  if (user.includes('[child]')) return { text: 'README says hello.' };
  return { text: 'ok' };
}

let ws: ReturnType<typeof tempWorkspace>;
let fake: Awaited<ReturnType<typeof startFakeOpenAI>>;
let cfg: ServerConfig;
const savedEnv = { ...process.env };
beforeAll(async () => {
  ws = tempWorkspace('clamp-file-limits-');
  ws.write('README.md', 'hello\n');
  ws.write('.claude/commands/look.md', LOOK);
  ws.write('.claude/agents/scout.md', SCOUT);
  fake = await startFakeOpenAI(reply);
  cfg = { workspace: ws.workspace, dataDir: ws.dataDir, mode: 'default' };
  Object.assign(process.env, { CLAMP_MODEL: 'openai-compatible:fake', CLAMP_BASE_URL: fake.url });
});
afterEach(() => {
  fake.requests.length = 0;
});
afterAll(async () => {
  process.env = { ...savedEnv };
  closeDb(ws.dataDir);
  await fake.close();
  ws.cleanup();
});

const send = async (body: Record<string, unknown>) => {
  const s = createSession(openDb(ws.dataDir), { workspace: ws.workspace }, 'default');
  const res = await handleChat(cfg, { sessionId: s.id, message: { id: `u-${Date.now()}`, ...body } as never }, new AbortController().signal);
  expect(res.status).toBe(200);
  return readChunks(res);
};

describe('limits from command and agent files', () => {
  it("a command's turn goes to its model with only its allowed tools; another tool is refused with the reason, and nothing ran", async () => {
    await send({ text: '[cmd:look] Look at src.', command: { name: 'look', args: 'src' } });
    expect(fake.requests.length).toBe(2);
    for (const r of fake.requests) {
      expect(r.body.model).toBe('fake-small');
      expect(toolsOf(r)).toEqual(['grep', 'read_file', 'run_command']);
    }
    const [ran, wrote] = results(fake.requests[1]);
    expect(ran).toContain('the command /look allows only these tools: Read, Grep, Bash(git status:*)');
    expect(ran).toContain('for commands only `git status:*`');
    expect(wrote).toContain('write_file was refused: the command /look allows only these tools');
    expect(fs.existsSync(path.join(ws.workspace, 'x.txt'))).toBe(false);
  });

  it('the next message, not sent as the command, has every tool and the session’s model again', async () => {
    await send({ text: 'plain message' });
    expect(fake.requests[0].body.model).toBe('fake');
    expect(toolsOf(fake.requests[0])).toContain('write_file');
  });

  it('a command no file defines is refused before anything is stored', async () => {
    await expect(send({ text: 'x', command: { name: 'nope', args: '' } })).rejects.toThrow(/There is no command \/nope/);
    expect(fake.requests.length).toBe(0);
  });

  it("an agent file's child asks its own model, with only its tools", async () => {
    await send({ text: '[agent:scout] go' });
    const child = fake.requests.find((r) => lastUserText(r).includes('[child]'))!;
    expect(child.body.model).toBe('fake-tiny');
    expect(toolsOf(child)).toEqual(['read_file']);
    const parent = fake.requests.filter((r) => r !== child);
    expect(parent.every((r) => r.body.model === 'fake')).toBe(true);
    expect(results(parent.at(-1)!).join('\n')).toContain('README says hello.');
  });
});
