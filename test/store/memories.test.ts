import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as memoriesRoute from '../../app/api/memories/route';
import * as memoryRoute from '../../app/api/memories/[id]/route';
import { closeDb, openDb } from '../../lib/store/db';
import { addMemory, deleteMemory, ftsMatchQuery, listMemories, searchMemories } from '../../lib/store/memories';
import { tempWorkspace } from '../helpers';

let ws: ReturnType<typeof tempWorkspace>;
const saved = { ...process.env };
beforeEach(() => {
  ws = tempWorkspace('clamp-memories-');
  process.env.CLAMP_WORKSPACE = ws.workspace;
  process.env.CLAMP_DATA_DIR = ws.dataDir;
  delete process.env.CLAMP_MODE;
});
afterEach(() => {
  closeDb(ws.dataDir);
  ws.cleanup();
  for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
  Object.assign(process.env, saved);
});

const contents = (r: { memories: { content: string }[] }) => r.memories.map((m) => m.content);

describe('memories store', () => {
  it('adds, lists newest first, dedupes the same text, deletes per workspace', () => {
    const db = openDb(ws.dataDir);
    const a = addMemory(db, '/w1', 'Tests run with npm test.');
    const b = addMemory(db, '/w1', 'The API lives in app/api.');
    addMemory(db, '/w2', 'Another workspace.');
    expect(a.created).toBe(true);
    expect(addMemory(db, '/w1', 'Tests run with npm test.')).toEqual({ memory: a.memory, created: false });
    expect(listMemories(db, '/w1', 10)).toEqual({ memories: [b.memory, a.memory], total: 2 });
    expect(listMemories(db, '/w1', 1)).toEqual({ memories: [b.memory], total: 2 });
    expect(deleteMemory(db, '/w2', a.memory.id)).toBe(false);
    expect(deleteMemory(db, '/w1', a.memory.id)).toBe(true);
    expect(contents(listMemories(db, '/w1', 10))).toEqual(['The API lives in app/api.']);
    // the FTS index follows deletes
    expect(searchMemories(db, '/w1', 'tests', 10).total).toBe(0);
  });

  it('full-text search: stemmed, any word, best first, only this workspace', () => {
    const db = openDb(ws.dataDir);
    addMemory(db, '/w', 'Run the tests with npm test before committing.');
    addMemory(db, '/w', 'The user prefers tabs.');
    addMemory(db, '/w', 'Testing the parser needs the fixtures folder; tests are slow.');
    addMemory(db, '/other', 'tests tests tests');
    const r = searchMemories(db, '/w', 'testing', 10);
    expect(r.method).toBe('fts');
    expect(r.total).toBe(2);
    expect(contents(r)).toEqual(expect.arrayContaining(['Run the tests with npm test before committing.', 'Testing the parser needs the fixtures folder; tests are slow.']));
    expect(contents(searchMemories(db, '/w', 'tabs parser', 10)).sort()).toEqual(['Testing the parser needs the fixtures folder; tests are slow.', 'The user prefers tabs.']);
    expect(searchMemories(db, '/w', 'tests', 1)).toMatchObject({ total: 2, memories: [expect.anything()] });
  });

  it('FTS5 syntax in a query is taken as words, never as operators', () => {
    const db = openDb(ws.dataDir);
    addMemory(db, '/w', 'Use NOT NULL columns (always).');
    expect(ftsMatchQuery('a "b" NOT c*')).toBe('"a" OR """b""" OR "NOT" OR "c*"');
    for (const q of ['NOT', 'columns)', '"unbalanced', 'col*', 'AND OR NEAR(', '-x', 'content:NULL', '^always']) {
      expect(() => searchMemories(db, '/w', q, 10)).not.toThrow();
    }
    expect(searchMemories(db, '/w', 'NOT', 10).total).toBe(1);
    expect(searchMemories(db, '/w', 'NEAR( columns', 10).total).toBe(1);
  });

  it('falls back to substring matching when full-text finds nothing (symbols, word parts)', () => {
    const db = openDb(ws.dataDir);
    addMemory(db, '/w', 'Build with C++17 and postgresql 16.');
    addMemory(db, '/w', 'Ignore 100% of the lint_warnings in vendor/.');
    const plus = searchMemories(db, '/w', 'C++', 10);
    expect(plus).toMatchObject({ method: 'fts' });
    const part = searchMemories(db, '/w', 'gresq', 10);
    expect(part).toMatchObject({ method: 'like', total: 1 });
    expect(contents(part)).toEqual(['Build with C++17 and postgresql 16.']);
    // % and _ are literal in the fallback
    expect(searchMemories(db, '/w', '0%', 10)).toMatchObject({ method: 'like', total: 1 });
    expect(searchMemories(db, '/w', 't_w', 10)).toMatchObject({ method: 'like', total: 1 });
    expect(searchMemories(db, '/w', 'x_y', 10).total).toBe(0);
    expect(searchMemories(db, '/w', '   ', 10)).toEqual({ memories: [], total: 0, method: 'fts' });
  });

  it('persists across reopening the database', () => {
    addMemory(openDb(ws.dataDir), '/w', 'Remember me.');
    closeDb(ws.dataDir);
    expect(contents(searchMemories(openDb(ws.dataDir), '/w', 'remember', 10))).toEqual(['Remember me.']);
  });
});

const req = (q?: string) => new Request(`http://127.0.0.1/api/memories${q === undefined ? '' : `?q=${encodeURIComponent(q)}`}`);
const params = (id: string) => ({ params: Promise.resolve({ id }) });

describe('memory routes', () => {
  it('GET lists the workspace\'s memories newest first, ?q= searches', async () => {
    const db = openDb(ws.dataDir);
    const a = addMemory(db, ws.workspace, 'Deploy with make release.').memory;
    const b = addMemory(db, ws.workspace, 'The user is called Sam.').memory;
    addMemory(db, '/elsewhere', 'Not listed.');
    let res = await memoriesRoute.GET(req());
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ memories: [b, a], total: 2 });
    res = await memoriesRoute.GET(req('deploy'));
    expect(await res.json()).toEqual({ memories: [a], total: 1 });
    res = await memoriesRoute.GET(req('  '));
    expect(((await res.json()) as { total: number }).total).toBe(2);
  });

  it('DELETE removes one; 404 for an unknown, foreign or malformed id', async () => {
    const db = openDb(ws.dataDir);
    const a = addMemory(db, ws.workspace, 'Forget me.').memory;
    const other = addMemory(db, '/elsewhere', 'Not mine.').memory;
    let res = await memoryRoute.DELETE(new Request('http://127.0.0.1/api/memories/x', { method: 'DELETE' }), params(String(a.id)));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ deleted: a.id });
    res = await memoryRoute.DELETE(new Request('http://127.0.0.1/x', { method: 'DELETE' }), params(String(a.id)));
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: `Memory ${a.id} not found. List the memories with GET /api/memories.` });
    res = await memoryRoute.DELETE(new Request('http://127.0.0.1/x', { method: 'DELETE' }), params(String(other.id)));
    expect(res.status).toBe(404);
    for (const bad of ['abc', '0', '1.5', '../1']) {
      res = await memoryRoute.DELETE(new Request('http://127.0.0.1/x', { method: 'DELETE' }), params(bad));
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: `Memory ${bad} not found.` });
    }
    expect(listMemories(db, '/elsewhere', 10).total).toBe(1);
  });
});
