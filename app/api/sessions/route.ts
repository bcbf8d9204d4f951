import { z } from 'zod';
import { errorResponse, json, parseJson, serverConfig } from '@/lib/server/http';
import { openDb } from '@/lib/store/db';
import { createSession, listSessions } from '@/lib/store/sessions';
import { BUDGET } from '@/lib/contract/budget';
import { PERMISSION_MODES, type PermissionMode } from '@/lib/contract/types';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

const createBody = z.strictObject({
  title: z.string().trim().min(1).max(BUDGET.SESSION_TITLE_MAX_CHARS).optional(),
  mode: z.enum(PERMISSION_MODES as [PermissionMode, ...PermissionMode[]]).optional(),
});

/** The workspace's sessions, most recently active first: { sessions: SessionSummary[] }. */
export async function GET(): Promise<Response> {
  try {
    const cfg = serverConfig();
    return json({ sessions: listSessions(openDb(cfg.dataDir), cfg.workspace) });
  } catch (err) {
    return errorResponse(err);
  }
}

/** Create a session ({ title?, mode? }): 201 { session: SessionSummary }. */
export async function POST(req: Request): Promise<Response> {
  try {
    const body = await parseJson(req, createBody, BUDGET.API_BODY_MAX_BYTES);
    const cfg = serverConfig();
    const { workspace: _workspace, ...session } = createSession(openDb(cfg.dataDir), { workspace: cfg.workspace, ...body }, cfg.mode);
    return json({ session }, 201);
  } catch (err) {
    return errorResponse(err);
  }
}
