/**
 * Replies of the fake OpenAI-compatible model for the e2e suite. One server serves every test of a
 * file, each test in its own session: the user message carries a tag ("[e2e:deny] …") that picks the
 * test's script, and the number of assistant messages after it is the step of the script to play.
 */
import type { FakeReply, FakeRequest } from '../fake-openai';

export type Scripts = Record<string, FakeReply[]>;

type Message = FakeRequest['body']['messages'][number];

/** The text of a chat message (a string, or an array of text parts). */
export function messageText(m: Message | undefined): string {
  if (!m) return '';
  if (typeof m.content === 'string') return m.content;
  if (Array.isArray(m.content)) return m.content.map((p: { text?: unknown }) => (typeof p.text === 'string' ? p.text : '')).join('');
  return '';
}

function lastUserIndex(messages: Message[]): number {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i].role === 'user') return i;
  return -1;
}

/** The tag of a request: from its last user message. */
export function tagOf(req: FakeRequest): string | undefined {
  return /\[e2e:([\w-]+)\]/.exec(messageText(req.body.messages[lastUserIndex(req.body.messages)]))?.[1];
}

/** A reply function for startFakeOpenAI that plays each tag's script, one reply per step. */
export function scriptedReplies(scripts: Scripts): (req: FakeRequest) => FakeReply {
  return (req) => {
    const msgs = req.body.messages;
    const tag = tagOf(req);
    const script = tag ? scripts[tag] : undefined;
    if (!script) return { text: `The fake model has no script for ${tag ?? 'an untagged message'}.` };
    const step = msgs.slice(lastUserIndex(msgs) + 1).filter((m) => m.role === 'assistant').length;
    return script[step] ?? { text: 'Nothing more to do.' };
  };
}

/** The tool messages (results the model read) of a request. */
export function toolResults(req: FakeRequest): string[] {
  return req.body.messages.filter((m) => m.role === 'tool').map(messageText);
}
