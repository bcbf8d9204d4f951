import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A tiny stand-in for Ollama's own API on loopback: GET /api/tags lists the given models in Ollama's
 * shape ({ models: [{ name, model, size, … }] }); with `contextLength`, POST /api/show answers each model's
 * trained length in its model_info (and counts the requests); every other path answers 404 as Ollama does.
 */
export async function startFakeOllama(models: string[], o: { contextLength?: number } = {}) {
  const showRequests: string[] = [];
  const server = http.createServer((req, res) => {
    if (req.method === 'POST' && req.url === '/api/show' && o.contextLength) {
      showRequests.push(req.url);
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify({ parameters: 'stop "<|im_end|>"', model_info: { 'general.architecture': 'qwen3', 'qwen3.context_length': o.contextLength } }));
      return;
    }
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
  return { url: `http://127.0.0.1:${port}`, showRequests, close: () => new Promise<void>((r) => server.close(() => r())) };
}
