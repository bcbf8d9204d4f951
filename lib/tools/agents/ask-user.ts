import { z } from 'zod';
import { defineTool, type ToolOutput } from '../../contract/types';
import type { AskService } from '../../contract/subagents';
import { byteLength, cutHead, fitWithNote, formatBytes } from '../../contract/text';

const schema = z.strictObject({
  question: z.string(),
  choices: z.array(z.string()).optional(),
});

export interface AskUserMeta {
  /** what the person answered (absent when nobody answered) */
  answer?: string;
  answered: boolean;
}

/** The text the model reads where no one can answer (a headless run, the tool CLI). */
export const NOBODY_TO_ASK =
  'Nobody is there to answer questions in this run (it is not attached to a person). Decide yourself: pick the most reasonable option, say in your answer which assumption you made, and continue.';

/**
 * ask_user: the model asks the person a question, optionally with choices, and waits for the answer
 * in the approval bar. A 'read' tool: it changes nothing, so plan mode can ask too.
 */
export const askUserTool = defineTool({
  name: 'ask_user',
  effect: 'read',
  // no child asks: its report goes to the parent, who asks
  traits: { subagents: [] },
  schema,
  nonEmpty: ['question'],
  describe: (b) =>
    `Ask the user a question and wait for the answer, when the decision is theirs (an ambiguity, a choice of approach, missing information). ` +
    `Offer up to ${b.ASK_CHOICES_MAX_COUNT} short choices when it fits; they may type another answer. Do not ask what tools can find out.`,
  // listed only where a person follows the turn (a headless run has no one to ask; called anyway, it says so)
  available: (ctx) => typeof ctx.services.ask === 'function',
  summary: (i, r) => {
    const m = r?.meta as Partial<AskUserMeta> | undefined;
    return m?.answer !== undefined ? `${i.question} → ${m.answer}` : i.question;
  },
  async run(input, ctx): Promise<ToolOutput<AskUserMeta>> {
    const b = ctx.budget;
    if (byteLength(input.question) > b.ASK_QUESTION_MAX_BYTES) {
      return { status: 'error', output: `The question is ${formatBytes(byteLength(input.question))}, over ${formatBytes(b.ASK_QUESTION_MAX_BYTES)}. Ask it in fewer words.` };
    }
    const choices = (input.choices ?? []).map((c) => c.trim()).filter(Boolean);
    if (choices.length > b.ASK_CHOICES_MAX_COUNT) {
      return { status: 'error', output: `${choices.length} choices is more than ${b.ASK_CHOICES_MAX_COUNT}. Offer the few that matter; the user can type any other answer.` };
    }
    const long = choices.find((c) => byteLength(c) > b.ASK_CHOICE_MAX_BYTES);
    if (long !== undefined) return { status: 'error', output: `A choice is over ${formatBytes(b.ASK_CHOICE_MAX_BYTES)}; keep each choice to a few words and put detail in the question.` };
    const ask = ctx.services.ask as AskService | undefined;
    if (!ask) return { output: NOBODY_TO_ASK, meta: { answered: false } };
    const a = await ask({ question: input.question, ...(choices.length ? { choices } : {}) }, ctx.callId ?? 'ask_user', ctx.signal);
    if (a.kind === 'stopped') return { status: 'error', output: 'The turn was stopped while the question waited for an answer; the user did not answer it.', meta: { answered: false } };
    if (a.kind === 'declined') {
      const why = a.reason?.trim() ? `: ${a.reason.trim()}` : '';
      return { output: `The user declined to answer${why}. Do not ask again; decide yourself and say what you assumed.`, meta: { answered: false } };
    }
    const total = byteLength(a.text);
    const fit = fitWithNote(
      b.ASK_ANSWER_MAX_BYTES,
      (room) => cutHead(a.text, room),
      (c) => `The user answered: ${c.text}${c.shownBytes < total ? `\n[answer cut at ${formatBytes(c.shownBytes)} of ${formatBytes(total)}]` : ''}`,
    );
    return { output: fit.text, meta: { answer: a.text, answered: true } };
  },
});
