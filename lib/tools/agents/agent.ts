import { z } from 'zod';
import { defineTool, type ToolContext, type ToolOutput } from '../../contract/types';
import type { Budget } from '../../contract/budget';
import { SUBAGENT_TYPES, type SubagentOutcome, type SubagentRequest, type SubagentService, type SubagentType } from '../../contract/subagents';
import { byteLength, cutHead, fitWithNote, formatBytes, formatCount } from '../../contract/text';
import { spillOrWhy } from '../../contract/spill';
import { scanAgents } from './agent-files';

const schema = z.strictObject({
  // explore, general, or a type from a file that the system prompt lists (an unknown one is refused with the list)
  type: z.string().max(64),
  description: z.string().max(120),
  prompt: z.string(),
});

/** What the page's card reads: the child's session (its transcript), how it ended, what it spent. */
export interface AgentMeta {
  subagentSessionId: string;
  end: SubagentOutcome['end'];
  steps: number;
  tokens: number;
  toolCalls: number;
  reportBytes: number;
}

const END_TEXT: Record<SubagentOutcome['end'], string> = {
  done: 'finished',
  'step-cap': 'stopped at its step cap',
  'token-cap': 'stopped at its token budget',
  stopped: 'was stopped by the user',
  error: 'failed',
};

/** The report as the parent reads it: a header line, then the report fitted under the cap with a note naming the full text. */
export function renderReport(o: SubagentOutcome, type: string, description: string, budget: Budget, dataDir: string): { text: string; cut: boolean } {
  const head = `[subagent ${type} "${description}" ${END_TEXT[o.end]}: ${formatCount(o.steps)} step${o.steps === 1 ? '' : 's'}, ${formatCount(o.toolCalls)} tool call${o.toolCalls === 1 ? '' : 's'}, ${formatCount(o.tokens)} tokens; its transcript is session ${o.sessionId}]`;
  const body = o.report.trim() || '(The subagent wrote no report.)';
  const err = o.error ? `\nError: ${o.error}` : '';
  const whole = `${head}\n${body}${err}`;
  const cap = budget.SUBAGENT_REPORT_MAX_BYTES;
  if (byteLength(whole) <= cap) return { text: whole, cut: false };
  const spill = spillOrWhy(dataDir, body, `agent-report-${o.sessionId}`);
  const where = spill.path ? ` The full report: ${spill.path} (read it with read_file).` : ` ${spill.why}`;
  const total = byteLength(body);
  const fit = fitWithNote(
    cap,
    (room) => cutHead(body, Math.max(0, room)),
    (c) => `${head}\n${c.text}\n[Report cut at ${formatBytes(c.shownBytes)} of ${formatBytes(total)} (SUBAGENT_REPORT_MAX_BYTES).${where}]${err}`,
  );
  return { text: fit.text, cut: true };
}

/** The child a type names: Clamp's explore or general, or an agent type from a file (a general child cut to its tools). */
function typeOf(type: string, ctx: ToolContext): Pick<SubagentRequest, 'type' | 'agent'> | { error: string } {
  if ((SUBAGENT_TYPES as readonly string[]).includes(type)) return { type: type as SubagentType };
  const { agents } = scanAgents(ctx.workspace, ctx.dataDir, ctx.budget);
  const agent = agents.find((a) => a.name === type);
  if (agent) return { type: 'general', agent };
  return { error: `There is no agent type "${type}". Types: ${[...SUBAGENT_TYPES, ...agents.map((a) => a.name)].join(', ')}.` };
}

/**
 * agent: hands a self-contained job to a child loop with its own context (a subagent). The loop does
 * the work through ctx.services.subagents; the parent receives only the child's final report.
 */
export const agentTool = defineTool({
  name: 'agent',
  // the call itself touches nothing: every call the child makes goes through dispatch under the parent's mode, rules and approvals
  effect: 'read',
  // a child gets no child of its own
  traits: { deferRank: 10, subagents: [], hookAs: { name: 'Task', fields: { subagent_type: 'type' } } },
  schema,
  nonEmpty: ['description', 'prompt'],
  describe: (b) =>
    `Hand a self-contained task to a subagent with a fresh context; you get only its final report (≤ ${formatBytes(b.SUBAGENT_REPORT_MAX_BYTES)}), none of its tool output. ` +
    `"explore": read-only tools, for searches and investigations across many files; several in one step run in parallel. "general": your tools and approvals, for a multi-step job. ` +
    `It cannot see this conversation: the prompt must say everything, and what to report. Not for one known file or one grep: call those tools yourself. At most ${b.SUBAGENT_MAX_STEPS} steps.`,
  summary: (i, r) => {
    const m = r?.meta as Partial<AgentMeta> | undefined;
    const spent = m?.steps !== undefined ? ` · ${m.steps} steps, ${m.toolCalls ?? 0} calls, ${formatCount(m.tokens ?? 0)} tokens` : '';
    return `${i.type}: ${i.description}${spent}`;
  },
  async run(input, ctx: ToolContext): Promise<ToolOutput<AgentMeta>> {
    const kind = typeOf(input.type, ctx);
    if ('error' in kind) return { status: 'error', output: kind.error };
    const service = ctx.services.subagents as SubagentService | undefined;
    if (!service) {
      return { status: 'error', output: 'Subagents are not available here (no agent loop serves them in this run). Do the task yourself with the other tools.' };
    }
    if (byteLength(input.prompt) > ctx.budget.SUBAGENT_PROMPT_MAX_BYTES) {
      return {
        status: 'error',
        output: `The prompt is ${formatBytes(byteLength(input.prompt))}, over the ${formatBytes(ctx.budget.SUBAGENT_PROMPT_MAX_BYTES)} a subagent's task may be. Shorten it: name the files and the question instead of pasting their content.`,
      };
    }
    const o = await service.run({ ...kind, description: input.description.trim(), prompt: input.prompt }, ctx.callId ?? 'agent', ctx.signal);
    const r = renderReport(o, input.type, input.description.trim(), ctx.budget, ctx.dataDir);
    return {
      status: o.end === 'error' || o.end === 'stopped' ? 'error' : 'ok',
      output: r.text,
      meta: { subagentSessionId: o.sessionId, end: o.end, steps: o.steps, tokens: o.tokens, toolCalls: o.toolCalls, reportBytes: byteLength(o.report) },
    };
  },
});
