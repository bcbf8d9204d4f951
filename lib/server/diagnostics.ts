/**
 * Diagnostics after edits for the server: the on/off setting (CLAMP_DIAGNOSTICS wins over the saved
 * one), the service a session's tools get as ctx.services.diagnostics, the settings route's logic, and
 * where late reports go when no turn takes them (the call's stored message; the next user message).
 */
import type { DiagnosticsService, DiagnosticsSettingsUpdate, DiagnosticsSettingsView, LateDiagnostics, LateDiagnosticsAnswer } from '../contract/diagnostics';
import type { ClampMessage } from '../contract/protocol';
import type { ToolResult } from '../contract/types';
import { appendMessage, loadMessages } from '../store/messages';
import { requireSession } from '../store/sessions';
import { lateDiagnosticsOf, takeLateNotes } from '../dispatch/late-diagnostics';
import type { Db } from '../store/db';
import { getSetting, setSetting } from '../store/settings';
import { createDiagnostics, stopLanguageServers } from '../lsp/service';

const KEY = 'diagnostics';
const ON = ['1', 'on', 'true', 'yes'];
const OFF = ['0', 'off', 'false', 'no'];

/** CLAMP_DIAGNOSTICS as a switch: undefined when unset or not a switch (the view reports the latter). */
function envSwitch(env: NodeJS.ProcessEnv): boolean | undefined {
  const v = env.CLAMP_DIAGNOSTICS?.trim().toLowerCase();
  if (!v) return undefined;
  if (ON.includes(v)) return true;
  if (OFF.includes(v)) return false;
  return undefined;
}

function saved(db: Db): boolean {
  return getSetting<{ enabled?: boolean }>(db, KEY)?.enabled ?? true;
}

/** Whether diagnostics after edits are on: CLAMP_DIAGNOSTICS when it says, else the settings page (on by default). */
export function diagnosticsEnabled(db: Db, env: NodeJS.ProcessEnv = process.env): boolean {
  return envSwitch(env) ?? saved(db);
}

/** The service for one session's tools; the setting is read at each call. A late report no turn took is stored with its call. */
export function diagnosticsFor(db: Db, workspace: string, dataDir: string, env: NodeJS.ProcessEnv = process.env): DiagnosticsService {
  const service = createDiagnostics({ workspace, dataDir, env, enabled: () => diagnosticsEnabled(db, env) });
  return { covers: (abs) => service.covers(abs), check: (files, signal) => service.check(files, signal), warm: (abs) => service.warm?.(abs), keepLate: (sessionId, late) => storeLate(db, sessionId, late) };
}

function isCallOf(p: ClampMessage['parts'][number], late: LateDiagnostics): boolean {
  if (!('toolCallId' in p) || p.toolCallId !== late.toolCallId || !('output' in p)) return false;
  const out = p.output as ToolResult | undefined;
  return out?.meta?.diagnostics?.lateId === late.lateId;
}

/** A late report kept in the message of the call it belongs to (a data-diagnostics part, replaced when it is there), so a reload shows it. */
export function storeLate(db: Db, sessionId: string, late: LateDiagnostics): void {
  const messages = loadMessages(db, sessionId);
  const id = `diagnostics-${late.lateId}`;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role !== 'assistant' || !m.parts.some((p) => isCallOf(p, late))) continue;
    const parts = m.parts.filter((p) => !(p.type === 'data-diagnostics' && p.id === id));
    appendMessage(db, sessionId, { ...m, parts: [...parts, { type: 'data-diagnostics', id, data: late }] });
    return;
  }
}

/** A new user message with the late reports the model has not read yet (a data-diagnostics-note part it reads as text). */
export function withLateNote(messages: ClampMessage[], sessionId: string): ClampMessage[] {
  const last = messages.at(-1);
  if (last?.role !== 'user') return messages;
  const note = takeLateNotes(sessionId);
  if (!note) return messages;
  return [...messages.slice(0, -1), { ...last, parts: [...last.parts, { type: 'data-diagnostics-note', data: note }] }];
}

/** GET /api/sessions/[id]/diagnostics: the session's late reports that arrived, and the ids still being checked; StoreError 'not-found' for an unknown session. */
export function lateDiagnosticsView(db: Db, workspace: string, sessionId: string): LateDiagnosticsAnswer {
  requireSession(db, sessionId, workspace);
  return lateDiagnosticsOf(sessionId);
}

/** GET /api/settings/diagnostics: on or off and why, and every language server with how it stands. */
export function diagnosticsSettingsView(db: Db, workspace: string, dataDir: string, env: NodeJS.ProcessEnv = process.env): DiagnosticsSettingsView {
  const status = createDiagnostics({ workspace, dataDir, env, enabled: () => true }).status();
  const raw = env.CLAMP_DIAGNOSTICS?.trim();
  return {
    enabled: diagnosticsEnabled(db, env),
    saved: saved(db),
    ...(raw ? { env: raw } : {}),
    ...(raw && envSwitch(env) === undefined ? { envProblem: `CLAMP_DIAGNOSTICS=${raw} is not a switch; use 1 or 0 (on or off). The saved setting applies meanwhile.` } : {}),
    ...status,
  };
}

/** PUT /api/settings/diagnostics: save the switch; turning it off stops the workspace's language servers. */
export async function updateDiagnosticsSettings(db: Db, workspace: string, dataDir: string, body: DiagnosticsSettingsUpdate, env: NodeJS.ProcessEnv = process.env): Promise<DiagnosticsSettingsView> {
  setSetting(db, KEY, { enabled: body.enabled });
  if (!diagnosticsEnabled(db, env)) await stopLanguageServers(workspace);
  return diagnosticsSettingsView(db, workspace, dataDir, env);
}
