import { errorResponse, HttpError, json, routeId, serverConfig } from '@/lib/server/http';
import { exportJson, exportMarkdown } from '@/lib/server/session-io';
import { openDb } from '@/lib/store/db';
import type { SessionExport } from '@/lib/contract/session-export';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

function fileName(title: string, ext: string): string {
  const base = title.replace(/[^\w.-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'session';
  return `clamp-${base}.${ext}`;
}

/** ?format=json (the default: every stored message, importable) or ?format=md (for people); sent as a download. */
export async function GET(req: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  try {
    const id = routeId((await params).id, 'Session');
    const cfg = serverConfig();
    const db = openDb(cfg.dataDir);
    const format = new URL(req.url).searchParams.get('format') ?? 'json';
    if (format === 'md') {
      const { title, text } = exportMarkdown(db, cfg.workspace, id);
      return new Response(text, { headers: { 'content-type': 'text/markdown; charset=utf-8', 'content-disposition': `attachment; filename="${fileName(title, 'md')}"`, 'cache-control': 'no-store' } });
    }
    if (format !== 'json') throw new HttpError(400, `Unknown export format "${format}". Use ?format=json or ?format=md.`);
    const data = exportJson(db, cfg.workspace, id);
    const res = json<SessionExport>(data);
    res.headers.set('content-disposition', `attachment; filename="${fileName(data.session.title, 'json')}"`);
    return res;
  } catch (err) {
    return errorResponse(err);
  }
}
