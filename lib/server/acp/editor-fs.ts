import fs from 'node:fs';
import type { AgentContext, ClientCapabilities } from '@agentclientprotocol/sdk';
import { EDITOR_FILES, type EditorFiles } from '../../contract/editor-files';
import type { ToolResult } from '../../contract/types';
import type { AgentHost } from '../../agent/host';
import { createToolRegistry } from '../../dispatch/all-tools';
import { isInside } from '../../policy/workspace';
import { writtenPaths } from './tool-view';

/**
 * The editor's file system, when it offers one (`fs.readTextFile`, `fs.writeTextFile`). Reads: read_file reads a
 * file's text as the editor has it (unsaved changes included), after dispatch confined the path as for any read.
 * Writes: the write tools change the file on disk as always — through dispatch, the policy, the write-ahead
 * journal and the checkpoint before the turn's first change, confined to the workspace — and then the editor is
 * given the new text, so its buffer holds the change (an open file does not go stale behind the person's back).
 * Terminals are not used: a command in the editor's terminal would run outside Clamp's sandbox, so commands keep
 * running in Clamp's own runner (README: "Clamp in an editor").
 */

/** The editor's read of a file for read_file; undefined (the disk's text is read) when the editor cannot give it. */
function editorReads(client: AgentContext, sessionId: string): EditorFiles {
  return {
    read: async (abs, signal) => {
      try {
        const r = await client.request('fs/read_text_file', { sessionId, path: abs }, { cancellationSignal: signal, stopWaitingOnCancel: true });
        return typeof r.content === 'string' ? r.content : undefined;
      } catch {
        return undefined;
      }
    },
  };
}

/** The text now on disk of a file a call wrote, when it is a regular file still inside the workspace (by its real path). */
function writtenText(abs: string, workspace: string): string | undefined {
  try {
    const real = fs.realpathSync(abs);
    if (!isInside(workspace, real) || !fs.statSync(real).isFile()) return undefined;
    return fs.readFileSync(real, 'utf8');
  } catch {
    return undefined;
  }
}

/** After a call wrote files: the editor is given each one's new text. Never throws. */
function followWrites(client: AgentContext, sessionId: string, workspace: string): (toolName: string, input: unknown, r: ToolResult) => void {
  const reg = createToolRegistry();
  return (toolName, input, r) => {
    if (r.status !== 'ok') return;
    for (const abs of writtenPaths(reg, workspace, toolName, input)) {
      const content = writtenText(abs, workspace);
      if (content === undefined) continue;
      client.request('fs/write_text_file', { sessionId, path: abs, content }).catch((err: unknown) => {
        process.stderr.write(`clamp acp: the editor did not take the new text of ${abs}: ${err instanceof Error ? err.message : String(err)}\n`);
      });
    }
  };
}

/** What a session of this editor adds to the turn's host and to each finished call, by what the editor offers. */
export function editorSession(client: AgentContext, sessionId: string, workspace: string, caps: ClientCapabilities): { host?: (stored: AgentHost) => AgentHost; onResult?: (toolName: string, input: unknown, r: ToolResult) => void } {
  const reads = caps.fs?.readTextFile === true;
  const writes = caps.fs?.writeTextFile === true;
  return {
    // a host of the caller's own: the person is in the editor, not on the page (ask_user says nobody can answer there)
    host: (stored) => (reads ? { ...stored, services: { ...stored.services, [EDITOR_FILES]: editorReads(client, sessionId) } } : stored),
    ...(writes ? { onResult: followWrites(client, sessionId, workspace) } : {}),
  };
}
