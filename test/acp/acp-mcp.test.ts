/**
 * The MCP servers an editor hands over in session/new (ACP's `mcpServers`): Clamp says it takes stdio, HTTP and
 * SSE servers; the session's turns can call their tools through dispatch; a program among them runs in the
 * sandbox (the editor may have read it from the project's own settings), so its process has bwrap above it.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as acp from '@agentclientprotocol/sdk';
import { turnPosition, type FakeRequest, type FakeReply } from '../fake-openai';
import { BIN } from '../mcp/hub-bed';
import { acpBed, startTestEditor } from './editor-client';

/** the server's process chains seen while its tool ran (each: the command lines from the process up) */
const chains: string[][] = [];

function reply(req: FakeRequest): FakeReply {
  const { results } = turnPosition(req);
  if (results === 0) {
    chains.push(...serverChains());
    return { toolCalls: [{ name: 'mcp__editor_everything__echo', args: { message: 'hello from the editor' } }] };
  }
  return { text: 'Echoed.' };
}

function cmdline(pid: string): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
  } catch {
    return '';
  }
}

function parent(pid: string): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1];
  } catch {
    return undefined;
  }
}

/** Whether a process was given the test's marker in its environment (the server definition's own env). */
function marked(pid: string): boolean {
  try {
    return fs.readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(`CLAMP_TEST_FOLDER=${bed.ws.workspace}`);
  } catch {
    return false;
  }
}

/** Every running everything server this test handed over, as its chain of command lines up to init. */
function serverChains(): string[][] {
  const pids = fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d) && /mcp-server-everything stdio/.test(cmdline(d)) && !/bwrap/.test(cmdline(d)) && marked(d));
  return pids.map((pid) => {
    const chain: string[] = [];
    for (let p: string | undefined = pid; p && p !== '0' && chain.length < 20; p = parent(p)) chain.push(cmdline(p));
    return chain;
  });
}

const bed = acpBed('clamp-acp-mcp-', reply);

describe("clamp acp and the editor's MCP servers", () => {
  it('a stdio server from session/new: its tool is called through dispatch, and it runs in the sandbox', { timeout: 120_000 }, async () => {
    const e = startTestEditor({ workspace: bed.ws.workspace, dataDir: bed.ws.dataDir, modelUrl: bed.fake.url, env: { CLAMP_MODE: 'auto' } });
    const { updates } = e;
    try {
      const init = await e.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
      expect(init.agentCapabilities?.mcpCapabilities).toEqual({ http: true, sse: true });
      const s = await e.agent.request(acp.methods.agent.session.new, {
        cwd: bed.ws.workspace,
        mcpServers: [
          { name: 'editor_everything', command: BIN('mcp-server-everything'), args: ['stdio'], env: [{ name: 'CLAMP_TEST_FOLDER', value: bed.ws.workspace }] },
          { name: 'bad name!', command: 'true', args: [], env: [] },
        ],
      });
      const done = await e.agent.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'echo something' }] });
      expect(done.stopReason, e.stderr()).toBe('end_turn');

      // the model was offered the tool, called it, and read its result
      const first = bed.fake.requests[0];
      const offered = (first.body.tools ?? []).map((t) => t.function.name);
      const system = JSON.stringify(first.body.messages[0]);
      expect(offered.includes('mcp__editor_everything__echo') || system.includes('mcp__editor_everything__echo')).toBe(true);
      const last = JSON.stringify(bed.fake.requests.at(-1)!.body.messages);
      expect(last).toContain('Echo: hello from the editor');
      const call = updates.map((u) => u.update).find((u) => u.sessionUpdate === 'tool_call') as acp.ToolCall | undefined;
      expect(call?.title).toContain('mcp__editor_everything__echo');

      // the server's process: inside bwrap, never started bare on the host
      expect(chains.length).toBeGreaterThan(0);
      for (const chain of chains) expect(chain.some((l) => l.includes('bwrap')), chain.join('\n')).toBe(true);
      // the server whose name cannot be a tool's name was refused, and said so
      expect(e.stderr()).toContain('The editor\'s MCP server "bad name!" is skipped');
    } finally {
      await e.close();
    }
  });
});
