import { WORKSPACE_HEADER, WORKSPACE_PARAM } from '../contract/workspace';

/** The workspace the page works in: its address's ?workspace=, or null for the launcher's. */
export function pageWorkspace(): string | null {
  if (typeof window === 'undefined') return null;
  return new URL(window.location.href).searchParams.get(WORKSPACE_PARAM) || null;
}

/** The header that names the page's workspace on a request (none for the launcher's). */
export function workspaceHeaders(): Record<string, string> {
  const ws = pageWorkspace();
  return ws ? { [WORKSPACE_HEADER]: ws } : {};
}

/** A same-origin URL with the page's workspace in its query, for requests that cannot carry a header (EventSource). */
export function withWorkspace(url: string): string {
  const ws = pageWorkspace();
  if (!ws) return url;
  return `${url}${url.includes('?') ? '&' : '?'}${WORKSPACE_PARAM}=${encodeURIComponent(ws)}`;
}

/** The page's address in another workspace (null: the launcher's), with no session chosen yet. */
export function workspaceHref(workspace: string | null): string {
  const url = new URL(window.location.href);
  url.search = '';
  if (workspace) url.searchParams.set(WORKSPACE_PARAM, workspace);
  return url.pathname + url.search;
}
