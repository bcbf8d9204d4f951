import { z } from 'zod';
import { BUDGET } from './budget';
import { PERMISSION_MODES, type PermissionMode } from './types';

/** What a JSON export says it is: Clamp imports only its own format, at this version. */
export const SESSION_EXPORT_FORMAT = 'clamp-session';
export const SESSION_EXPORT_VERSION = 1;

const part = z.looseObject({ type: z.string().min(1).max(200) });

/** One stored message as exported: the AI SDK's UIMessage shape (parts are checked for a type; the rest is kept). */
const exportedMessage = z.strictObject({
  id: z.string().min(1).max(200),
  role: z.enum(['user', 'assistant', 'system']),
  parts: z.array(part).max(100_000),
  metadata: z.unknown().optional(),
});

/** GET /api/sessions/[id]/export?format=json, and POST /api/sessions/import's body. */
export const sessionExportSchema = z.strictObject({
  format: z.literal(SESSION_EXPORT_FORMAT, { message: `is not "${SESSION_EXPORT_FORMAT}": this is not a Clamp session export` }),
  version: z.literal(SESSION_EXPORT_VERSION, { message: `must be ${SESSION_EXPORT_VERSION} (this Clamp reads version ${SESSION_EXPORT_VERSION} exports)` }),
  exportedAt: z.number().optional(),
  session: z.strictObject({
    title: z.string().trim().min(1).max(1000),
    mode: z.enum(PERMISSION_MODES as [PermissionMode, ...PermissionMode[]]).optional(),
    model: z.string().max(4200).optional(),
    createdAt: z.number().optional(),
    workspace: z.string().max(4096).optional(),
  }),
  messages: z.array(exportedMessage).max(BUDGET.SESSION_IMPORT_MAX_MESSAGES),
});
export type SessionExport = z.infer<typeof sessionExportSchema>;
