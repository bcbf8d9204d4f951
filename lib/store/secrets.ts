import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { SECRET_ENV, SECRET_NAMES, type SecretName } from '../contract/providers';

/** The API keys the settings page can store, and the environment variable each one also comes from (the provider table's). */
export { SECRET_ENV, SECRET_NAMES };

export const SECRETS_FILE_NAME = 'secrets.json';
export const APPROVAL_SECRET_FILE_NAME = 'approval-secret';
const APPROVAL_SECRET_BYTES = 32;

/** A secrets file that cannot be used, with the fix in its text. */
export class SecretsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretsError';
  }
}

function tempPath(file: string): string {
  return `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`;
}

/** Write a private (0600) file atomically: temp file in the same folder, fsync, rename. */
export function writePrivateFile(file: string, data: string | Buffer): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = tempPath(file);
  const fd = fs.openSync(tmp, 'wx', 0o600);
  try {
    fs.writeFileSync(fd, data);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  try {
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}

/** The stored API keys (an empty object when none are stored). Throws SecretsError for a corrupt file. */
export function readSecrets(dataDir: string): Partial<Record<SecretName, string>> {
  const file = path.join(dataDir, SECRETS_FILE_NAME);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new SecretsError(`Cannot read ${file} (${(err as Error).message}). Check its permissions.`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new SecretsError(`${file} is not valid JSON. Fix it, or delete it and enter the API keys again in the settings.`);
  }
  const out: Partial<Record<SecretName, string>> = {};
  if (parsed && typeof parsed === 'object') {
    for (const name of SECRET_NAMES) {
      const v = (parsed as Record<string, unknown>)[name];
      if (typeof v === 'string' && v !== '') out[name] = v;
    }
  }
  return out;
}

/** Set (a string) or remove (null) stored API keys, atomically, in a 0600 file. Returns which are now stored. */
export function writeSecrets(dataDir: string, changes: Partial<Record<SecretName, string | null>>): Record<SecretName, boolean> {
  const current: Record<string, unknown> = { ...readSecretsFile(dataDir), ...readSecrets(dataDir) };
  for (const name of SECRET_NAMES) {
    if (!(name in changes)) continue;
    const v = changes[name];
    if (v === null || v === undefined || v.trim() === '') delete current[name];
    else current[name] = v.trim();
  }
  writePrivateFile(path.join(dataDir, SECRETS_FILE_NAME), `${JSON.stringify(current, null, 2)}\n`);
  return secretStatus(dataDir);
}

/** The whole secrets file as an object (API keys and other sections such as MCP servers' env and headers). */
function readSecretsFile(dataDir: string): Record<string, unknown> {
  readSecrets(dataDir); // throws SecretsError for an unreadable or corrupt file
  try {
    const parsed: unknown = JSON.parse(fs.readFileSync(path.join(dataDir, SECRETS_FILE_NAME), 'utf8'));
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** A named section of the secrets file other than API keys (e.g. "mcp": servers' env values and headers); undefined when absent. */
export function readSecretSection<T>(dataDir: string, section: string): T | undefined {
  return readSecretsFile(dataDir)[section] as T | undefined;
}

/** Replace (or, with undefined, remove) a named section of the secrets file, atomically, keeping the API keys. */
export function writeSecretSection(dataDir: string, section: string, value: unknown): void {
  if ((SECRET_NAMES as string[]).includes(section)) throw new SecretsError(`"${section}" is an API key's name, not a section.`);
  const current = readSecretsFile(dataDir);
  if (value === undefined) delete current[section];
  else current[section] = value;
  writePrivateFile(path.join(dataDir, SECRETS_FILE_NAME), `${JSON.stringify(current, null, 2)}\n`);
}

/** Which API keys are stored in the data dir (never the keys). */
export function secretStatus(dataDir: string): Record<SecretName, boolean> {
  const s = readSecrets(dataDir);
  return Object.fromEntries(SECRET_NAMES.map((n) => [n, Boolean(s[n])])) as Record<SecretName, boolean>;
}

/** Which API keys the environment provides (never the keys). */
export function envSecretStatus(env: NodeJS.ProcessEnv = process.env): Record<SecretName, boolean> {
  return Object.fromEntries(SECRET_NAMES.map((n) => [n, Boolean(env[SECRET_ENV[n]])])) as Record<SecretName, boolean>;
}

/** The API key for a provider: the one stored from the settings page first, else the environment's. */
export function resolveApiKey(dataDir: string, name: SecretName, env: NodeJS.ProcessEnv = process.env): string | undefined {
  return readSecrets(dataDir)[name] ?? (env[SECRET_ENV[name]] || undefined);
}

/**
 * The key the AI SDK signs tool approvals with: 32 random bytes in a 0600 file, created once and kept
 * across restarts (so an approval asked before a restart can still be answered). Safe against a
 * concurrent first start: the file appears complete or not at all (link of a written temp file).
 */
export function getApprovalSecret(dataDir: string): Uint8Array {
  const file = path.join(dataDir, APPROVAL_SECRET_FILE_NAME);
  if (!fs.existsSync(file)) {
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const tmp = tempPath(file);
    fs.writeFileSync(tmp, crypto.randomBytes(APPROVAL_SECRET_BYTES), { mode: 0o600, flag: 'wx' });
    try {
      fs.linkSync(tmp, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    } finally {
      fs.rmSync(tmp, { force: true });
    }
  }
  const secret = fs.readFileSync(file);
  if (secret.length !== APPROVAL_SECRET_BYTES) {
    throw new SecretsError(
      `${file} holds ${secret.length} bytes, not ${APPROVAL_SECRET_BYTES}. Delete it and restart Clamp (pending approvals will have to be asked again).`,
    );
  }
  return new Uint8Array(secret);
}
