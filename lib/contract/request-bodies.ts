import { z } from 'zod';
import { BUDGET } from './budget';

/**
 * The schemas of the request bodies whose types and helpers the page imports (chat-body.ts, command-text.ts,
 * limits.ts, workspace.ts): only the server loads this file, so zod stays out of the page's bundle. Those files
 * re-export the types.
 */

/** Ids the page sends: the session's and the messages' (the SDK's and the store's are short). */
const id = z.string().min(1).max(200);

/** A file the person attached: an image, or a text file (its bytes as a data: URL either way). */
export const attachedFileSchema = z.strictObject({
  name: z.string().trim().min(1).max(255),
  mediaType: z.string().trim().min(1).max(200),
  /** `data:<type>;base64,…`; the server decodes it and checks the size */
  url: z.string().startsWith('data:', { message: 'must be a data: URL (the file\'s bytes, base64)' }),
});
export type AttachedFile = z.infer<typeof attachedFileSchema>;

/**
 * The body of POST /api/chat, exactly what the server uses: a user message (its id and text), or a
 * continuation after the person answered approvals (the assistant message's id). The answers
 * themselves went to the approvals route and are read from the store; the server holds the
 * conversation, so nothing else of it is sent back.
 */
export const chatBodySchema = z
  .strictObject({
    sessionId: id,
    /** a user message: the page's id for it and its text */
    message: z
      .strictObject({
        id,
        text: z.string(),
        /** images and text files attached (paste, drop, the attach button) */
        files: z.array(attachedFileSchema).max(BUDGET.ATTACH_IMAGES_MAX_COUNT + BUDGET.ATTACH_TEXT_FILES_MAX_COUNT).optional(),
        /** sent as /<skill> [args]: the model is asked to load the skill */
        skill: z.strictObject({ name: z.string().trim().min(1).max(200), args: z.string().max(BUDGET.SKILL_ARGS_MAX_BYTES) }).optional(),
        /** sent as a command from a file (the text is its expansion): its allowed-tools and model hold for the turn */
        command: z.strictObject({ name: z.string().trim().min(1).max(200), args: z.string().max(BUDGET.SKILL_ARGS_MAX_BYTES) }).optional(),
      })
      .optional(),
    /** resume the latest assistant message, whose pending approvals have been answered */
    continue: z.strictObject({ messageId: id }).optional(),
  })
  .refine((b) => (b.message === undefined) !== (b.continue === undefined), {
    message: 'send either "message" ({ id, text }: a user message) or "continue" ({ messageId }: after answering approvals), not both',
  });
export type ChatBody = z.infer<typeof chatBodySchema>;

/** POST /api/prompts: a prompt's command and what was typed after it; answers { text } to send. */
export const promptBody = z.strictObject({ command: z.string().min(1).max(200), args: z.string().max(BUDGET.SKILL_ARGS_MAX_BYTES) });
export type PromptBody = z.infer<typeof promptBody>;

const tokenLimit = z.int().min(1).max(1e12).nullable();
const usdLimit = z.number().positive().max(1e6).nullable();
/** PUT /api/settings/limits: any of the limits (null removes one). */
export const limitSettingsBody = z.strictObject({ sessionTokens: tokenLimit, sessionCostUsd: usdLimit, dayTokens: tokenLimit, dayCostUsd: usdLimit }).partial();
export type LimitSettingsBody = z.infer<typeof limitSettingsBody>;

/** POST /api/workspaces: the folder to open (an absolute path, or one starting with ~/). */
export const workspaceOpenBody = z.strictObject({ path: z.string().trim().min(1, 'give the folder to open').max(4096) });
export type WorkspaceOpenBody = z.infer<typeof workspaceOpenBody>;
