import { createRegistry, type Registry } from './registry';
import type { AnyTool } from '../contract/types';
import type { UIToolsOf } from '../contract/tool-types';
import { readFileTool } from '../tools/read-file/read-file';
import { listDirTool } from '../tools/list-dir';
import { globTool } from '../tools/glob';
import { grepTool } from '../tools/grep/grep';
import { editFileTool } from '../tools/edit-file/edit-file';
import { writeFileTool } from '../tools/write-file';
import { applyPatchTool } from '../tools/apply-patch/apply-patch';
import { runCommandTool } from '../tools/commands/run-command';
import { taskOutputTool } from '../tools/commands/task-output';
import { taskListTool } from '../tools/commands/task-list';
import { taskKillTool } from '../tools/commands/task-kill';
import { webFetchTool } from '../tools/web/web-fetch';
import { gitStatusTool } from '../tools/git/git-status';
import { gitDiffTool } from '../tools/git/git-diff';
import { gitLogTool } from '../tools/git/git-log';
import { gitCommitTool } from '../tools/git/git-commit';
import { todoWriteTool } from '../tools/todo/todo-write';
import { todoReadTool } from '../tools/todo/todo-read';
import { memorySaveTool } from '../tools/memory/memory-save';
import { memorySearchTool } from '../tools/memory/memory-search';
import { skillTool } from '../tools/skills/skills';
import { webSearchTool } from '../tools/web/web-search';
import { agentTool } from '../tools/agents/agent';
import { askUserTool } from '../tools/agents/ask-user';
import { toolSearchTool } from '../tools/tool-search';

/** Every built-in tool, in the order the model sees them. */
export const ALL_TOOLS = [
  readFileTool,
  listDirTool,
  globTool,
  grepTool,
  editFileTool,
  applyPatchTool,
  writeFileTool,
  runCommandTool,
  taskOutputTool,
  taskListTool,
  taskKillTool,
  gitStatusTool,
  gitDiffTool,
  gitLogTool,
  gitCommitTool,
  todoWriteTool,
  todoReadTool,
  memorySaveTool,
  memorySearchTool,
  skillTool,
  webFetchTool,
  webSearchTool,
  agentTool,
  askUserTool,
  toolSearchTool,
] as const satisfies readonly AnyTool[];

/** The built-in tools' inputs and outputs by name, for the page's message type. */
export type BuiltinUITools = UIToolsOf<typeof ALL_TOOLS>;

declare module '../contract/tool-types' {
  // the message type knows every tool this list registers, and only those
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface ClampTools extends BuiltinUITools {}
}

/** The registry of built-in tools (tools bind nothing at import time, so one registry serves every workspace). */
export function createToolRegistry(): Registry {
  return createRegistry(ALL_TOOLS);
}
