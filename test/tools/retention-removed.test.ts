import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readFileTool } from '../../lib/tools/read-file/read-file';
import { sweepOutputs } from '../../lib/store/retention';
import { closeDb } from '../../lib/store/db';
import { clampResult } from '../../lib/contract/clamp';
import { toolBed } from '../helpers';

const DAY = 24 * 60 * 60_000;
const bed = toolBed([readFileTool]);

describe('an output retention removed', () => {
  it('read_file of a spill path retention removed says so, with the date and the reason', async () => {
    // a result cut by the exit clamp points at its spill …
    const cut = clampResult({ status: 'ok', output: 'line\n'.repeat(5000), truncation: null }, 1000, bed.ws.dataDir, 'grep');
    const spill = cut.truncation!.spillPath!;
    expect(cut.output).toContain(spill);
    expect((await bed.h.call('read_file', { path: spill })).status).toBe('ok');
    // … which ages past the period and is removed
    const now = Date.UTC(2031, 5, 1);
    const then = new Date(now - 20 * DAY);
    fs.utimesSync(spill, then, then);
    sweepOutputs(bed.ws.dataDir, { settings: { maxAgeMs: 14 * DAY, outputsMaxBytes: 1e12 }, now, isLive: () => false });
    expect(fs.existsSync(spill)).toBe(false);
    const r = await bed.h.call('read_file', { path: spill });
    expect(r.status).toBe('error');
    expect(r.output).toContain(`${spill}: This output was removed by retention on 2031-06-01 (older than 14 days); rerun the command to see it again.`);
    // a spill that never existed is still just not found
    const never = await bed.h.call('read_file', { path: path.join(bed.ws.dataDir, 'spill', 'never.txt') });
    expect(never.output).toContain('not found');
    expect(never.output).not.toContain('retention');
    closeDb(bed.ws.dataDir);
  });
});
