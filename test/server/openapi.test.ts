import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUDGET } from '../../lib/contract/budget';
import { ROOT } from '../../lib/server/build';
import { API_ROUTES, documentedSchema, openApiDocument, REQUEST_SCHEMAS, type Method } from '../../lib/server/openapi';
import { tempWorkspace } from '../helpers';
import { startClamp, type RunningClamp } from './harness';

const API = path.join(ROOT, 'app/api');
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

interface RouteFile {
  file: string;
  /** the OpenAPI path: app/api/sessions/[id]/route.ts → /api/sessions/{id} */
  path: string;
  methods: Method[];
  /** the schema the body is parsed with, the module it is imported from, and the byte limits' BUDGET names */
  body?: { name: string; from: string; limits: string[] };
}

/**
 * The schema a source parses a body with: route({ body: schema, maxBytes: BUDGET.X }, …) or parseJson(req, schema, BUDGET.X)
 * in a route, or parseJsonText(text, schema) in a reader it calls.
 */
function parsedBody(src: string, where: string): RouteFile['body'] {
  const call =
    /\bbody:\s*(\w+)\s*,\s*maxBytes:\s*BUDGET\.(\w+)/.exec(src) ??
    /parseJson\(\s*[\w.]+\s*,\s*(\w+)\s*,\s*BUDGET\.(\w+)\s*\)/.exec(src) ??
    /parseJsonText\(\s*\w+\s*,\s*(\w+)\s*\)/.exec(src);
  if (!call) {
    if (/parseJson(Text)?\(|\bbody:/.test(src)) throw new Error(`${where}: a body is parsed in a way this test cannot read; declare it as route({ body: schema, maxBytes: BUDGET.NAME }, …)`);
    return undefined;
  }
  const name = call[1];
  const imp = [...src.matchAll(/import\s*\{([^}]*)\}\s*from\s*'([^']+)'/g)].find((m) => m[1].split(',').some((n) => n.trim() === name));
  if (!imp) throw new Error(`${where}: ${name} is not imported by name`);
  const from = imp[2].startsWith('.') ? '@/' + path.relative(ROOT, path.resolve(path.dirname(where), imp[2])) : imp[2];
  const limits = call[2] ? [call[2]] : [...new Set([...src.matchAll(/BUDGET\.(\w+_BYTES)/g)].map((m) => m[1]))];
  return { name, from, limits };
}

function routeFiles(dir = API): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return routeFiles(p);
    return e.name === 'route.ts' ? [p] : [];
  });
}

function readRoute(file: string): RouteFile {
  const src = fs.readFileSync(file, 'utf8');
  const rel = path.relative(path.join(ROOT, 'app'), path.dirname(file)).split(path.sep);
  const apiPath = '/' + rel.map((s) => s.replace(/^\[(\w+)\]$/, '{$1}')).join('/');
  const methods = METHODS.filter((m) => new RegExp(`export\\s+(async\\s+)?function\\s+${m}\\b|export\\s+const\\s+${m}\\b`).test(src)).map((m) => m.toLowerCase() as Method);
  let body = parsedBody(src, file);
  // a route that hands its request to a reader in lib/server (readChatBody): the reader's schema
  for (const m of body ? [] : src.matchAll(/import\s*\{[^}]*\}\s*from\s*'@\/(lib\/server\/[^']+)'/g)) {
    const reader = path.join(ROOT, m[1] + '.ts');
    if (!/\((c\.)?req\)/.test(src) || !fs.existsSync(reader)) continue;
    body = parsedBody(fs.readFileSync(reader, 'utf8'), reader);
    if (body) break;
  }
  return { file: path.relative(ROOT, file), path: apiPath, methods, body };
}

async function importContract(spec: string): Promise<Record<string, unknown>> {
  const abs = spec.startsWith('@/') ? path.join(ROOT, spec.slice(2)) : spec;
  return (await import(abs + '.ts')) as Record<string, unknown>;
}

type Doc = { paths: Record<string, Record<string, { requestBody?: { description: string; content: Record<string, { schema: { $ref: string } }> } }>>; components: { schemas: Record<string, unknown> } };

describe('the OpenAPI document', () => {
  const doc = openApiDocument() as unknown as Doc;
  const routes = routeFiles().map(readRoute);

  it('has every route file and each of its methods, and nothing else', () => {
    expect(routes.length).toBeGreaterThan(15);
    const missing: string[] = [];
    for (const r of routes) {
      expect(r.methods.length, `${r.file} exports no method`).toBeGreaterThan(0);
      for (const m of r.methods) if (!doc.paths[r.path]?.[m]) missing.push(`${m.toUpperCase()} ${r.path} (${r.file}): add it to API_ROUTES in lib/server/openapi.ts`);
    }
    expect(missing).toEqual([]);
    const documented = Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m} ${p}`));
    const real = new Set(routes.flatMap((r) => r.methods.map((m) => `${m} ${r.path}`)));
    expect(documented.filter((d) => !real.has(d))).toEqual([]);
  });

  it("documents each request body as exactly the schema its route parses with, and its byte limit", async () => {
    const withBody = routes.filter((r) => r.body).map((r) => r.path);
    for (const p of ['/api/chat', '/api/sessions', '/api/sessions/{id}', '/api/sessions/{id}/approvals/{toolCallId}', '/api/settings']) expect(withBody).toContain(p);
    for (const r of routes) {
      for (const m of r.methods) {
        const op = doc.paths[r.path][m];
        // a route file parses one body, in its one writing method
        const parses = !!r.body && m !== 'get' && m !== 'delete';
        if (!parses) {
          expect(op.requestBody, `${m} ${r.path} has no body`).toBeUndefined();
          continue;
        }
        const actual = (await importContract(r.body!.from))[r.body!.name];
        expect(actual, `${r.file}: ${r.body!.name} from ${r.body!.from}`).toBeDefined();
        const refName = op.requestBody!.content['application/json'].schema.$ref.replace('#/components/schemas/', '');
        expect(REQUEST_SCHEMAS[refName], `${m} ${r.path} documents ${refName}, the route parses ${r.body!.name}`).toBe(actual);
        expect(doc.components.schemas[refName]).toEqual(documentedSchema(actual as never, 'input'));
        for (const name of r.body!.limits) {
          const limit = (BUDGET as Record<string, number>)[name];
          expect(limit, name).toBeTypeOf('number');
          expect(op.requestBody!.description, `${m} ${r.path}: the route reads at most BUDGET.${name}`).toContain(`${limit} bytes`);
        }
        expect(r.body!.limits.length).toBeGreaterThan(0);
      }
    }
  });

  it('resolves every $ref, and is an OpenAPI 3.1 document with the token door as its security', () => {
    const text = JSON.stringify(doc);
    const refs = [...text.matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]);
    expect(refs.length).toBeGreaterThan(20);
    expect(refs.filter((r) => !(r in doc.components.schemas))).toEqual([]);
    expect(doc).toMatchObject({ openapi: '3.1.0', security: [{ bearer: [] }, { cookie: [] }] });
    // a schema drawn from the contract, not typed by hand
    expect(doc.components.schemas.ApprovalAnswerBody).toMatchObject({ properties: { answer: { enum: ['once', 'session', 'always', 'edit', 'deny'] } }, required: ['answer'] });
    expect(Object.keys(API_ROUTES).every((p) => p.startsWith('/api/'))).toBe(true);
  });
});

describe('GET /api/openapi.json', { timeout: 300_000 }, () => {
  let ws: ReturnType<typeof tempWorkspace>;
  let clamp: RunningClamp;
  beforeAll(async () => {
    ws = tempWorkspace();
    clamp = await startClamp({ CLAMP_WORKSPACE: ws.workspace, CLAMP_DATA_DIR: ws.dataDir });
  });
  afterAll(async () => {
    await clamp?.stop();
    ws.cleanup();
  });

  it('serves the document behind the token door (Bearer works for scripts)', async () => {
    const res = await clamp.api('/api/openapi.json');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(openApiDocument());
    const bare = await fetch(`${clamp.base}/api/openapi.json`);
    expect(bare.status).toBe(401);
    const bearer = await fetch(`${clamp.base}/api/openapi.json`, { headers: { authorization: `Bearer ${clamp.token}` } });
    expect(bearer.status).toBe(200);
  });
});
