/**
 * ask_user in an editor's session: a question with choices reaches the editor as session/request_permission (one
 * option per choice, and declining) and the option picked is the answer the model reads; an open question is not
 * put to the editor, and the model reads how to ask instead.
 */
import { describe, expect, it } from 'vitest';
import * as acp from '@agentclientprotocol/sdk';
import { turnPosition, type FakeRequest, type FakeReply } from '../fake-openai';
import { acpBed, startTestEditor } from './editor-client';


function reply(req: FakeRequest): FakeReply {
  const { text, results } = turnPosition(req);
  if (results > 0) return { text: 'Thanks.' };
  if (text.includes('pick a colour')) return { toolCalls: [{ name: 'ask_user', args: { question: 'Which colour should the button be?', choices: ['red', 'green', 'blue'] } }] };
  return { toolCalls: [{ name: 'ask_user', args: { question: 'What should the button say?' } }] };
}

/** The tool result the model read last (the ask_user call's). */
const lastResult = (): string => {
  const msgs = bed.fake.requests.at(-1)!.body.messages;
  const tool = [...msgs].reverse().find((m) => m.role === 'tool');
  return typeof tool?.content === 'string' ? tool.content : JSON.stringify(tool?.content);
};

const bed = acpBed('clamp-acp-ask-', reply);

describe('ask_user through the editor', () => {
  it('choices become the options of a permission request; the one picked is the answer; an open question says how to ask', { timeout: 120_000 }, async () => {
    const e = startTestEditor({ workspace: bed.ws.workspace, dataDir: bed.ws.dataDir, modelUrl: bed.fake.url, choose: (req) => req.options.find((o) => o.name === 'green')?.optionId });
    try {
      await e.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
      const s = await e.agent.request(acp.methods.agent.session.new, { cwd: bed.ws.workspace, mcpServers: [] });

      const done = await e.agent.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'please pick a colour' }] });
      expect(done.stopReason, e.stderr()).toBe('end_turn');
      expect(e.permissions).toHaveLength(1);
      const asked = e.permissions[0];
      expect(asked.toolCall.title).toBe('Which colour should the button be?');
      expect(asked.options.map((o) => [o.name, o.kind])).toEqual([['red', 'allow_once'], ['green', 'allow_once'], ['blue', 'allow_once'], ['Decline to answer', 'reject_once']]);
      expect(lastResult()).toContain('The user answered: green');

      const open = await e.agent.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'ask me something open' }] });
      expect(open.stopReason, e.stderr()).toBe('end_turn');
      expect(e.permissions).toHaveLength(1);
      expect(lastResult()).toContain('cannot type an answer during the turn; ask again with choices, or end the turn with the question in your reply');
    } finally {
      await e.close();
    }
  });
});
