import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { spawnTurn } from '../../lib/exec/spawn-turn';

/** Busy the event loop the way a process start does (fork and exec are synchronous). */
function busy(ms: number) {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe('spawnTurn: one process start per pass of the event loop', () => {
  it('takes callers in the order they asked', async () => {
    const order: number[] = [];
    await Promise.all(Array.from({ length: 8 }, (_, i) => spawnTurn().then(() => order.push(i))));
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it('a request that arrives during a burst of starts is served between them, not after the burst', async () => {
    const events: string[] = [];
    const server = net.createServer((s) => s.on('data', () => (events.push('request'), s.end('ok'))));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as net.AddressInfo).port;
    const client = net.connect(port, '127.0.0.1');
    await new Promise<void>((r) => client.on('connect', r));
    const answered = new Promise<void>((r) => client.on('data', () => r()));
    // twenty sessions start a command at once; each start busies the loop for 20 ms
    const starts = Array.from({ length: 20 }, (_, i) =>
      spawnTurn().then(() => {
        if (i === 0) client.write('status?');
        busy(20);
        events.push('start');
      }),
    );
    await Promise.all(starts);
    await answered;
    client.destroy();
    server.close();
    // without turns the request waits for all twenty (index 20); with them it is served within a few
    expect(events.indexOf('request')).toBeGreaterThan(-1);
    expect(events.indexOf('request')).toBeLessThan(5);
  });
});
