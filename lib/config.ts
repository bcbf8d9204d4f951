import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PERMISSION_MODES, type PermissionMode } from './contract/types';

/** A configuration problem with the fix in its text. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export interface ClampConfig {
  workspace: string;
  dataDir: string;
  mode: PermissionMode;
  host: string;
  port: number;
}

/** Parse a permission mode, with an error that lists the valid ones. */
export function parseMode(value: string | undefined, from = 'CLAMP_MODE'): PermissionMode {
  if (value === undefined || value === '') return 'default';
  if ((PERMISSION_MODES as readonly string[]).includes(value)) return value as PermissionMode;
  throw new ConfigError(`${from}=${value} is not a permission mode. Use one of: ${PERMISSION_MODES.join(', ')}.`);
}

/** Resolve the workspace to a real directory, or explain what to set. */
export function resolveWorkspace(value: string | undefined, cwd: string): string {
  const raw = value && value !== '' ? path.resolve(cwd, value) : cwd;
  let real: string;
  try {
    real = fs.realpathSync.native(raw);
  } catch {
    throw new ConfigError(`CLAMP_WORKSPACE=${raw} does not exist. Point it at the repository Clamp should work in.`);
  }
  if (!fs.statSync(real).isDirectory()) throw new ConfigError(`CLAMP_WORKSPACE=${raw} is not a directory. Point it at a repository folder.`);
  return real;
}

/** Create (if needed) and resolve the data dir. */
export function resolveDataDir(value: string | undefined): string {
  const raw = value && value !== '' ? path.resolve(value) : path.join(os.homedir(), '.clamp');
  try {
    fs.mkdirSync(raw, { recursive: true, mode: 0o700 });
    return fs.realpathSync.native(raw);
  } catch (err) {
    throw new ConfigError(`CLAMP_DATA_DIR=${raw} cannot be created (${(err as Error).message}). Set CLAMP_DATA_DIR to a writable folder.`);
  }
}

/**
 * Read the configuration from the environment (the README's Configuration table). Throws ConfigError with the fix.
 * The default workspace is where the command was typed: npm sets INIT_CWD to it for `npm start`.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd = env.INIT_CWD || process.cwd()): ClampConfig {
  const port = env.CLAMP_PORT ? Number(env.CLAMP_PORT) : 3000;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`CLAMP_PORT=${env.CLAMP_PORT} is not a port number. Use an integer from 1 to 65535.`);
  }
  return {
    workspace: resolveWorkspace(env.CLAMP_WORKSPACE, cwd),
    dataDir: resolveDataDir(env.CLAMP_DATA_DIR),
    mode: parseMode(env.CLAMP_MODE),
    host: env.CLAMP_HOST || '127.0.0.1',
    port,
  };
}
