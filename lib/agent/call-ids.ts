import crypto from 'node:crypto';
import type { LanguageModelV3Content, LanguageModelV3Middleware, LanguageModelV3Prompt, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { tapStream } from '../contract/stream-tap';

/**
 * Tool-call ids Clamp can key by. Approvals, the write-ahead journal, summaries, subagent links and the
 * page's rows are keyed by a call's id, but a model server may reuse ids: some number the calls of every
 * answer afresh (`call_0`, `call_1` …), a script replays fixed ones after a rewind. At the model's edge a
 * call whose id is already taken in the session (or not url-safe, so the page could not answer it) gets
 * a Clamp-made id that carries the provider's; requests carry the provider's id back, so the model reads
 * the ids it wrote.
 */

/** What the approvals route takes as a tool call id (lib/server/http.ts routeId). */
const URL_SAFE = /^[A-Za-z0-9_-]{1,64}$/;
/** `<provider id>-clamp<8>` or, for an id that is not url-safe, `<base64url of it>-clampb<8>`. */
const MADE = /^(.+)-clamp(b?)([0-9a-z]{8})$/;

function nonce(): string {
  return crypto.randomBytes(8).toString('hex').slice(0, 8);
}

/** The provider's own id of a call: a Clamp-made id decoded, any other id unchanged. */
export function providerCallId(id: string): string {
  const m = MADE.exec(id);
  if (!m) return id;
  return m[2] ? Buffer.from(m[1]!, 'base64url').toString('utf8') : m[1]!;
}

/** A Clamp-made id for a call whose provider id is `providerId` (always new). */
export function madeCallId(providerId: string): string {
  return URL_SAFE.test(providerId) ? `${providerId}-clamp${nonce()}` : `${Buffer.from(providerId, 'utf8').toString('base64url')}-clampb${nonce()}`;
}

/**
 * The ids of one loop (a turn, a subagent's run): each call the model makes gets an id no other call of
 * the session has. `taken` answers for what is stored (approvals, the journal); the conversation's ids
 * are passed to `seen`, and every id given out is remembered.
 */
export class CallIds {
  private readonly used = new Set<string>();
  constructor(private readonly taken: (id: string) => boolean = () => false) {}

  /** Ids already in the conversation. */
  seen(ids: Iterable<string>): void {
    for (const id of ids) this.used.add(id);
  }

  /** The id Clamp uses for a new call the provider named `providerId`. */
  assign(providerId: string): string {
    let id = providerId;
    // an id that reads as a Clamp-made one would lose its end on the way back to the model
    if (!URL_SAFE.test(id) || MADE.test(id) || this.used.has(id) || this.takenSafely(id)) {
      do id = madeCallId(providerId);
      while (this.used.has(id));
    }
    this.used.add(id);
    return id;
  }

  private takenSafely(id: string): boolean {
    try {
      return this.taken(id);
    } catch {
      // the store cannot say: a Clamp-made id is never wrong
      return true;
    }
  }
}

/** The tool-call ids of a stored conversation (its tool parts). */
export function conversationCallIds(messages: ReadonlyArray<{ parts: ReadonlyArray<unknown> }>): string[] {
  const ids: string[] = [];
  for (const m of messages) {
    for (const p of m.parts as Array<{ toolCallId?: unknown }>) if (typeof p.toolCallId === 'string') ids.push(p.toolCallId);
  }
  return ids;
}

/** The prompt with every tool call and result under the provider's own id. */
function providerPrompt(prompt: LanguageModelV3Prompt): LanguageModelV3Prompt {
  return prompt.map((m) => {
    if (m.role !== 'assistant' && m.role !== 'tool') return m;
    const content = m.content.map((p) => ('toolCallId' in p && typeof p.toolCallId === 'string' ? { ...p, toolCallId: providerCallId(p.toolCallId) } : p));
    return { ...m, content } as typeof m;
  });
}

/** Clamp's ids in one answer of the model: a call's input deltas and the call itself share the id given at its start. */
function answerIds(ids: CallIds) {
  const open = new Map<string, string>();
  const last = new Map<string, string>();
  const start = (pid: string) => {
    const id = ids.assign(pid);
    open.set(pid, id);
    last.set(pid, id);
    return id;
  };
  return {
    start,
    during: (pid: string) => open.get(pid) ?? start(pid),
    call: (pid: string) => {
      const id = open.get(pid) ?? start(pid);
      open.delete(pid);
      return id;
    },
    /** a result or approval request of a call already made (provider-executed tools) */
    of: (pid: string) => last.get(pid) ?? pid,
  };
}

function mapPart<P extends LanguageModelV3StreamPart | LanguageModelV3Content>(p: P, a: ReturnType<typeof answerIds>): P {
  switch (p.type) {
    case 'tool-input-start':
      return { ...p, id: a.start(p.id) };
    case 'tool-input-delta':
    case 'tool-input-end':
      return { ...p, id: a.during(p.id) };
    case 'tool-call':
      return { ...p, toolCallId: a.call(p.toolCallId) };
    case 'tool-result':
    case 'tool-approval-request':
      return { ...p, toolCallId: a.of(p.toolCallId) };
    default:
      return p;
  }
}

/** The middleware that gives the loop's calls their ids (see CallIds) and the model back its own. */
export function callIdMiddleware(ids: CallIds): LanguageModelV3Middleware {
  return {
    specificationVersion: 'v3',
    transformParams: async ({ params }) => ({ ...params, prompt: providerPrompt(params.prompt) }),
    wrapGenerate: async ({ doGenerate }) => {
      const r = await doGenerate();
      const a = answerIds(ids);
      return { ...r, content: r.content.map((p) => mapPart(p, a)) };
    },
    wrapStream: async ({ doStream }) => {
      const { stream, ...rest } = await doStream();
      const a = answerIds(ids);
      return { ...rest, stream: tapStream(stream, (p: LanguageModelV3StreamPart) => mapPart(p, a)) };
    },
  };
}
