import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, hubBed } from './hub-bed';

// @modelcontextprotocol/server-everything over stdio (a devDependency, run offline)
describe('MCP: server-everything over stdio', () => {
  let bed: ReturnType<typeof hubBed>;
  beforeAll(async () => {
    bed = hubBed({ everything: { command: BIN('mcp-server-everything'), args: ['stdio'] } });
    await bed.hub.prepare();
  }, 60_000);
  afterAll(() => bed.close());

  it('lists its tools as mcp__everything__<tool>, sanitised, with read-only ones as read', () => {
    const names = bed.hub.tools().map((t) => t.name);
    expect(names).toContain('mcp__everything__echo');
    expect(names).toContain('mcp__everything__get_tiny_image');
    expect(names).toContain('mcp__everything__trigger_long_running_operation');
    const echo = bed.hub.tools().find((t) => t.name === 'mcp__everything__echo')!;
    expect(echo.effect).toBe('read');
    expect(bed.hub.tools().find((t) => t.name === 'mcp__everything__toggle_simulated_logging')!.effect).toBe('system');
    expect(echo.jsonSchema).toMatchObject({ type: 'object', properties: { message: { type: 'string' } } });
    expect(echo.jsonSchema).not.toHaveProperty('$schema');
    const st = bed.hub.states()[0];
    expect(st.status).toBe('running');
    expect(fs.readFileSync(st.logPath, 'utf8')).toContain('Starting default (STDIO) server');
  });

  it('text: echo through dispatch', async () => {
    const r = await bed.call('mcp__everything__echo', { message: 'hello there' });
    expect(r.status).toBe('ok');
    expect(r.output).toBe('Echo: hello there');
    expect(r.meta).toMatchObject({ server: 'everything', tool: 'echo' });
  });

  it('validates against the server schema before the call', async () => {
    const r = await bed.call('mcp__everything__get_sum', { a: 'one', b: 2 });
    expect(r.status).toBe('error');
    expect(r.output).toContain('Invalid arguments for mcp__everything__get_sum');
    expect(r.output).toContain('`a`: must be number');
    const missing = await bed.call('mcp__everything__get_sum', { a: 1 });
    expect(missing.output).toContain("must have required property 'b'");
    const ok = await bed.call('mcp__everything__get_sum', { a: 2, b: 3 });
    expect(ok.output).toContain('5');
  });

  it('images: image parts for a model that takes them, else a note', async () => {
    const r = await bed.call('mcp__everything__get_tiny_image', {});
    expect(r.status).toBe('ok');
    const images = (r.meta as { images?: { mediaType: string; data: string }[] }).images!;
    expect(images).toHaveLength(1);
    expect(images[0].mediaType).toBe('image/png');
    expect(Buffer.from(images[0].data, 'base64').subarray(1, 4).toString()).toBe('PNG');
    expect(r.output).toMatch(/\[image 1: image\/png, .* attached\]/);
    const text = await bed.call('mcp__everything__get_tiny_image', {}, { takesImages: false });
    expect(text.meta).not.toHaveProperty('images');
    expect(text.output).toContain('not shown: the model in use takes no images in tool results');
  });

  it('embedded resources: text bounded, blobs named', async () => {
    const r = await bed.call('mcp__everything__get_resource_reference', { resourceType: 'Text', resourceId: 1 });
    expect(r.status).toBe('ok');
    expect(r.output).toContain('[resource demo://resource/dynamic/text/1 (text/plain)]\nResource 1');
    const cut = await bed.call('mcp__everything__get_resource_reference', { resourceType: 'Text', resourceId: 1 }, { budget: { MCP_RESOURCE_MAX_BYTES: 10 } });
    expect(cut.output).toMatch(/\[resource cut: showing 10 bytes of 63 bytes; read the rest through the server\]/);
    const blob = await bed.call('mcp__everything__get_resource_reference', { resourceType: 'Blob', resourceId: 1 });
    expect(blob.output).toMatch(/binary .*— not shown/);
  });

  it('structured content reaches the model and the page', async () => {
    const r = await bed.call('mcp__everything__get_structured_content', { location: 'Chicago' });
    expect(r.status).toBe('ok');
    expect((r.meta as { structuredContent?: Record<string, unknown> }).structuredContent).toHaveProperty('temperature');
    expect(r.output).toContain('temperature');
  });

  it('a long-running call reports progress and finishes', async () => {
    const seen: string[] = [];
    const r = await bed.call('mcp__everything__trigger_long_running_operation', { duration: 1, steps: 2 }, { onStatus: (t) => seen.push(t) });
    expect(r.status).toBe('ok');
    expect(r.output).toMatch(/completed/i);
    expect(seen.length).toBeGreaterThan(0);
  }, 30_000);

  it('a long-running call is cut off by its timeout, and by the turn\'s abort', async () => {
    const t0 = Date.now();
    const r = await bed.call('mcp__everything__trigger_long_running_operation', { duration: 20, steps: 20 }, { budget: { MCP_CALL_TIMEOUT_MS: 1500 } });
    expect(r.status).toBe('error');
    expect(r.output).toContain('did not answer within 1.5 s (MCP_CALL_TIMEOUT_MS)');
    expect(Date.now() - t0).toBeLessThan(8000);
    const ac = new AbortController();
    setTimeout(() => ac.abort(new Error('stopped by the user')), 500);
    const stopped = await bed.call('mcp__everything__trigger_long_running_operation', { duration: 20, steps: 20 }, { signal: ac.signal });
    expect(stopped.status).toBe('error');
    expect(stopped.output).toContain('was stopped by the user');
  }, 30_000);

  it('a system tool asks in default mode and is refused in plan mode', async () => {
    const asked = await bed.call('mcp__everything__toggle_simulated_logging', {}, { opts: {} });
    expect(asked.status).toBe('approval-required');
    expect(asked.output).toContain('does not mark it read-only');
    bed.setMode('plan');
    const refused = await bed.call('mcp__everything__toggle_simulated_logging', {});
    expect(refused.status).toBe('denied');
    const read = await bed.call('mcp__everything__echo', { message: 'x' });
    expect(read.status).toBe('ok');
    bed.setMode('default');
  });

  it('writes nothing into the workspace of its own', () => {
    expect(fs.readdirSync(path.join(bed.ws.workspace))).toEqual([]);
  });
});
