import fs from 'node:fs';
import type { AgentContext, ClientCapabilities } from '@agentclientprotocol/sdk';
import { EDITOR_FILES, type EditorFiles } from '../../contract/editor-files';
import type { ToolResult } from '../../contract/types';
import type { AgentHost, RunningCall } from '../../agent/host';
import { createToolRegistry } from '../../dispatch/all-tools';
import { isInside } from '../../policy/workspace';
import { writtenPaths } from './tool-view';

/**
 * The editor's file system, when it offers one (`fs.readTextFile`, `fs.writeTextFile`). Reads: read_file reads a
 * file's text as the editor has it (unsaved changes included), after dispatch confined the path as for any read.
 * Writes: the write tools change the file on disk as always — through dispatch, the policy, the write-ahead
 * journal and the checkpoint before the turn's first change, confined to the workspace — and then the editor is
 * given the new text, so its buffer holds the change (an open file does not go stale behind the person's back) —
 * unless that buffer held unsaved changes before the call: the person's text is then left as it is.
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

/** How long Clamp waits for the editor's text of a file before a write call runs. */
const EDITOR_READ_WAIT_MS = 5000;

/** The files whose editor buffer held changes not on disk when a write call was about to run, by call. */
type Dirty = Map<string, Set<string>>;

/**
 * Before a write call runs: which of the files it writes have unsaved changes in the editor (the editor's text is
 * not the disk's). Their buffers are not replaced afterwards, so the person's unsaved text is never lost. Never throws.
 */
async function noteDirty(files: EditorFiles, workspace: string, call: RunningCall, dirty: Dirty): Promise<void> {
  if (call.effect === 'read') return;
  const found = new Set<string>();
  for (const abs of writtenPaths(createToolRegistry(), workspace, call.toolName, call.input)) {
    const disk = writtenText(abs, workspace);
    if (disk === undefined) continue;
    const shown = await files.read(abs, AbortSignal.timeout(EDITOR_READ_WAIT_MS));
    if (shown !== undefined && shown !== disk) found.add(abs);
  }
  if (found.size) dirty.set(call.toolCallId, found);
}

/** After a call wrote files: the editor is given each one's new text, unless its buffer held unsaved changes. Never throws. */
function followWrites(client: AgentContext, sessionId: string, workspace: string, dirty: Dirty): OnResult {
  const reg = createToolRegistry();
  return (toolCallId, toolName, input, r) => {
    const unsaved = dirty.get(toolCallId);
    dirty.delete(toolCallId);
    if (r.status !== 'ok') return;
    for (const abs of writtenPaths(reg, workspace, toolName, input)) {
      if (unsaved?.has(abs)) {
        process.stderr.write(`clamp acp: ${abs} had unsaved changes in the editor; its buffer was left as it is (the change is on disk).\n`);
        continue;
      }
      const content = writtenText(abs, workspace);
      if (content === undefined) continue;
      client.request('fs/write_text_file', { sessionId, path: abs, content }).catch((err: unknown) => {
        process.stderr.write(`clamp acp: the editor did not take the new text of ${abs}: ${err instanceof Error ? err.message : String(err)}\n`);
      });
    }
  };
}

/** A call finished with this result. */
export type OnResult = (toolCallId: string, toolName: string, input: unknown, r: ToolResult) => void;

/**
 * What a session of this editor adds to the turn's host and to each finished call, by what the editor offers.
 * Written files are handed to the editor only when it can also be read, so a buffer with unsaved changes is
 * recognised and kept.
 */
export function editorSession(client: AgentContext, sessionId: string, workspace: string, caps: ClientCapabilities): { host?: (stored: AgentHost) => AgentHost; onResult?: OnResult } {
  if (caps.fs?.readTextFile !== true) return {};
  const files = editorReads(client, sessionId);
  const dirty: Dirty = new Map();
  const writes = caps.fs?.writeTextFile === true;
  return {
    // the caller's own host (so the person is taken to be in the editor, not on the page), reading through the editor
    host: (stored) => ({
      ...stored,
      services: { ...stored.services, [EDITOR_FILES]: files },
      ...(writes
        ? {
            beforeRun: async (call: RunningCall) => {
              await noteDirty(files, workspace, call, dirty);
              await stored.beforeRun?.(call);
            },
          }
        : {}),
    }),
    ...(writes ? { onResult: followWrites(client, sessionId, workspace, dirty) } : {}),
  };
}
