import type { McpPromptCommand, PromptBody } from '../contract/command-text';
import { getMcpHub } from '../mcp/hub';
import { listPrompts, promptArguments, promptText } from '../mcp/prompts';
import { HttpError, type ServerConfig } from './http';

/** GET /api/prompts: every MCP prompt, for the composer's /mcp__<server>__<prompt> commands. */
export async function promptList(cfg: ServerConfig): Promise<{ prompts: McpPromptCommand[] }> {
  return { prompts: await listPrompts(getMcpHub(cfg.dataDir, cfg.workspace)) };
}

/** POST /api/prompts: the text a prompt's command sends; 400 for missing arguments, 404 for no such prompt, 502 when the server fails. */
export async function promptExpand(cfg: ServerConfig, body: PromptBody): Promise<{ text: string }> {
  const hub = getMcpHub(cfg.dataDir, cfg.workspace);
  const all = await listPrompts(hub);
  const spec = all.find((p) => p.command === body.command);
  if (!spec) throw new HttpError(404, `No MCP prompt /${body.command}. ${all.length ? `Prompts: ${all.map((p) => `/${p.command}`).join(', ')}.` : 'No running MCP server offers prompts.'}`);
  const args = promptArguments(spec, body.args);
  if ('error' in args) throw new HttpError(400, args.error);
  try {
    return { text: await promptText(hub, spec, args.args) };
  } catch (err) {
    throw new HttpError(502, `The MCP server ${spec.server} could not give the prompt ${spec.prompt}: ${err instanceof Error ? err.message : String(err)}. Check the server on the settings page.`);
  }
}
