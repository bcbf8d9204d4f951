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
  webFetchTool,
  webSearchTool,
];

/** The registry of built-in tools (tools bind nothing at import time, so one registry serves every workspace). */
export function createToolRegistry(): Registry {
  return createRegistry(ALL_TOOLS);
}
