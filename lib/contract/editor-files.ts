/**
 * An editor's view of the workspace's files (the Agent Client Protocol's `fs/read_text_file`): the text of a file
 * as the person sees it, unsaved changes included. The editor's session puts it in a call's services under
 * EDITOR_FILES; read_file then reads that text instead of the disk's, after dispatch confined the path as always.
 */

export const EDITOR_FILES = 'editorFiles';

export interface EditorFiles {
  /** the file's text in the editor (absolute path inside the workspace); undefined when the editor has none to give */
  read(abs: string, signal: AbortSignal): Promise<string | undefined>;
}

/** The editor's files, when the call's services carry them. */
export function editorFilesOf(services: Record<string, unknown> | undefined): EditorFiles | undefined {
  const s = services?.[EDITOR_FILES];
  return s && typeof s === 'object' && 'read' in s ? (s as EditorFiles) : undefined;
}
