import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { closeDb, openDb } from '../../lib/store/db';
import { createSession, requireSession, updateSession } from '../../lib/store/sessions';
import { setModelSettings } from '../../lib/store/settings';
import { sessionModel, sessionModelForSteps, sessionTurnModel, specOf } from '../../lib/server/session-model';
import type { ServerConfig } from '../../lib/server/http';
import { tempWorkspace } from '../helpers';

let ws: ReturnType<typeof tempWorkspace>;
let cfg: ServerConfig;
beforeEach(() => {
  ws = tempWorkspace('clamp-step-model-');
  cfg = { workspace: ws.workspace, dataDir: ws.dataDir, mode: 'default' };
});
afterEach(() => {
  closeDb(ws.dataDir);
  ws.cleanup();
});

describe("the model a turn's steps use", () => {
  it('is resolved again only when the pick, the settings or the environment changed, and then as sessionModel says', () => {
    const db = openDb(ws.dataDir);
    const s = createSession(db, { workspace: ws.workspace });
    const env = { NODE_ENV: 'test', CLAMP_MODEL: 'openai-compatible:first', CLAMP_BASE_URL: 'http://127.0.0.1:9/v1' } as NodeJS.ProcessEnv;
    const models = sessionModelForSteps(cfg, s.id, env);
    const step = () => models.resolve();
    const a = step();
    expect(a.ok && specOf(a)).toBe('openai-compatible:first');
    // nothing changed: the same client, not one built per step
    expect(step()).toBe(a);
    updateSession(db, ws.workspace, s.id, { model: 'openai-compatible:picked' });
    const b = step();
    expect(b).not.toBe(a);
    expect(specOf(b)).toBe('openai-compatible:picked');
    expect(b.status).toEqual(sessionModel(cfg, s.id, env).status);
    expect(step()).toBe(b);
    updateSession(db, ws.workspace, s.id, { model: null });
    setModelSettings(db, { provider: 'openai-compatible', model: 'saved', baseUrl: 'http://127.0.0.1:8/v1' });
    expect(specOf(step())).toBe('openai-compatible:saved');
    setModelSettings(db, { provider: null, model: null, baseUrl: null });
    env.CLAMP_MODEL = 'openai-compatible:second';
    expect(specOf(step())).toBe('openai-compatible:second');
    delete env.CLAMP_BASE_URL;
    const none = step();
    expect(none.ok).toBe(false);
    expect(none.status).toEqual(sessionModel(cfg, s.id, env).status);
  });

  it("starts from the turn's own model when nothing changed since it was resolved", () => {
    const db = openDb(ws.dataDir);
    const s = createSession(db, { workspace: ws.workspace });
    const env = { NODE_ENV: 'test', CLAMP_MODEL: 'openai-compatible:first', CLAMP_BASE_URL: 'http://127.0.0.1:9/v1' } as NodeJS.ProcessEnv;
    const models = sessionModelForSteps(cfg, s.id, env);
    const inputs = models.inputs();
    const turns = sessionModel(cfg, s.id, env);
    models.seed(inputs, turns);
    expect(models.resolve()).toBe(turns);
    // seeded for inputs that no longer hold: resolved afresh
    models.seed(inputs, turns);
    updateSession(db, ws.workspace, s.id, { model: 'openai-compatible:picked' });
    expect(specOf(models.resolve())).toBe('openai-compatible:picked');
  });

  it('a turn resolves its model once, from the session as the turn read it, and its first step keeps that model', async () => {
    const db = openDb(ws.dataDir);
    const s = createSession(db, { workspace: ws.workspace });
    updateSession(db, ws.workspace, s.id, { model: 'openai-compatible:picked' });
    const env = { NODE_ENV: 'test', CLAMP_MODEL: 'openai-compatible:first', CLAMP_BASE_URL: 'http://127.0.0.1:9/v1' } as NodeJS.ProcessEnv;
    const { resolved, steps } = await sessionTurnModel(cfg, requireSession(db, s.id), env);
    expect(specOf(resolved)).toBe('openai-compatible:picked');
    expect(steps.resolve()).toBe(resolved);
    // a pick made after the turn read its session counts from the next step
    updateSession(db, ws.workspace, s.id, { model: null });
    expect(specOf(steps.resolve())).toBe('openai-compatible:first');
  });
});
