import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { lineMap, newErrors } from '../../lib/lsp/match';
import { RpcConnection } from '../../lib/lsp/rpc';
import { globRegex, matchesPatterns } from '../../lib/lsp/servers';
import type { RawDiagnostic } from '../../lib/lsp/raw-diagnostic';

const err = (line: number, message = "Type 'number' is not assignable to type 'string'.", code: string | number = 2322): RawDiagnostic => ({ line, column: 7, severity: 'error', message, code });

describe('new errors: matching the old ones through the change', () => {
  const before = ['a', 'b', 'broken', 'c', 'd', 'e'].join('\n');

  it('maps unchanged lines across several hunks', () => {
    const after = ['new', 'a', 'b', 'broken', 'c', 'changed', 'e', 'tail'].join('\n');
    const m = lineMap(before, after);
    expect(m.get(3)).toBe(4);
    expect(m.get(5)).toBeUndefined();
    expect(m.get(6)).toBe(7);
  });

  it('an old error moved down with its line is not new; a second one of the same kind is, and only it', () => {
    const after = ['x', 'y', 'a', 'b', 'broken', 'c', 'd', 'e', 'broken too'].join('\n');
    expect(newErrors([err(3)], [err(5)], before, after)).toEqual({ fresh: [], preexisting: 1 });
    expect(newErrors([err(3)], [err(5), err(9)], before, after)).toEqual({ fresh: [err(9)], preexisting: 1 });
    // the old error's own line was rewritten and still has it: not new
    const rewritten = ['a', 'b', 'broken, edited', 'c', 'd', 'e'].join('\n');
    expect(newErrors([err(3)], [err(3)], before, rewritten).fresh).toEqual([]);
  });

  it('a group that did not grow holds no new error, wherever its errors went; warnings never count', () => {
    const after = ['e', 'd', 'c', 'broken', 'b', 'a'].join('\n');
    expect(newErrors([err(3), err(5, 'other', 1)], [err(1, 'other', 1), err(4)], before, after).fresh).toEqual([]);
    expect(newErrors([], [{ ...err(1), severity: 'warning' }], before, after).fresh).toEqual([]);
    // a created file: everything is new
    expect(newErrors([], [err(1), err(2)], null, after).fresh).toHaveLength(2);
  });
});

describe('the JSON-RPC framing', () => {
  it('reads messages split anywhere and several in one chunk; answers the server; times out', async () => {
    const fromServer = new PassThrough();
    const toServer = new PassThrough();
    const rpc = new RpcConnection(fromServer, toServer);
    const sent: string[] = [];
    toServer.on('data', (d: Buffer) => sent.push(d.toString()));
    const seen: unknown[] = [];
    rpc.onNotification('note', (p) => seen.push(p));
    rpc.onRequest('workspace/configuration', () => [null]);
    // the first request's id is 0 (vscode-jsonrpc numbers from 0)
    const answer = rpc.request<{ ok: boolean }>('ask', {}, { timeoutMs: 5000 });
    const frame = (o: object) => {
      const b = Buffer.from(JSON.stringify(o));
      return Buffer.concat([Buffer.from(`Content-Length: ${b.length}\r\n\r\n`), b]);
    };
    const all = Buffer.concat([frame({ jsonrpc: '2.0', method: 'note', params: { n: 'é' } }), frame({ jsonrpc: '2.0', id: 0, result: { ok: true } }), frame({ jsonrpc: '2.0', id: 7, method: 'workspace/configuration', params: { items: [{}] } })]);
    for (let i = 0; i < all.length; i += 5) fromServer.write(all.subarray(i, i + 5));
    await expect(answer).resolves.toEqual({ ok: true });
    expect(seen).toEqual([{ n: 'é' }]);
    await new Promise((r) => setTimeout(r, 20));
    expect(sent.join('')).toContain('{"jsonrpc":"2.0","id":7,"result":[null]}');
    await expect(rpc.request('slow', {}, { timeoutMs: 30 })).rejects.toMatchObject({ kind: 'timeout' });
    rpc.close('gone');
    await expect(rpc.request('late', {}, { timeoutMs: 30 })).rejects.toMatchObject({ kind: 'closed' });
  });
});

describe('the JSON-RPC connection', () => {
  const frame = (body: string) => Buffer.concat([Buffer.from(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n`), Buffer.from(body)]);
  const pair = () => {
    const fromServer = new PassThrough();
    const toServer = new PassThrough();
    const sent: string[] = [];
    toServer.on('data', (d: Buffer) => sent.push(d.toString()));
    return { rpc: new RpcConnection(fromServer, toServer), fromServer, sent };
  };

  it('a stopped request is cancelled on the server; an unknown or failing server request gets an error answer', async () => {
    const { rpc, fromServer, sent } = pair();
    const stop = new AbortController();
    const asked = rpc.request('slow', {}, { timeoutMs: 5000, signal: stop.signal });
    stop.abort();
    await expect(asked).rejects.toMatchObject({ kind: 'aborted' });
    rpc.onRequest('boom', () => {
      throw new Error('no such setting');
    });
    fromServer.write(frame('{"jsonrpc":"2.0","id":3,"method":"unknown/thing"}'));
    fromServer.write(frame('{"jsonrpc":"2.0","id":4,"method":"boom","params":{}}'));
    await new Promise((r) => setTimeout(r, 20));
    const out = sent.join('');
    expect(out).toContain('"method":"$/cancelRequest","params":{"id":0}');
    expect(out).toContain('{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Clamp does not handle unknown/thing"}}');
    expect(out).toContain('{"jsonrpc":"2.0","id":4,"error":{"code":-32603,"message":"no such setting"}}');
  });

  it('an unreadable message is skipped; a header without a length closes the connection', async () => {
    const { rpc, fromServer } = pair();
    const answer = rpc.request<number>('ask', {}, { timeoutMs: 5000 });
    fromServer.write(frame('{not json'));
    fromServer.write(frame('{"jsonrpc":"2.0","id":0,"result":42}'));
    await expect(answer).resolves.toBe(42);
    const next = rpc.request('ask', {}, { timeoutMs: 5000 });
    fromServer.write('Content-Type: text/plain\r\n\r\n');
    await expect(next).rejects.toMatchObject({ kind: 'closed', message: 'ask: the server wrote something that is not an LSP message' });
    expect(rpc.closed).toBe(true);
  });
});

describe('file patterns', () => {
  it('a pattern without a slash matches the name; ** crosses folders; braces list choices', () => {
    expect(matchesPatterns('src/deep/a.tsx', ['*.{ts,tsx}'])).toBe(true);
    expect(matchesPatterns('src/a.py', ['*.{ts,tsx}'])).toBe(false);
    expect(matchesPatterns('pkg/x/main.go', ['pkg/**/*.go'])).toBe(true);
    expect(matchesPatterns('main.go', ['pkg/**/*.go'])).toBe(false);
    expect(globRegex('**/*.rs').test('a/b/c.rs')).toBe(true);
    expect(globRegex('**/*.rs').test('c.rs')).toBe(true);
  });
});
