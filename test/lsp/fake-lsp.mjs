#!/usr/bin/env node
// A stand-in language server for the tests: `never` reads and never answers; `push` publishes a
// diagnostic for every line holding BAD after each open or change (and exits on CRASH); `pull` answers
// textDocument/diagnostic the same way. `--init-delay-ms N`: a slow start, initialize answered after N ms.
const mode = process.argv[2] ?? 'push';
const delayAt = process.argv.indexOf('--init-delay-ms');
const initDelayMs = delayAt > 0 ? Number(process.argv[delayAt + 1]) : 0;
let buf = Buffer.alloc(0);
const docs = new Map();
function send(msg) {
  const body = Buffer.from(JSON.stringify(msg));
  process.stdout.write(Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`), body]));
}
function diagnostics(text) {
  return text.split('\n').flatMap((line, i) => {
    const at = line.indexOf('BAD');
    return at < 0 ? [] : [{ range: { start: { line: i, character: at }, end: { line: i, character: at + 3 } }, severity: 1, code: 'bad', source: 'fake', message: `BAD is not allowed here` }];
  });
}
function onMessage(m) {
  if (mode === 'never') return;
  if (m.method === 'initialize') return setTimeout(() => send({ jsonrpc: '2.0', id: m.id, result: { capabilities: { textDocumentSync: 1, ...(mode === 'pull' ? { diagnosticProvider: { interFileDependencies: false, workspaceDiagnostics: false } } : {}) } } }), initDelayMs);
  if (m.method === 'shutdown') return send({ jsonrpc: '2.0', id: m.id, result: null });
  if (m.method === 'exit') process.exit(0);
  if (m.method === 'textDocument/didOpen' || m.method === 'textDocument/didChange') {
    const uri = m.params.textDocument.uri;
    const text = m.method === 'textDocument/didOpen' ? m.params.textDocument.text : m.params.contentChanges.at(-1).text;
    if (text.includes('CRASH')) process.exit(3);
    docs.set(uri, text);
    if (mode === 'push') setTimeout(() => send({ jsonrpc: '2.0', method: 'textDocument/publishDiagnostics', params: { uri, version: m.params.textDocument.version, diagnostics: diagnostics(text) } }), 20);
    return;
  }
  if (m.method === 'textDocument/diagnostic') return send({ jsonrpc: '2.0', id: m.id, result: { kind: 'full', items: diagnostics(docs.get(m.params.textDocument.uri) ?? '') } });
  if (m.id !== undefined) send({ jsonrpc: '2.0', id: m.id, result: null });
}
process.stdin.on('data', (d) => {
  buf = Buffer.concat([buf, d]);
  for (;;) {
    const end = buf.indexOf('\r\n\r\n');
    if (end < 0) return;
    const n = Number(/Content-Length: (\d+)/i.exec(buf.subarray(0, end).toString())[1]);
    if (buf.length < end + 4 + n) return;
    const msg = JSON.parse(buf.subarray(end + 4, end + 4 + n).toString());
    buf = buf.subarray(end + 4 + n);
    onMessage(msg);
  }
});
