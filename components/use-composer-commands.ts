'use client';

import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { expandCommand } from '@/lib/contract/command-text';
import type { PermissionMode, SessionSummary } from '@/lib/contract/protocol';
import type { SessionAnswer } from '@/lib/contract/rest';
import { PERMISSION_MODES } from '@/lib/contract/types';
import { fetchJson, queryKeys, usePatchSession } from './api';
import type { SlashCommand } from './composer-commands';
import { fetchLedger } from './composer-api';

/** What a command shows above the composer: a title and lines (help, cost, an error with the next step). */
export interface InfoPanel {
  title: string;
  lines: string[];
  tone?: 'info' | 'error';
}

/** The commands' effects that belong to the chat: compact, rewind, send a skill request or a command's text. */
export interface CommandHost {
  session: SessionSummary;
  /** every command offered now (allCommands) */
  commands: SlashCommand[];
  /** command and agent files not offered, with why (/help lists them) */
  skipped?: readonly { path: string; reason: string }[];
  onCompact: (focus: string) => void;
  onRewind?: () => void;
  sendSkill: (name: string, args: string) => void;
  /** send a message of this text (a command from a file, expanded, with its name and arguments; an MCP prompt's text) */
  sendText: (text: string, command?: { name: string; args: string }) => void;
  show: (panel: InfoPanel | null) => void;
}

/** The session the page shows lives in the URL (?s=…), as the page's own selection does. */
function openSession(id: string) {
  const url = new URL(window.location.href);
  url.searchParams.set('s', id);
  window.history.replaceState(null, '', url);
}

const tokens = (n: number) => n.toLocaleString('en-US');

/** What a command's handler is given: the host, what was typed after the name, and the page's tools. */
interface CommandRun {
  h: CommandHost;
  name: string;
  args: string;
  commands: SlashCommand[];
  fail: (message: string) => void;
  patch: ReturnType<typeof usePatchSession>;
  qc: QueryClient;
}

/** /new: a new session; /clear: a new one with this session's mode and model. The page opens it. */
async function newSession({ h, name, patch, qc }: CommandRun) {
  const body = name === 'clear' ? { mode: h.session.mode } : {};
  const { session } = await fetchJson<SessionAnswer>('/api/sessions', { method: 'POST', body: JSON.stringify(body) });
  if (name === 'clear' && h.session.model) await patch.mutateAsync({ id: session.id, model: h.session.model });
  await qc.invalidateQueries({ queryKey: queryKeys.sessions });
  openSession(session.id);
}

/** /model: open the header's picker, or switch to provider:model (the provider of the current model when only a model is named). */
async function switchModel({ h, args, fail, patch }: CommandRun) {
  if (!args) {
    const picker = document.getElementById('model-picker') as HTMLSelectElement | null;
    picker?.focus();
    picker?.showPicker?.();
    h.show({ title: '/model', lines: ["Pick this session's model in the header, or type /model provider:model (GET /api/models lists them). It answers from the next step."] });
    return;
  }
  const provider = h.session.model?.split(':')[0];
  const spec = args.includes(':') ? args : provider ? `${provider}:${args}` : null;
  if (!spec) return fail('Name the provider too: /model provider:model (for example openai-compatible:qwen2.5-coder).');
  await patch.mutateAsync({ id: h.session.id, model: spec });
  h.show({ title: '/model', lines: [`This session now uses ${spec}, from the next step.`] });
}

async function switchMode({ h, args, fail, patch }: CommandRun) {
  if (!(PERMISSION_MODES as readonly string[]).includes(args)) return fail(`Give a mode: /mode ${PERMISSION_MODES.join(' | ')} (now ${h.session.mode}).`);
  await patch.mutateAsync({ id: h.session.id, mode: args as PermissionMode });
  h.show({ title: '/mode', lines: [`Mode: ${args}.`] });
}

/** /cost: the session's tokens (fresh, cache read, cache write, output), its cost when the catalogue knows prices, and its tool bytes. */
async function showCost({ h }: CommandRun) {
  const { totals: t } = await fetchLedger(h.session.id);
  const input = t.inputTokens.fresh + t.inputTokens.cacheRead + t.inputTokens.cacheWrite;
  h.show({
    title: '/cost: this session',
    lines: [
      `${t.steps} model step${t.steps === 1 ? '' : 's'}; input ${tokens(input)} tokens (${tokens(t.inputTokens.fresh)} fresh, ${tokens(t.inputTokens.cacheRead)} cache read, ${tokens(t.inputTokens.cacheWrite)} cache write); output ${tokens(t.outputTokens)} tokens.`,
      t.costUsd === null ? 'Cost: unknown (the catalogue has no prices for this model).' : `Cost: $${t.costUsd.toFixed(4)}.`,
      `Tool output: ${tokens(t.toolBytesProduced)} bytes produced, ${tokens(t.toolBytesShown)} shown to the model; ${t.compactions} compaction${t.compactions === 1 ? '' : 's'}, ${t.pruned} pruned result${t.pruned === 1 ? '' : 's'}.`,
    ],
  });
}

/** /help's note of the command and agent files not offered: each with why. */
function skippedLines(skipped: readonly { path: string; reason: string }[]): string[] {
  if (skipped.length === 0) return [];
  return [`${skipped.length} command or agent file${skipped.length === 1 ? ' is' : 's are'} not offered:`, ...skipped.map((s) => `${s.path}: ${s.reason}`)];
}

/** Each built-in command's effect, by name. */
const HANDLERS: Record<string, (c: CommandRun) => void | Promise<void>> = {
  compact: ({ h, args }) => h.onCompact(args),
  new: newSession,
  clear: newSession,
  model: switchModel,
  mode: switchMode,
  rewind: ({ h, fail }) => (h.onRewind ? h.onRewind() : fail('Rewind is not available in this build: checkpoints are not enabled.')),
  cost: showCost,
  help: ({ h, commands }) => h.show({ title: 'Commands', lines: [...commands.map((c) => `/${c.name}${c.args ? ` ${c.args}` : ''} — ${c.help}`), '@path attaches a file (@path#L10-40 some lines); paste or drop images and text files; // sends a leading slash.', ...skippedLines(h.skipped ?? [])] }),
};

/** Run a slash command; resolves false when the name is no command (the composer says so). */
export function useComposerCommands(h: CommandHost): (name: string, args: string) => Promise<boolean> {
  const qc = useQueryClient();
  const patch = usePatchSession();
  return useCallback(
    async (name: string, args: string) => {
      const commands = h.commands;
      const cmd = commands.find((c) => c.name === name);
      if (!cmd) return false;
      const fail = (message: string) => h.show({ title: `/${name}`, lines: [message], tone: 'error' });
      try {
        if (cmd.skill) h.sendSkill(name.replace(/^skill:/, ''), args);
        else if (cmd.file) h.sendText(expandCommand(cmd.file.body, args), { name: cmd.file.name, args });
        else if (cmd.prompt) h.sendText((await fetchJson<{ text: string }>('/api/prompts', { method: 'POST', body: JSON.stringify({ command: cmd.prompt.command, args }) })).text);
        else if (Object.hasOwn(HANDLERS, name)) await HANDLERS[name]({ h, name, args, commands, fail, patch, qc });
        return true;
      } catch (err) {
        fail((err as Error).message);
        return true;
      }
    },
    [h, patch, qc],
  );
}
