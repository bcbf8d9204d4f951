import type { AvailableCommand } from '@agentclientprotocol/sdk';
import { expandCommand } from '../../contract/command-text';
import type { ServerConfig } from '../http';
import { skillList } from '../saved';

/**
 * The slash commands an editor offers over the Agent Client Protocol: the workspace's and the data dir's skills
 * (`/<skill> [args]` asks the model to load that skill, as the page's composer does) and commands from files
 * (`.clamp/commands`, `.claude/commands` …: their text expanded with the arguments, as the page sends it).
 */

/** What the page's composer lists now (GET /api/skills): found afresh each time, so a new file shows without a restart. */
const found = (cfg: ServerConfig) => skillList(cfg);

/** The commands to advertise (`available_commands_update`); a skill wins over a file command of the same name, as on the page. */
export function availableCommands(cfg: ServerConfig): AvailableCommand[] {
  const { skills, commands } = found(cfg);
  const names = new Set(skills.map((s) => s.name));
  return [
    ...skills.map((s) => ({ name: s.name, description: s.description, input: { hint: 'what to do with the skill (optional)' } })),
    ...commands.filter((c) => !names.has(c.name)).map((c) => ({ name: c.name, description: c.description, input: { hint: c.argumentHint ?? 'arguments (optional)' } })),
  ];
}

/**
 * A prompt's text as the message the turn gets, as the composer sends it: `/<skill> args` carries the skill request,
 * `/<command> args` its expanded text and the command (its allowed-tools and model hold for the turn); any other
 * text as it is.
 */
export function commandMessage(cfg: ServerConfig, text: string): { text: string; skill?: { name: string; args: string }; command?: { name: string; args: string } } {
  const m = /^\/(\S+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!m) return { text };
  const [, name, rest] = m;
  const args = (rest ?? '').trim();
  const { skills, commands } = found(cfg);
  if (skills.some((s) => s.name === name)) return { text, skill: { name, args } };
  const file = commands.find((c) => c.name === name);
  return file ? { text: expandCommand(file.body, args), command: { name, args } } : { text };
}
