import type { ServerConfig } from './http';
import { getMcpHub } from '../mcp/hub';

// The launcher's part of MCP. It runs outside the page's bundle, so it loads the hub alone, not the tool layer.

/** At launch: start the servers set to start then (in the background) and say what waits for approval. Never throws. */
export function startMcpAtLaunch(cfg: ServerConfig): string | null {
  try {
    const hub = getMcpHub(cfg.dataDir, cfg.workspace);
    hub.startAtLaunch();
    const states = hub.states();
    if (states.length === 0 && hub.problems.length === 0) return null;
    const waiting = states.filter((s) => s.status === 'needs-approval').map((s) => s.name);
    return (
      `MCP: ${states.length} server(s)` +
      (waiting.length ? `; ${waiting.join(', ')} from .mcp.json wait for your approval on the settings page` : '') +
      (hub.problems.length ? `; ${hub.problems.length} configuration problem(s), shown on the settings page` : '')
    );
  } catch (err) {
    return `MCP: could not read the configuration (${err instanceof Error ? err.message : String(err)})`;
  }
}
