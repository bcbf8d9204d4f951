import type { McpPromptCommand } from '../contract/command-text';
import { commandWords } from '../contract/command-text';
import { clipLine } from '../contract/text';
import { mcpToolName } from './config';
import type { McpHub } from './hub';

/**
 * MCP servers' prompts as the composer's commands: listed from every configured server that offers
 * prompts (starting it when it has not run yet), and one prompt's messages fetched as the text a message sends.
 */

/** Every prompt of every runnable server that offers prompts; a server that fails is left out. */
export async function listPrompts(hub: McpHub): Promise<McpPromptCommand[]> {
  await hub.prepare();
  const out: McpPromptCommand[] = [];
  for (const e of hub.configured()) {
    const rt = hub.runtime(e.name);
    if (!rt?.offers.prompts) continue;
    const timeout = hub.budget.MCP_CALL_TIMEOUT_MS;
    const r = await rt.request((c) => c.listPrompts({}, { timeout })).catch(() => undefined);
    for (const p of r?.prompts ?? []) {
      out.push({
        command: mcpToolName(e.name, p.name, hub.budget.MCP_TOOL_NAME_MAX_CHARS),
        server: e.name,
        prompt: p.name,
        description: clipLine((p.description ?? '').replace(/\s+/g, () => ' ').trim() || `the prompt ${p.name} of ${e.name}`, hub.budget.SKILL_DESCRIPTION_MAX_BYTES),
        arguments: (p.arguments ?? []).map((a) => ({ name: a.name, ...(a.description ? { description: a.description } : {}), ...(a.required ? { required: true } : {}) })),
      });
    }
  }
  return out;
}

/** The arguments typed after a prompt's command: `name=value` words by name, the other words in the prompt's order. */
export function promptArguments(spec: McpPromptCommand, typed: string): { args: Record<string, string> } | { error: string } {
  const args: Record<string, string> = {};
  const rest: string[] = [];
  for (const w of commandWords(typed)) {
    const m = /^([\w-]+)=([\s\S]*)$/.exec(w);
    if (m && spec.arguments.some((a) => a.name === m[1])) args[m[1]] = m[2];
    else rest.push(w);
  }
  for (const a of spec.arguments) if (!(a.name in args) && rest.length) args[a.name] = rest.shift()!;
  const missing = spec.arguments.filter((a) => a.required && !(a.name in args)).map((a) => a.name);
  if (missing.length) return { error: `/${spec.command} needs ${missing.join(', ')}: type /${spec.command} ${spec.arguments.map((a) => (a.required ? `<${a.name}>` : `[${a.name}]`)).join(' ')} (or name=value).` };
  return { args };
}

/** A prompt's messages as one text (each message's text content; other content named). Throws the SDK's errors. */
export async function promptText(hub: McpHub, spec: McpPromptCommand, args: Record<string, string>): Promise<string> {
  const rt = hub.runtime(spec.server);
  if (!rt) throw new Error(`the MCP server ${spec.server} is not running`);
  const r = await rt.request((c) => c.getPrompt({ name: spec.prompt, arguments: args }, { timeout: hub.budget.MCP_CALL_TIMEOUT_MS }));
  return r.messages
    .map((m) => {
      const c = m.content as { type: string; text?: string; resource?: { uri: string; text?: string } };
      if (c.type === 'text') return c.text ?? '';
      if (c.type === 'resource' && c.resource) return c.resource.text ?? `[resource ${c.resource.uri}]`;
      return `[${c.type} content of the prompt, not shown]`;
    })
    .join('\n\n')
    .trim();
}
