import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { closeDb, openDb } from '../../lib/store/db';
import { getNotifySettings } from '../../lib/store/settings';
import { tempWorkspace } from '../helpers';
import * as notifyRoute from '../../app/api/settings/notifications/route';

/** The notification setting's route: on by default, turned off, read back off (from the store too); a bad body is refused naming the field. */
let ws: ReturnType<typeof tempWorkspace>;
const savedEnv = { ...process.env };

beforeEach(() => {
  ws = tempWorkspace('clamp-notify-http-');
  // the route reads its configuration from the environment, as the server does
  Object.assign(process.env, { CLAMP_WORKSPACE: ws.workspace, CLAMP_DATA_DIR: ws.dataDir });
});
afterEach(() => {
  closeDb(ws.dataDir);
  process.env = { ...savedEnv };
  ws.cleanup();
});

const URL_ = 'http://127.0.0.1/api/settings/notifications';
const get = () => notifyRoute.GET(new Request(URL_));
const put = (body: unknown) => notifyRoute.PUT(new Request(URL_, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }));

describe('/api/settings/notifications', () => {
  it('is on by default, turns off and stays off', async () => {
    const first = await get();
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ on: true });
    const off = await put({ on: false });
    expect(off.status).toBe(200);
    expect(await off.json()).toEqual({ on: false });
    expect(await (await get()).json()).toEqual({ on: false });
    expect(getNotifySettings(openDb(ws.dataDir))).toEqual({ on: false });
    expect(await (await put({ on: true })).json()).toEqual({ on: true });
    expect(await (await get()).json()).toEqual({ on: true });
  });

  it('refuses a body without a boolean "on", naming the field, and changes nothing', async () => {
    await put({ on: false });
    for (const [bad, field] of [[{ on: 'no' }, 'on'], [{}, 'on'], [{ on: true, sound: true }, 'sound']] as const) {
      const res = await put(bad);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: string }).error).toContain(field);
    }
    expect(await (await get()).json()).toEqual({ on: false });
  });
});
