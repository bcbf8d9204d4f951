import fs from 'node:fs';
import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3StreamPart, LanguageModelV3Content } from '@ai-sdk/provider';
import { z } from 'zod';

/**
 * The `scripted` provider: replays a fixed list of model turns from a JSON file.
 * It exists for tests and for a demo with no model at hand; the page labels it as such.
 * Turn k answers the k-th model call of a session (counted from the assistant messages in the prompt),
 * so a conversation resumes at the right turn after an approval or a restart.
 */
const turnSchema = z.object({
  text: z.string().optional(),
  toolCalls: z
    .array(z.object({ name: z.string(), args: z.unknown().optional(), id: z.string().optional() }))
    .optional(),
  /** simulated delay before the turn streams, in milliseconds */
  delayMs: z.number().int().nonnegative().optional(),
  usage: z.object({ inputTokens: z.number(), outputTokens: z.number() }).optional(),
  /** make this turn fail like a provider error */
  error: z.string().optional(),
});
export const scriptSchema = z.union([
  z.array(turnSchema),
  z.object({
    turns: z.array(turnSchema),
    contextWindow: z.number().optional(),
    /** subagents' turns: a child whose task contains the key plays that list (counted in its own conversation) */
    subagents: z.record(z.string(), z.array(turnSchema)).optional(),
  }),
]);
export type ScriptTurn = z.infer<typeof turnSchema>;
/** A script's turns, with its subagents' turns by key when it has any. */
export type Script = ScriptTurn[] & { subagents?: Record<string, ScriptTurn[]> };

/** The system prompt of a subagent starts its role with this (lib/agent/subagents/child-setup.ts). */
const SUBAGENT_MARK = 'You are a subagent of Clamp';

/**
 * Load and validate a script file; throws an Error whose text says what is wrong with the file and what
 * to fix (a missing file is a missing file, not a JSON error). The text names no environment variable:
 * the path may come from CLAMP_MODEL or from the settings page.
 */
export function loadScript(file: string): Script {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new Error(`The script file ${file} does not exist. Give the path of a JSON script of model turns (docs/scripted-model.md).`);
    if (code === 'EISDIR') throw new Error(`${file} is a folder, not a script file. Give the path of a JSON script of model turns (docs/scripted-model.md).`);
    throw new Error(`The script file ${file} cannot be read (${(err as Error).message}).`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new Error(`The script file ${file} is not valid JSON (${(err as Error).message}). A script is a JSON list of turns (docs/scripted-model.md).`);
  }
  const parsed = scriptSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? ` at ${issue.path.join('.')}` : '';
    throw new Error(`The script file ${file} is not a list of turns${where}: ${issue?.message}. Each turn is {"text"?, "toolCalls"?: [{"name","args"}]} (docs/scripted-model.md).`);
  }
  if (Array.isArray(parsed.data)) return parsed.data;
  return Object.assign(parsed.data.turns, parsed.data.subagents ? { subagents: parsed.data.subagents } : {});
}

function textOf(content: unknown): string {
  return typeof content === 'string' ? content : JSON.stringify(content);
}

/** The turns a request plays: a subagent's (by the key its task contains) or the session's. */
function turnsFor(script: Script, options: LanguageModelV3CallOptions): ScriptTurn[] | string {
  const system = options.prompt.filter((m) => m.role === 'system').map((m) => textOf(m.content)).join('\n');
  if (!system.includes(SUBAGENT_MARK)) return script;
  const task = textOf(options.prompt.find((m) => m.role === 'user')?.content ?? '');
  const key = Object.keys(script.subagents ?? {}).find((k) => task.includes(k));
  return key ? script.subagents![key] : 'The scripted model has no turns for this subagent: add a list under "subagents" whose key its task contains.';
}

function estimateTokens(options: LanguageModelV3CallOptions): number {
  return Math.ceil(JSON.stringify(options.prompt).length / 4);
}

/** The turn a call plays (its index counts the assistant messages so far), or a turn saying there is none. */
function pickTurn(script: Script, options: LanguageModelV3CallOptions): { turn: ScriptTurn; index: number } {
  const index = options.prompt.filter((m) => m.role === 'assistant').length;
  const turns = turnsFor(script, options);
  if (typeof turns === 'string') return { turn: { text: turns }, index };
  const turn = turns[index] ?? { text: `(The scripted model has no turn ${index + 1}; its script has ${turns.length}.)` };
  return { turn, index };
}

/** The turn's usage as the script gives it, else estimated from the prompt's and the turn's length. */
function usageOf(turn: ScriptTurn, options: LanguageModelV3CallOptions) {
  const input = turn.usage?.inputTokens ?? estimateTokens(options);
  const output = turn.usage?.outputTokens ?? Math.ceil(((turn.text?.length ?? 0) + JSON.stringify(turn.toolCalls ?? []).length) / 4);
  return {
    inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: output, text: output, reasoning: 0 },
  };
}

const callId = (index: number, j: number, c: { id?: string }) => c.id ?? `call_${index}_${j}`;
const finishReason = (turn: ScriptTurn) => ({ unified: turn.toolCalls?.length ? ('tool-calls' as const) : ('stop' as const), raw: undefined });

/** The turn's delay, cut short (rejecting) by the call's abort. */
function wait(ms: number | undefined, signal?: AbortSignal): Promise<void> {
  if (!ms) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(t);
      reject(signal.reason ?? new Error('aborted'));
    });
  });
}

/** The turn as the parts a streaming model sends: its text in pieces, each tool call's input, the finish. */
function streamParts(turn: ScriptTurn, index: number, options: LanguageModelV3CallOptions): LanguageModelV3StreamPart[] {
  const parts: LanguageModelV3StreamPart[] = [{ type: 'stream-start', warnings: [] }];
  if (turn.text) {
    parts.push({ type: 'text-start', id: 't' });
    // stream the text in a few pieces, as a real model would
    for (let i = 0; i < turn.text.length; i += 40) parts.push({ type: 'text-delta', id: 't', delta: turn.text.slice(i, i + 40) });
    parts.push({ type: 'text-end', id: 't' });
  }
  turn.toolCalls?.forEach((c, j) => {
    const id = callId(index, j, c);
    const input = JSON.stringify(c.args ?? {});
    parts.push({ type: 'tool-input-start', id, toolName: c.name });
    parts.push({ type: 'tool-input-delta', id, delta: input });
    parts.push({ type: 'tool-input-end', id });
    parts.push({ type: 'tool-call', toolCallId: id, toolName: c.name, input });
  });
  parts.push({ type: 'finish', usage: usageOf(turn, options), finishReason: finishReason(turn) });
  return parts;
}

/** Build a LanguageModelV3 that replays the given turns. */
export function createScriptedModel(script: Script, modelId = 'script'): LanguageModelV3 {
  return {
    specificationVersion: 'v3',
    provider: 'scripted',
    modelId,
    supportedUrls: {},
    async doGenerate(options) {
      const { turn, index } = pickTurn(script, options);
      await wait(turn.delayMs, options.abortSignal);
      if (turn.error) throw new Error(turn.error);
      const content: LanguageModelV3Content[] = [];
      if (turn.text) content.push({ type: 'text', text: turn.text });
      turn.toolCalls?.forEach((c, j) =>
        content.push({ type: 'tool-call', toolCallId: callId(index, j, c), toolName: c.name, input: JSON.stringify(c.args ?? {}) }),
      );
      return { content, finishReason: finishReason(turn), usage: usageOf(turn, options), warnings: [] };
    },
    async doStream(options) {
      const { turn, index } = pickTurn(script, options);
      await wait(turn.delayMs, options.abortSignal);
      if (turn.error) throw new Error(turn.error);
      const parts = streamParts(turn, index, options);
      const stream = new ReadableStream<LanguageModelV3StreamPart>({
        start(controller) {
          for (const p of parts) controller.enqueue(p);
          controller.close();
        },
      });
      return { stream };
    },
  };
}
