import { z } from 'zod';

/**
 * Diagnostics after edits: the shapes shared by the language-server client (lib/lsp), dispatch (which
 * asks for them after a write tool ran) and the page (which shows them on the tool card).
 */

/** One problem a language server reported, in 1-based lines and columns. */
export interface FileDiagnostic {
  /** workspace-relative path, `/`-separated */
  path: string;
  line: number;
  column: number;
  severity: 'error' | 'warning' | 'info' | 'hint';
  message: string;
  /** the server's code for it (TypeScript: 2322), when it gives one */
  code?: string | number;
  /** who reported it (`ts`, `pyright` …) */
  source?: string;
}

/** What a result's meta carries about the diagnostics a write tool's change was checked for. */
export interface DiagnosticsMeta {
  /** the language server(s) that checked the files */
  servers: string[];
  /**
   * 'checked': the answer came; 'not-ready': the timeout passed first (or the call was stopped); 'failed': the
   * server stopped or refused; 'pending': no answer within DIAGNOSTICS_WAIT_MS, so the result went back without
   * it and the check goes on: its report follows as a LateDiagnostics with this `lateId`
   */
  state: 'checked' | 'not-ready' | 'failed' | 'pending';
  /** new errors the change introduced (all of them, also those the model was not shown) */
  newErrors: FileDiagnostic[];
  /** how many of them the model was shown */
  shown: number;
  /** errors that were already there before the change and still are */
  preexisting: number;
  /** why it is not 'checked' */
  note?: string;
  /** how long asking took */
  durationMs: number;
  /** 'pending': the id its late report carries (unique; tool call ids may repeat) */
  lateId?: string;
}

/** A file a write tool is about to change: its text before (null when it did not exist or is not text). */
export interface FileBefore {
  abs: string;
  rel: string;
  before: string | null;
}

/** The diagnostics report dispatch appends to a write tool's result. */
export interface DiagnosticsReport {
  /** the text appended to the output ('' when there is nothing to tell the model) */
  text: string;
  meta: DiagnosticsMeta;
  /** 'pending': the whole report once the check ends (never rejects; it ends by DIAGNOSTICS_TIMEOUT_MS) */
  late?: Promise<DiagnosticsReport>;
}

/**
 * The report of a check that outlived its call's result (data-diagnostics): it goes to the page (the card of
 * `toolCallId` shows it in place of its pending meta) and, as text, to the model with its next tool result or
 * the next user message.
 */
export interface LateDiagnostics {
  /** the pending meta's lateId */
  lateId: string;
  toolCallId: string;
  toolName: string;
  /** the files the change was checked for, workspace-relative */
  paths: string[];
  diagnostics: DiagnosticsMeta;
  /** when it arrived (epoch ms) */
  at: number;
}

/** The data parts of late diagnostics (part of ClampDataParts, lib/contract/protocol.ts). */
export type DiagnosticsDataParts = {
  /** diagnostics of a change that arrived after its result (the card of its call shows them in place of "pending") */
  diagnostics: LateDiagnostics;
  /** in a user message: late diagnostics the model had not read yet; its next request reads them as text */
  'diagnostics-note': { text: string; lateIds: string[] };
};

/** GET /api/sessions/[id]/diagnostics: the session's late reports that arrived, and the ids still being checked. */
export interface LateDiagnosticsAnswer {
  arrived: LateDiagnostics[];
  /** lateIds whose check goes on */
  checking: string[];
}

/**
 * The service a host injects as `ctx.services.diagnostics` (lib/lsp implements it). Never throws:
 * a server that is missing, slow or broken shows in the report's meta, never as a tool error.
 */
export interface DiagnosticsService {
  /** whether diagnostics are on and some language server covers this file (cheap: no I/O) */
  covers(abs: string): boolean;
  /** the files' new errors after a change; undefined when no file is covered */
  check(files: FileBefore[], signal: AbortSignal): Promise<DiagnosticsReport | undefined>;
  /** a covered file was read: start its server and open the file now, so its first edit finds it warm (returns at once) */
  warm?(abs: string): void;
  /** a late report no running turn of the session took: keep it with the session's conversation (the server stores it in the call's message). Never throws. */
  keepLate?(sessionId: string, late: LateDiagnostics): void;
}

/** The service in ctx.services, when the host injected a usable one. */
export function diagnosticsServiceOf(services: Record<string, unknown>): DiagnosticsService | undefined {
  const s = services.diagnostics as Partial<DiagnosticsService> | undefined;
  return s && typeof s.covers === 'function' && typeof s.check === 'function' ? (s as DiagnosticsService) : undefined;
}

/** How one language server stands, as the settings page lists it. */
export interface LanguageServerView {
  name: string;
  /** the command line (the built-in server is named as such) */
  command: string;
  patterns: string[];
  /** 'missing': its program is not installed; 'needs-sandbox': it is set to run sandboxed and bubblewrap cannot run */
  state: 'running' | 'starting' | 'idle' | 'failed' | 'missing' | 'needs-sandbox';
  /** what the state means, with the fix where there is one */
  detail?: string;
  /** it runs under bubblewrap: the file system read-only, no network */
  sandboxed: boolean;
  /** the built-in server: whose TypeScript it runs (the workspace's only inside the sandbox) */
  typescript?: 'workspace' | 'clamp';
}

/** GET and PUT /api/settings/diagnostics. */
export interface DiagnosticsSettingsView {
  /** diagnostics after edits are on (the environment's word when it sets one, else the saved setting) */
  enabled: boolean;
  /** the saved setting */
  saved: boolean;
  /** CLAMP_DIAGNOSTICS as set in the server's environment (it wins over the saved setting) */
  env?: string;
  /** CLAMP_DIAGNOSTICS holds something other than on/off, with the fix */
  envProblem?: string;
  servers: LanguageServerView[];
  /** the file the servers are configured in (it may not exist yet) */
  configPath: string;
  /** why that file was not used, with the fix */
  configProblem?: string;
}

/** PUT /api/settings/diagnostics: turn diagnostics after edits on or off. */
export const diagnosticsSettingsBody = z.strictObject({ enabled: z.boolean() });
export type DiagnosticsSettingsUpdate = z.infer<typeof diagnosticsSettingsBody>;
