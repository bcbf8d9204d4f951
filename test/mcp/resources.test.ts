import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, hubBed } from './hub-bed';
import { listPrompts, promptArguments, promptText } from '../../lib/mcp/prompts';

// the everything test server's resources, read by the model's tools through dispatch, and its prompts
describe('MCP resources and prompts: server-everything over stdio', () => {
  let bed: ReturnType<typeof hubBed>;
  beforeAll(async () => {
    bed = hubBed({ everything: { command: BIN('mcp-server-everything'), args: ['stdio'] } });
    await bed.hub.prepare();
  }, 60_000);
  afterAll(() => bed.close());

  it('offers list_resources and read_resource for a server with resources, as read tools', () => {
    const names = bed.hub.tools().map((t) => t.name);
    expect(names).toContain('mcp__everything__list_resources');
    expect(names).toContain('mcp__everything__read_resource');
    expect(bed.hub.tools().find((t) => t.name === 'mcp__everything__read_resource')!.effect).toBe('read');
  });

  it('lists the resources and reads one by its uri; an unknown uri is an error naming the next step', async () => {
    const list = await bed.call('mcp__everything__list_resources', {});
    expect(list.status).toBe('ok');
    expect(list.output).toContain('demo://resource/static/document/architecture.md — architecture.md (text/markdown): Static document file exposed from /docs: architecture.md');
    const read = await bed.call('mcp__everything__read_resource', { uri: 'demo://resource/static/document/architecture.md' });
    expect(read.status).toBe('ok');
    expect(read.output).toMatch(/^# Everything Server – Architecture/);
    const bad = await bed.call('mcp__everything__read_resource', { uri: 'nope://missing' });
    expect(bad.status).toBe('error');
    expect(bad.output).toContain('The MCP server everything refused the resource nope://missing: ');
    expect(bad.output).toContain('Check the uri against mcp__everything__list_resources.');
  });

  it('a long resource is cut by the exit clamp like any output, the whole of it spilled to a file', async () => {
    const read = await bed.call('mcp__everything__read_resource', { uri: 'demo://resource/static/document/architecture.md' }, { budget: { TOOL_OUTPUT_MAX_BYTES: 600 } });
    expect(read.status).toBe('ok');
    expect(Buffer.byteLength(read.output)).toBeLessThanOrEqual(600);
    expect(read.output).toMatch(/read_file/);
  });

  // its prompts, on the same connection

  it('lists each prompt as /mcp__<server>__<prompt> with its arguments, and gives its text with them filled in', async () => {
    const prompts = await listPrompts(bed.hub);
    const names = prompts.map((p) => p.command);
    expect(names.every((n) => n.startsWith('mcp__everything__'))).toBe(true);
    const withArgs = prompts.find((p) => p.arguments.some((a) => a.required))!;
    expect(withArgs).toBeDefined();
    const missing = promptArguments(withArgs, '');
    expect('error' in missing && missing.error).toContain(`/${withArgs.command} needs`);
    const words = withArgs.arguments.map((a) => `${a.name}=v-${a.name}`).join(' ');
    const got = promptArguments(withArgs, words);
    expect('args' in got).toBe(true);
    const text = await promptText(bed.hub, withArgs, (got as { args: Record<string, string> }).args);
    expect(text.length).toBeGreaterThan(0);
  });
});
