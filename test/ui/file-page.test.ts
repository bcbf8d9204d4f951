import { describe, expect, it } from 'vitest';
import { isFilePage, pageUrl, responseMessage, sourceKey } from '../../lib/ui/file-page';

describe('file pages', () => {
  it('builds the two URLs of the contract', () => {
    expect(pageUrl({ kind: 'file', path: '/d/spill/a b&c.txt' }, 100, 4096)).toBe('/api/files?offset=100&limit=4096&path=%2Fd%2Fspill%2Fa+b%26c.txt');
    expect(pageUrl({ kind: 'task', taskId: 't/1' }, -5, 10.7)).toBe('/api/tasks/t%2F1/log?offset=0&limit=10');
    expect(pageUrl({ kind: 'task', taskId: 't1', stream: 'stderr' }, 0, 10)).toBe('/api/tasks/t1/log?offset=0&limit=10&stream=stderr');
    expect(pageUrl({ kind: 'task', taskId: 't1', stream: 'combined' }, 0, 10)).toBe('/api/tasks/t1/log?offset=0&limit=10&stream=combined');
    // no stream: the server's default, the combined log
    expect(sourceKey({ kind: 'task', taskId: 't1' })).toBe('task:t1:combined');
    expect(sourceKey({ kind: 'task', taskId: 't1', stream: 'combined' })).toBe('task:t1:combined');
    expect(sourceKey({ kind: 'task', taskId: 't1', stream: 'stdout' })).toBe('task:t1:stdout');
    expect(sourceKey({ kind: 'task', taskId: 't1', stream: 'stderr' })).toBe('task:t1:stderr');
  });

  it('checks a page before trusting it', () => {
    expect(isFilePage({ path: 'p', text: '', offset: 0, nextOffset: 0, totalBytes: 0, eof: true })).toBe(true);
    expect(isFilePage({ text: 'x', offset: '0', nextOffset: 1, totalBytes: 1, eof: true })).toBe(false);
    expect(isFilePage(null)).toBe(false);
  });

  it("shows the server's error message, else its text, else the status", async () => {
    expect(await responseMessage(new Response(JSON.stringify({ error: 'File not found: x.' }), { status: 404 }))).toBe('File not found: x.');
    expect(await responseMessage(new Response('  boom  ', { status: 500 }))).toBe('boom');
    expect(await responseMessage(new Response('', { status: 502, statusText: 'Bad Gateway' }))).toBe('The server answered 502 Bad Gateway.');
  });
});
