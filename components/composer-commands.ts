/** The composer's slash commands: each with its one-line help, the commands from files and the skills as /<name>. */
import type { FileCommand, McpPromptCommand } from '@/lib/contract/command-text';

export interface SlashCommand {
  name: string;
  /** what follows the name, for the help line ("[focus]", "<mode>") */
  args?: string;
  help: string;
  /** a skill from the server (sent as a message that makes the model load it) */
  skill?: boolean;
  /** a command from a file (`.claude/commands/<name>.md` …): sent as its expanded text */
  file?: FileCommand;
  /** an MCP server's prompt: its text comes from POST /api/prompts */
  prompt?: McpPromptCommand;
}

export const BUILTIN_COMMANDS: readonly SlashCommand[] = [
  { name: 'compact', args: '[focus]', help: 'Summarise the older turns now; the focus says what the summary must keep.' },
  { name: 'new', help: 'Start a new session (default mode and model).' },
  { name: 'clear', help: 'Start afresh: a new empty session with this mode and model; this one stays in the sidebar.' },
  { name: 'model', args: '[provider:model]', help: "Switch this session's model (from the next step), or open the picker." },
  { name: 'mode', args: '<mode>', help: 'Switch the permission mode: default, accept-edits, plan, debug, auto.' },
  { name: 'rewind', help: 'Go back to an earlier message: files and conversation.' },
  { name: 'cost', help: "This session's tokens and cost so far (from the ledger)." },
  { name: 'help', help: 'List these commands.' },
];

/**
 * Every command the composer offers now: the built-ins, the commands from files, then each skill. A file's
 * command named like a built-in is reached as /cmd:<name>, a skill named like either as /skill:<name>.
 */
export function allCommands(skills: readonly { name: string; description: string }[], files: readonly FileCommand[] = [], prompts: readonly McpPromptCommand[] = []): SlashCommand[] {
  const builtin = new Set(BUILTIN_COMMANDS.map((c) => c.name));
  const fromFiles = files.map((f) => ({
    name: builtin.has(f.name) ? `cmd:${f.name}` : f.name,
    ...(f.argumentHint ? { args: f.argumentHint } : {}),
    help: `${f.description} (${f.source === 'workspace' ? 'workspace' : 'yours'}: ${f.path})`,
    file: f,
  }));
  const taken = new Set([...builtin, ...fromFiles.map((c) => c.name)]);
  return [
    ...BUILTIN_COMMANDS,
    ...fromFiles,
    ...skills.map((s) => ({ name: taken.has(s.name) ? `skill:${s.name}` : s.name, args: '[arguments]', help: s.description || 'a skill', skill: true })),
    ...prompts.map((p) => ({ name: p.command, args: p.arguments.map((a) => (a.required ? `<${a.name}>` : `[${a.name}]`)).join(' '), help: `${p.description} (MCP prompt of ${p.server})`, prompt: p })),
  ];
}

/** A typed line as a command: `/name rest`; null when it is not one (plain text, or `//` to send a leading slash). */
export function parseCommand(text: string): { name: string; args: string } | null {
  const m = /^\/([\w:.-]+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!m) return null;
  return { name: m[1], args: (m[2] ?? '').trim() };
}

/** The commands matching what is typed after the slash (prefix first, then anywhere in the name), while no space is typed yet. */
export function matchCommands(text: string, commands: readonly SlashCommand[]): SlashCommand[] | null {
  const m = /^\/([\w:.-]*)$/.exec(text);
  if (!m) return null;
  const q = m[1].toLowerCase();
  const prefix = commands.filter((c) => c.name.toLowerCase().startsWith(q));
  const inside = commands.filter((c) => !c.name.toLowerCase().startsWith(q) && c.name.toLowerCase().includes(q));
  return [...prefix, ...inside];
}
