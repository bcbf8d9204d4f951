import { budgetTable, type Budget } from '../contract/budget';
import type { PermissionMode, ToolContext, ToolServices, ToolProgress } from '../contract/types';

export interface ContextInit {
  workspace: string;
  dataDir: string;
  mode?: PermissionMode;
  signal?: AbortSignal;
  budget?: Partial<Budget>;
  sessionId?: string;
  callId?: string;
  onProgress?: (p: ToolProgress) => void;
  services?: ToolServices;
}

/** Build a ToolContext; workspace and dataDir must already be real paths (see lib/config.ts). */
export function createContext(init: ContextInit): ToolContext {
  return {
    workspace: init.workspace,
    dataDir: init.dataDir,
    mode: init.mode ?? 'default',
    signal: init.signal ?? new AbortController().signal,
    budget: budgetTable(init.budget),
    sessionId: init.sessionId,
    callId: init.callId,
    onProgress: init.onProgress,
    services: init.services ?? {},
  };
}
