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
  /** 'checked': the answer came; 'not-ready': the timeout passed first; 'failed': the server stopped or refused */
  state: 'checked' | 'not-ready' | 'failed';
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
