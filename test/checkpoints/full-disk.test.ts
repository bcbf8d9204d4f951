import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeDb, openDb } from '../../lib/store/db';
import { createSession } from '../../lib/store/sessions';
import { listCheckpoints } from '../../lib/store/checkpoints';
import { writeAheadHooks } from '../../lib/server/write-ahead';
import { tempWorkspace } from '../helpers';
import { mountSmallDisk, type SmallDisk } from '../store/small-disk';

/** The checkpoint before a change, with the data dir on a full 5 MB disk: the change is refused with words naming the disk; with room again it is taken. */

const disk = mountSmallDisk(5);
let ws: ReturnType<typeof tempWorkspace>;
let dataDir: string;

beforeAll(() => {
  if (typeof disk === 'string') return;
  ws = tempWorkspace('clamp-ckpt-full-');
  fs.writeFileSync(path.join(ws.workspace, 'a.txt'), 'a\n'.repeat(50_000));
  dataDir = path.join(disk.dir, 'data');
});

afterAll(() => {
  if (typeof disk === 'string') return;
  closeDb(dataDir);
  ws.cleanup();
  disk.unmount();
});

describe.skipIf(typeof disk === 'string')(`a checkpoint on a full disk${typeof disk === 'string' ? ` (skipped: ${disk})` : ''}`, () => {
  it('refuses the change it would guard, naming the disk; once space returns the checkpoint is taken and the change may run', async () => {
    const small = disk as SmallDisk;
    const db = openDb(dataDir);
    const s = createSession(db, { workspace: ws.workspace });
    const hooks = writeAheadHooks(db, { sessionId: s.id, workspace: ws.workspace, dataDir });
    const call = (id: string) => ({ toolCallId: id, toolName: 'write_file', input: { path: 'b.txt', content: 'b' }, effect: 'write' as const, messageId: 'a1', userMessageId: `u-${id}`, stepParts: [] });
    small.fill();
    const refused = await hooks.beforeRun!(call('c1'));
    expect(refused).toMatchObject({ status: 'error', truncation: null });
    expect((refused as { output: string }).output).toMatch(
      new RegExp(
        `^The checkpoint before write_file could not be written: the disk holding Clamp's data dir \\(${dataDir}\\) is full \\([^)]+\\)\\. Nothing already stored was changed\\. write_file was not run, so nothing in the workspace changed\\. Free space on that disk .*Tell the person; call write_file again once there is room\\.$`,
      ),
    );
    expect(listCheckpoints(db, s.id)).toEqual([]);
    // no shadow lock is left behind by the refused checkpoint (an empty one would hold the next off until it aged)
    expect(fs.readdirSync(dataDir, { recursive: true }).map(String).filter((f) => f.endsWith('clamp-shadow.lock'))).toEqual([]);
    small.free();
    expect(await hooks.beforeRun!(call('c2'))).toBeUndefined();
    expect(listCheckpoints(db, s.id)).toHaveLength(1);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  }, 60_000);
});
