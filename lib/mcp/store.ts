import type { Db } from '../store/db';
import { getSetting, setSetting } from '../store/settings';
import { readSecretSection, writeSecretSection } from '../store/secrets';
import { DEFAULT_SERVER_OPTIONS, McpConfigError, defHash, parseServerDef, type McpServerDef, type McpServerEntry, type McpServerOptions } from './config';

const SERVERS_KEY = 'mcp.servers';
const OPTIONS_KEY = 'mcp.options';
const APPROVALS_KEY = 'mcp.approvals';
const SECRETS_SECTION = 'mcp';

/** A server saved from the settings page, as the database holds it: the names of its env values and headers, never the values. */
interface StoredServer {
  type?: 'stdio' | 'http' | 'sse';
  command?: string;
  args?: string[];
  url?: string;
  envNames?: string[];
  headerNames?: string[];
}

type SecretValues = Record<string, { env?: Record<string, string>; headers?: Record<string, string> }>;

/** The person's servers from the settings page, with env values and headers from the 0600 secrets file. */
export function settingsServers(db: Db, dataDir: string): McpServerEntry[] {
  const stored = getSetting<Record<string, StoredServer>>(db, SERVERS_KEY) ?? {};
  const secrets = readSecretSection<SecretValues>(dataDir, SECRETS_SECTION) ?? {};
  const out: McpServerEntry[] = [];
  for (const [name, s] of Object.entries(stored)) {
    const sec = secrets[name] ?? {};
    const def: McpServerDef = s.command
      ? { command: s.command, ...(s.args?.length ? { args: s.args } : {}), ...(sec.env && Object.keys(sec.env).length ? { env: sec.env } : {}) }
      : { type: s.type === 'sse' ? 'sse' : 'http', url: s.url ?? '', ...(sec.headers && Object.keys(sec.headers).length ? { headers: sec.headers } : {}) };
    out.push({ name, source: 'settings', def, hash: defHash(def), origin: 'settings' });
  }
  return out;
}

/** Names a server may have: what a person can type and a tool name can be built from. */
export const SERVER_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/**
 * Add or replace one of the person's servers: the definition in the database, env values and headers in
 * the secrets file. Throws McpConfigError with the fix for a bad name or definition.
 */
export function saveSettingsServer(db: Db, dataDir: string, name: string, raw: unknown): McpServerDef {
  if (!SERVER_NAME_RE.test(name)) throw new McpConfigError(`"${name}" is not a usable server name: use letters, digits, "_", "." or "-" (at most 64, starting with a letter or digit).`);
  const def = parseServerDef(name, raw, 'the server');
  const stored = getSetting<Record<string, StoredServer>>(db, SERVERS_KEY) ?? {};
  const secrets = readSecretSection<SecretValues>(dataDir, SECRETS_SECTION) ?? {};
  if ('command' in def) {
    stored[name] = { type: 'stdio', command: def.command, args: def.args ?? [], envNames: Object.keys(def.env ?? {}) };
    secrets[name] = { env: def.env ?? {} };
  } else {
    stored[name] = { type: def.type, url: def.url, headerNames: Object.keys(def.headers ?? {}) };
    secrets[name] = { headers: def.headers ?? {} };
  }
  writeSecretSection(dataDir, SECRETS_SECTION, secrets);
  setSetting(db, SERVERS_KEY, stored);
  return def;
}

/** Remove one of the person's servers (and its secrets and options). Returns whether it was there. */
export function removeSettingsServer(db: Db, dataDir: string, name: string): boolean {
  const stored = getSetting<Record<string, StoredServer>>(db, SERVERS_KEY) ?? {};
  if (!Object.hasOwn(stored, name)) return false;
  delete stored[name];
  setSetting(db, SERVERS_KEY, stored);
  const secrets = readSecretSection<SecretValues>(dataDir, SECRETS_SECTION) ?? {};
  delete secrets[name];
  writeSecretSection(dataDir, SECRETS_SECTION, secrets);
  const opts = getSetting<Record<string, Partial<McpServerOptions>>>(db, OPTIONS_KEY) ?? {};
  delete opts[name];
  setSetting(db, OPTIONS_KEY, opts);
  return true;
}

/** The person's options for a server (defaults where nothing was saved). */
export function serverOptions(db: Db, name: string): McpServerOptions {
  const all = getSetting<Record<string, Partial<McpServerOptions>>>(db, OPTIONS_KEY) ?? {};
  return { ...DEFAULT_SERVER_OPTIONS, ...(Object.hasOwn(all, name) ? all[name] : {}) };
}

/** Merge a change into a server's options; returns the result. */
export function setServerOptions(db: Db, name: string, patch: Partial<McpServerOptions>): McpServerOptions {
  const all = getSetting<Record<string, Partial<McpServerOptions>>>(db, OPTIONS_KEY) ?? {};
  const next = { ...serverOptions(db, name), ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) };
  all[name] = next;
  setSetting(db, OPTIONS_KEY, all);
  return next;
}

function approvalKey(workspace: string, name: string, hash: string): string {
  return `${workspace}\u0000${name}\u0000${hash}`;
}

/** Whether the person approved this workspace's server with exactly this definition. */
export function isApproved(db: Db, workspace: string, entry: Pick<McpServerEntry, 'name' | 'hash'>): boolean {
  return (getSetting<string[]>(db, APPROVALS_KEY) ?? []).includes(approvalKey(workspace, entry.name, entry.hash));
}

/** Record the person's approval of a workspace server's definition (a changed definition asks again). */
export function approveServer(db: Db, workspace: string, entry: Pick<McpServerEntry, 'name' | 'hash'>): void {
  const all = new Set(getSetting<string[]>(db, APPROVALS_KEY) ?? []);
  all.add(approvalKey(workspace, entry.name, entry.hash));
  setSetting(db, APPROVALS_KEY, [...all]);
}

/** Withdraw every approval of a workspace's server (whatever its definition). */
export function revokeServer(db: Db, workspace: string, name: string): void {
  const prefix = `${workspace}\u0000${name}\u0000`;
  setSetting(
    db,
    APPROVALS_KEY,
    (getSetting<string[]>(db, APPROVALS_KEY) ?? []).filter((k) => !k.startsWith(prefix)),
  );
}
