import type { z } from 'zod';
import { createRegistry, type Registry } from './registry';
import type { ToolDefinition } from './types';
import { readFileTool } from './read-file';
import { listDirTool } from './list-dir';
import { globTool } from './glob';
import { grepTool } from './grep';
import { editFileTool } from './edit-file';
import { writeFileTool } from './write-file';
import { applyPatchTool } from './apply-patch';
import { runCommandTool } from './run-command';
import { taskOutputTool } from './task-output';
import { taskListTool } from './task-list';
import { taskKillTool } from './task-kill';
import { webFetchTool } from './web-fetch';
import { gitStatusTool } from './git-status';
import { gitDiffTool } from './git-diff';
import { gitLogTool } from './git-log';
import { gitCommitTool } from './git-commit';
import { todoReadTool, todoWriteTool } from './todo';
import { memorySaveTool, memorySearchTool } from './memory';
import { skillTool } from './skills';
import { webSearchTool } from './web-search';

/** Every built-in tool, in the order the model sees them. */
export const ALL_TOOLS: readonly ToolDefinition<z.ZodType>[] = [
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
];

/** The registry of built-in tools (tools bind nothing at import time, so one registry serves every workspace). */
export function createToolRegistry(): Registry {
  return createRegistry(ALL_TOOLS);
}
