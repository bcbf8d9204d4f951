import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { harness, tempWorkspace } from '../helpers';
import { memorySaveTool } from '../../lib/tools/memory/memory-save';
import { memorySearchTool } from '../../lib/tools/memory/memory-search';
import { closeDb, openDb } from '../../lib/store/db';
import { addMemory } from '../../lib/store/memories';
import type { Budget } from '../../lib/contract/budget';

let ws: ReturnType<typeof tempWorkspace>;
beforeEach(() => {
  ws = tempWorkspace('clamp-memory-');
});
afterEach(() => {
  closeDb(ws.dataDir);
  ws.cleanup();
});

const TOOLS = [memorySaveTool, memorySearchTool];
const h = (budget: Partial<Budget> = {}) => harness(TOOLS, ws, { budget });
/** dates vary with the clock; everything else is exact */
const steady = (s: string) => s.replace(/\d{4}-\d{2}-\d{2}/g, 'DATE');

describe('memory_save', () => {
  it('saves one sentence (white space folded) and says how to find it again', async () => {
    const r = await h().call('memory_save', { text: '  Run the tests with\n  npm test.  ' });
    expect(r).toMatchObject({ status: 'ok', output: 'Saved memory 1: Run the tests with npm test.\nLater sessions in this workspace find it with memory_search.' });
    expect(r.meta).toMatchObject({ created: true, memory: { id: 1, content: 'Run the tests with npm test.' } });
  });

  it('the same text twice is remembered once', async () => {
    await h().call('memory_save', { text: 'Use pnpm.' });
    const r = await h().call('memory_save', { text: 'Use  pnpm.' });
    expect(steady(r.output)).toBe('Already remembered as memory 1 (saved DATE); nothing was added.');
  });

  it('refuses empty text before any I/O', async () => {
    const r = await h().call('memory_save', { text: ' \n ' });
    expect(r.output).toBe('Invalid arguments for memory_save:\n- `text`: must not be empty.\nPass a non-empty text and call memory_save again.');
  });

  it('refuses text over MEMORY_MAX_BYTES with the next step', async () => {
    const r = await h({ MEMORY_MAX_BYTES: 20 }).call('memory_save', { text: 'é'.repeat(11) });
    expect(r).toMatchObject({
      status: 'error',
      output: 'The memory is 22 bytes; a memory holds at most 20 bytes. Shorten it to one self-contained sentence (save separate facts separately) and call memory_save again.',
    });
    expect((await h({ MEMORY_MAX_BYTES: 20 }).call('memory_save', { text: 'é'.repeat(10) })).status).toBe('ok');
  });

  it('refuses several paragraphs', async () => {
    const r = await h().call('memory_save', { text: 'First fact.\n\nSecond fact.' });
    expect(r.output).toBe('The memory has several paragraphs; a memory is one self-contained sentence. Save each fact with its own memory_save call.');
  });

  it('runs in plan mode without asking (it writes only Clamp\'s own data)', async () => {
    expect((await h().call('memory_save', { text: 'Plan mode can remember.' }, { mode: 'plan' }, {})).status).toBe('ok');
  });
});

describe('memory_search', () => {
  it('finds memories of this workspace saved in earlier sessions, best first', async () => {
    const db = openDb(ws.dataDir);
    addMemory(db, ws.workspace, 'Deploys go through make release.');
    addMemory(db, ws.workspace, 'The user prefers short commit messages.');
    addMemory(db, '/another/workspace', 'Deploys use kubectl.');
    closeDb(ws.dataDir);
    const r = await h().call('memory_search', { query: 'deploy' });
    expect(steady(r.output)).toBe('1 memory matches "deploy", best first:\n- [1] Deploys go through make release. (DATE)');
    expect(r.meta).toMatchObject({ total: 1, method: 'fts', ids: [1] });
    expect(r.truncation).toBeNull();
  });

  it('says when nothing is saved, and when nothing matches', async () => {
    expect((await h().call('memory_search', { query: 'x' })).output).toBe('No memories are saved for this workspace yet. memory_save keeps one.');
    await h().call('memory_save', { text: 'Something.' });
    expect((await h().call('memory_search', { query: 'nothing here' })).output).toBe(
      'No memory matches "nothing here" (1 saved in this workspace). Try other or fewer words.',
    );
  });

  it('says when it matched as a substring', async () => {
    await h().call('memory_save', { text: 'The database is postgresql.' });
    expect(steady((await h().call('memory_search', { query: 'gresql' })).output)).toBe(
      '1 memory matches "gresql" (as a substring), best first:\n- [1] The database is postgresql. (DATE)',
    );
  });

  it('past MEMORY_SEARCH_MAX_RESULTS: that many, the total, and the next step', async () => {
    for (let i = 1; i <= 5; i++) await h().call('memory_save', { text: `Fact ${i} about widgets.` });
    const r = await h({ MEMORY_SEARCH_MAX_RESULTS: 2 }).call('memory_search', { query: 'widgets' });
    const hint = 'Use more specific words to bring the memories you need to the top (best matches come first).';
    const lines = r.output.split('\n');
    expect(lines[0]).toBe('5 memories match "widgets", best first:');
    expect(lines).toHaveLength(4);
    expect(lines[3]).toBe(`[2 of 5 shown (at most 2 results per search). ${hint}]`);
    expect(r.truncation).toEqual({ unit: 'entries', shown: 2, total: 5, by: 'tool' });
    expect(r.hint).toBe(hint);
  });

  it('past MEMORY_SEARCH_MAX_BYTES: as many as fit, and says the byte cap', async () => {
    for (let i = 1; i <= 3; i++) await h().call('memory_save', { text: `Widget fact number ${i} is here.` });
    // each line is "- [n] Widget fact number n is here. (YYYY-MM-DD)": 47 bytes + newline
    const r = await h({ MEMORY_SEARCH_MAX_BYTES: 100 }).call('memory_search', { query: 'widget' });
    const lines = r.output.split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[3]).toBe('[2 of 3 shown (at most 100 bytes of results per search). Use more specific words to bring the memories you need to the top (best matches come first).]');
    expect(r.truncation).toEqual({ unit: 'entries', shown: 2, total: 3, by: 'tool' });
  });

  it('an empty query is refused before any I/O', async () => {
    expect((await h().call('memory_search', { query: '' })).output).toBe(
      'Invalid arguments for memory_search:\n- `query`: must not be empty.\nPass a non-empty query and call memory_search again.',
    );
  });

  it('schemas', () => {
    expect(z.toJSONSchema(memorySaveTool.schema)).toMatchSnapshot();
    expect(z.toJSONSchema(memorySearchTool.schema)).toMatchSnapshot();
  });
});
