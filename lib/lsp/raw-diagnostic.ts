/**
 * A diagnostic as a server reported it, before its path is known: from an LSP `Diagnostic` (pushed or
 * pulled) or from one of tsserver's own diagnostics (the built-in TypeScript server's synchronous check).
 */
import { DiagnosticSeverity, type Diagnostic } from 'vscode-languageserver-protocol';
import type { FileDiagnostic } from '../contract/diagnostics';

/** A diagnostic as a server reported it (a FileDiagnostic before its path is known). */
export type RawDiagnostic = Omit<FileDiagnostic, 'path'>;

/** One of tsserver's diagnostics (the answer to `typescript.tsserverRequest`; LSP has no type for it). */
export interface TsDiagnostic {
  start?: { line?: number; offset?: number };
  text?: string;
  code?: number;
  category?: string;
  source?: string;
}

const SEVERITY: Record<DiagnosticSeverity, RawDiagnostic['severity']> = {
  [DiagnosticSeverity.Error]: 'error',
  [DiagnosticSeverity.Warning]: 'warning',
  [DiagnosticSeverity.Information]: 'info',
  [DiagnosticSeverity.Hint]: 'hint',
};
const TS_CATEGORY: Record<string, RawDiagnostic['severity']> = { error: 'error', warning: 'warning', suggestion: 'hint', message: 'info' };

/** An LSP diagnostic; a server's missing fields read as the start of the file, an error, no message. */
export function fromLsp(d: Partial<Diagnostic>): RawDiagnostic {
  const message = typeof d.message === 'object' && d.message !== null ? d.message.value : d.message;
  return {
    line: (d.range?.start?.line ?? 0) + 1,
    column: (d.range?.start?.character ?? 0) + 1,
    severity: SEVERITY[d.severity ?? DiagnosticSeverity.Error] ?? 'error',
    message: String(message ?? ''),
    ...(d.code !== undefined && d.code !== null ? { code: d.code } : {}),
    ...(d.source ? { source: d.source } : {}),
  };
}

/** A tsserver diagnostic (its lines and offsets count from 1 already). */
export function fromTs(d: TsDiagnostic): RawDiagnostic {
  return {
    line: d.start?.line ?? 1,
    column: d.start?.offset ?? 1,
    severity: TS_CATEGORY[d.category ?? 'error'] ?? 'error',
    message: String(d.text ?? ''),
    ...(d.code !== undefined ? { code: d.code } : {}),
    source: d.source ?? 'ts',
  };
}
