import { expect } from 'vitest';
import type { FakeRequest, startFakeOpenAI } from '../fake-openai';
import { messageText } from '../e2e/scenarios';
import { readChunks, type RunningClamp } from './harness';

/** The text of the newest tool result a model request carried. */
export function lastToolText(req: FakeRequest): string {
  const tools = req.body.messages.filter((m) => m.role === 'tool');
  return messageText(tools[tools.length - 1]);
}

/** One turn in a new session through the chat route, read to its end; what the model read of its last tool call. */
export async function turnInNewSession(clamp: RunningClamp, fake: Awaited<ReturnType<typeof startFakeOpenAI>>, text: string): Promise<string> {
  const { session } = (await (await clamp.api('/api/sessions', { json: {} })).json()) as { session: { id: string } };
  const chat = await clamp.api('/api/chat', { json: { sessionId: session.id, message: { id: `m-${Date.now()}`, text } } });
  expect(chat.status).toBe(200);
  await readChunks(chat);
  return lastToolText(fake.requests.at(-1)!);
}
