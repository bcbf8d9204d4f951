import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A tiny stand-in for Ollama's own API on loopback: GET /api/tags lists the given models in Ollama's
 * shape ({ models: [{ name, model, size, … }] }); every other path answers 404 as Ollama does.
 */
export async function startFakeOllama(models: string[]) {
  const server = http.createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/api/tags') {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify({ models: models.map((name) => ({ name, model: name, modified_at: '2026-01-01T00:00:00Z', size: 1, digest: 'x', details: { format: 'gguf' } })) }));
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
    res.end('404 page not found');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise<void>((r) => server.close(() => r())) };
}
