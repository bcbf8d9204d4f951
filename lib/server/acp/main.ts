import { Readable, Writable } from 'node:stream';
import { ndJsonStream } from '@agentclientprotocol/sdk';
import { ConfigError, loadConfig } from '../../config';
import { parseSandboxLevel, SandboxConfigError } from '../../exec/sandbox';
import { closeDb } from '../../store/db';
import { stopEverything, takeOverCommands } from '../process-groups';
import { clampAgent } from './agent';

/**
 * `clamp acp`: Clamp as an Agent Client Protocol agent on stdin/stdout, for editors (Zed, and others through
 * their plugins). stdout carries the protocol's frames only: everything Clamp would print goes to stderr.
 * Returns the exit status once the editor closes the connection (or 2 for a bad configuration).
 */
export async function runAcp(env: NodeJS.ProcessEnv = process.env): Promise<number> {
  // nothing but frames on stdout: a stray console.log of any module would break the editor's reader
  console.log = console.error;
  console.info = console.error;
  let cfg;
  try {
    const full = loadConfig(env);
    parseSandboxLevel(env.CLAMP_SANDBOX);
    cfg = { workspace: full.workspace, dataDir: full.dataDir, mode: full.mode };
  } catch (err) {
    if (err instanceof ConfigError || err instanceof SandboxConfigError) {
      process.stderr.write(`clamp acp: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  // commands a Clamp that died left running on this data dir are stopped; this one's are recorded and watched
  await takeOverCommands(cfg.dataDir);
  const stream = ndJsonStream(Writable.toWeb(process.stdout) as WritableStream<Uint8Array>, Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>);
  const agent = clampAgent(cfg);
  const connection = agent.app.connect(stream);
  const stop = () => connection.close();
  for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(s, stop);
  await connection.closed.catch(() => undefined);
  // a prompt still running stops as a cancel stops it and saves what it did; its commands and background tasks
  // stop with the connection, as they do with the server
  await Promise.all([agent.windDown(), stopEverything()]);
  closeDb(cfg.dataDir);
  return 0;
}
