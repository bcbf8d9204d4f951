/**
 * Commands from files (`.clamp/commands/*.md`, `.claude/commands/*.md`, the person's folder): what the
 * page lists and sends. The text is expanded the way Claude Code expands it, so a file written for it
 * works unchanged: `$ARGUMENTS` is everything typed after the name, `$1` … `$9` the words of it (a
 * quoted phrase is one word); a body that names no argument gets the arguments appended on their own line.
 */

/** A command found in a file, as GET /api/skills lists it. */
export interface FileCommand {
  /** what follows the slash: the file's name without `.md`, a sub-folder's name before a colon (`frontend:test`) */
  name: string;
  /** the front matter's description, else the body's first line */
  description: string;
  /** the front matter's `argument-hint` ("[file] [focus]") */
  argumentHint?: string;
  /** the front matter's `allowed-tools` and `model`, as written */
  allowedTools?: string[];
  model?: string;
  /** where it was found: the workspace's folders, or the person's own (the data dir's, `~/.claude/commands`) */
  source: 'workspace' | 'person';
  /** the file, for the help line */
  path: string;
  /** the text after the front matter, unexpanded */
  body: string;
}

/** A user message sent as a command from a file (data-file-command): which, with what, and the limits its front matter set for the turn. */
export interface FileCommandUse {
  name: string;
  args: string;
  /** set by the server from the file: the turn may use only these tools */
  allowedTools?: string[];
  /** set by the server from the file: the turn's model */
  model?: string;
}

/** The data part a command's user message carries (part of ClampDataParts, lib/contract/protocol.ts): its allowed-tools and model hold for the turn it starts. */
export type CommandDataParts = { 'file-command': FileCommandUse };

/** The words of an argument line: split on white space, a "double" or 'single' quoted phrase one word. */
export function commandWords(args: string): string[] {
  const out: string[] = [];
  const re = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (let m = re.exec(args); m; m = re.exec(args)) out.push(m[1] ?? m[2] ?? m[3]);
  return out;
}

/** The text a command sends: its body with `$ARGUMENTS` and `$1`…`$9` replaced (with a function, so `$&` in an argument stays as typed). */
export function expandCommand(body: string, args: string): string {
  const words = commandWords(args);
  const trimmed = args.trim();
  const names = /\$ARGUMENTS|\$[1-9]/.test(body);
  const text = body.replace(/\$ARGUMENTS|\$([1-9])/g, (_m, n: string | undefined) => (n ? (words[Number(n) - 1] ?? '') : trimmed)).trim();
  return !names && trimmed ? `${text}\n\nARGUMENTS: ${trimmed}` : text;
}

/** A prompt of an MCP server, offered in the composer as `/mcp__<server>__<prompt> [arguments]` (GET /api/prompts). */
export interface McpPromptCommand {
  /** what follows the slash */
  command: string;
  server: string;
  prompt: string;
  description: string;
  arguments: { name: string; description?: string; required?: boolean }[];
}

/** POST /api/prompts (its schema in request-bodies.ts, which the page does not load). */
export type { PromptBody } from './request-bodies';
