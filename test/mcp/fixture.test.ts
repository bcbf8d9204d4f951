import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE, hubBed, until } from './hub-bed';

// Clamp's own test server (test/mcp/fixture-server.mjs, on the SDK's McpServer) over stdio
describe('MCP: a server that misbehaves', () => {
  let bed: ReturnType<typeof hubBed>;
  beforeAll(async () => {
    bed = hubBed({ 'Fix-ture': { command: process.execPath, args: [FIXTURE] } }, { budget: { MCP_RESTART_BACKOFF_MIN_MS: 200 } });
    await bed.hub.prepare();
  }, 60_000);
  afterAll(() => bed.close());

  it('sanitises the server name into the tool names', () => {
    expect(bed.hub.tools().map((t) => t.name).sort()).toEqual(['mcp__fix_ture__add_tool', 'mcp__fix_ture__big', 'mcp__fix_ture__crash', 'mcp__fix_ture__fail', 'mcp__fix_ture__hang', 'mcp__fix_ture__shout']);
  });

  it('5 MB comes back through the one exit clamp: cut, with the note and the spill path', async () => {
    const r = await bed.call('mcp__fix_ture__big', {});
    expect(r.status).toBe('ok');
    expect(Buffer.byteLength(r.output)).toBeLessThanOrEqual(bed.budget.TOOL_OUTPUT_MAX_BYTES);
    expect(r.truncation).toMatchObject({ by: 'exit', unit: 'bytes' });
    expect(r.truncation!.total).toBeGreaterThanOrEqual(5 * 1024 * 1024 - 100);
    const spill = r.truncation!.spillPath!;
    expect(r.output).toContain(spill);
    expect(fs.statSync(spill).size).toBe(r.truncation!.total);
  }, 30_000);

  it('isError is an error result with the server\'s text', async () => {
    const r = await bed.call('mcp__fix_ture__fail', { why: 'the disk is on fire' });
    expect(r.status).toBe('error');
    expect(r.output).toBe('The MCP tool fail on server Fix-ture reported an error:\nit went wrong: the disk is on fire');
  });

  it('a call that hangs ends at the timeout with the next step', async () => {
    const r = await bed.call('mcp__fix_ture__hang', {}, { budget: { MCP_CALL_TIMEOUT_MS: 800 } });
    expect(r.status).toBe('error');
    expect(r.output).toMatch(/^mcp__fix_ture__hang did not answer within 800 ms \(MCP_CALL_TIMEOUT_MS\); the call was cancelled\. Try a smaller request, or ask the user to check the server \(its log is .*Fix-ture\.log\)\.$/);
  });

  it('honours a tool-list change: the next look-up sees the new tool', async () => {
    const turn = bed.turn();
    expect(Object.hasOwn(turn.reg, 'mcp__fix_ture__late')).toBe(false);
    const r = await bed.call('mcp__fix_ture__add_tool', {});
    expect(r.status).toBe('ok');
    await until(() => Object.hasOwn(turn.reg, 'mcp__fix_ture__late'), 10_000, 'the late tool');
    const late = await bed.call('mcp__fix_ture__late', {});
    expect(late.output).toBe('late tool ran');
  });

  it('a crash mid-call is an error result; the server is restarted after a back-off and works again', async () => {
    const rt = bed.hub.runtime('Fix-ture')!;
    const r = await bed.call('mcp__fix_ture__crash', {});
    expect(r.status).toBe('error');
    expect(r.output).toContain('The MCP server Fix-ture exited during the call to mcp__fix_ture__crash. Clamp restarts it');
    expect(rt.crashes).toBe(1);
    await until(() => rt.status === 'running', 15_000, 'the restart');
    const log = fs.readFileSync(rt.logPath, 'utf8');
    expect(log).toContain('fixture: crashing now');
    expect(log).toContain('restarting in 200 ms (crash 1 in a row)');
    const again = await bed.call('mcp__fix_ture__shout', { word: 'back' });
    expect(again.output).toBe('BACK');
    expect(rt.crashes).toBe(0);
  }, 30_000);
});
