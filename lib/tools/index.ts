import type { z } from 'zod';
import { createRegistry, type Registry } from './registry';
import type { ToolDefinition } from './types';

/** Every built-in tool, in the order the model sees them. */
export const ALL_TOOLS: readonly ToolDefinition<z.ZodType>[] = [];

/** The registry of built-in tools (tools bind nothing at import time, so one registry serves every workspace). */
export function createToolRegistry(): Registry {
  return createRegistry(ALL_TOOLS);
}
