import { errorResponse, json, parseJson, serverConfig } from '@/lib/server/http';
import { openDb } from '@/lib/store/db';
import { createSession, listSessions } from '@/lib/store/sessions';
import { BUDGET } from '@/lib/contract/budget';
import { sessionCreateBody, type SessionAnswer, type SessionListAnswer } from '@/lib/contract/rest';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** The workspace's sessions, most recently active first: { sessions: SessionSummary[] }. */
export async function GET(): Promise<Response> {
  try {
    const cfg = serverConfig();
    return json<SessionListAnswer>({ sessions: listSessions(openDb(cfg.dataDir), cfg.workspace) });
  } catch (err) {
    return errorResponse(err);
  }
}

/** Create a session ({ title?, mode? }): 201 { session: SessionSummary }. */
export async function POST(req: Request): Promise<Response> {
  try {
    const body = await parseJson(req, sessionCreateBody, BUDGET.API_BODY_MAX_BYTES);
    const cfg = serverConfig();
    const { workspace: _workspace, ...session } = createSession(openDb(cfg.dataDir), { workspace: cfg.workspace, ...body }, cfg.mode);
    return json<SessionAnswer>({ session }, 201);
  } catch (err) {
    return errorResponse(err);
  }
}
