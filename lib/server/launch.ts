import crypto from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import { ConfigError, loadConfig } from '../config';
import { checkDoor } from './door';
import { runShutdownHooks } from '../contract/shutdown';
import { ensureBuild, ROOT } from './build';
import { reapLeftoverGroups, setGroupJournal, startWatchdog, stopAllGroups } from '../exec/leftovers';
import { openDb } from '../store/db';
import { recoverInterrupted } from './write-ahead';
import { parseSandboxLevel, SandboxConfigError, sandboxLine, sandboxView } from '../exec/sandbox';
import { sandboxNetLine } from '../exec/sandbox-net';
import { sandboxLimits, SandboxLimitsError } from '../exec/limits';
import { BUDGET } from '../contract/budget';
import { launchChain, watchParents } from './parent-watch';

const REFUSED_BODY_DRAIN_MS = 2000;

/**
 * Answer a refused request. A client still sending a body would get a connection reset instead of the
 * answer if the socket closed at once, so the whole answer goes out first, then what the client still
 * sends is read and dropped, within the door's body limit and a short time, before the connection closes.
 */
function refuse(req: http.IncomingMessage, res: http.ServerResponse, status: number, message: string): void {
  const body = message + '\n';
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store', connection: 'close' });
  if (req.complete) {
    res.end(body);
    return;
  }
  res.write(body);
  let dropped = 0;
  const done = () => {
    clearTimeout(timer);
    if (!res.writableEnded) res.end();
  };
  const timer = setTimeout(done, REFUSED_BODY_DRAIN_MS);
  req.on('data', (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > BUDGET.DOOR_BODY_MAX_BYTES) {
      clearTimeout(timer);
      res.destroy();
    }
  });
  req.once('end', done);
  req.once('error', done);
}

/** The launcher's line for a model that cannot be used: what is wrong with it, or that none is configured. */
function modelProblem(help: string | undefined): string {
  const first = help?.split('\n')[0] ?? '';
  return !first || first.startsWith('No model is configured') ? 'none configured (the page says how to set one)' : `none usable: ${first}`;
}

/**
 * Load next.config.mjs the way Next's server is about to, but quietly: Next keeps a loaded config per
 * process, so its server finds this one and does not print "✓ Running next.config.mjs took …" at every start.
 */
async function loadNextConfigQuietly(dev: boolean): Promise<void> {
  const [config, constants] = await Promise.all([import('next/dist/server/config.js'), import('next/constants.js')]);
  const load = ((config as { default: unknown }).default as { default?: unknown }).default ?? (config as { default: unknown }).default;
  const phase = dev ? constants.PHASE_DEVELOPMENT_SERVER : constants.PHASE_PRODUCTION_SERVER;
  await (load as (phase: string, dir: string) => Promise<unknown>)(phase, ROOT);
}

/** Start Clamp: configuration, build if needed, the Next.js app behind the door, shutdown on signals; `clamp run …` runs one headless turn instead. */
export async function launch(argv: string[]): Promise<void> {
  if (argv[0] === 'run') {
    // the headless run: no server, no build; loaded only here, so the server's start stays as it was
    const { runHeadless } = await import('./headless/run');
    const code = await runHeadless(argv.slice(1));
    // the transcript may still sit in a pipe's buffer: let it drain before exiting
    await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
    process.exit(code);
  }
  process.env.NEXT_TELEMETRY_DISABLED = '1';
  let cfg;
  try {
    cfg = loadConfig();
    parseSandboxLevel(process.env.CLAMP_SANDBOX);
    sandboxLimits(process.env);
  } catch (err) {
    if (err instanceof ConfigError || err instanceof SandboxConfigError || err instanceof SandboxLimitsError) {
      process.stderr.write(`clamp: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const dev = argv.includes('--dev');
  const token = process.env.CLAMP_TOKEN || crypto.randomBytes(24).toString('base64url');
  process.env.CLAMP_TOKEN = token;
  process.env.CLAMP_WORKSPACE = cfg.workspace;
  process.env.CLAMP_DATA_DIR = cfg.dataDir;
  process.env.CLAMP_MODE = cfg.mode;
  if (!dev && !(await ensureBuild(argv.includes('--rebuild')))) {
    process.stderr.write('The build failed (see above). Fix it, or run `npm run build` to see the error again.\n');
    process.exit(1);
  }

  // the chain up to whoever started Clamp is read before anything slow, so a parent that dies meanwhile is noticed
  const chain = launchChain();
  // the MCP modules load while Next prepares: evaluated after the URL was printed, they held up the first turns
  // for a quarter of a second. The servers themselves start only once the signals and the parent watch are in place.
  const mcpLaunch = import('./mcp-launch');
  mcpLaunch.catch(() => undefined);

  // commands a crashed Clamp left running on this data dir go first; then ours are recorded and watched
  const groupsDir = path.join(cfg.dataDir, 'running');
  const reaped = await reapLeftoverGroups(groupsDir, BUDGET.COMMAND_KILL_GRACE_MS);
  if (reaped > 0) process.stdout.write(`Stopped ${reaped} command(s) left running by a Clamp that did not shut down.\n`);
  setGroupJournal(groupsDir);
  startWatchdog(groupsDir, BUDGET.COMMAND_KILL_GRACE_MS);
  // calls the dead server was running are written into their conversations as interrupted
  const interrupted = recoverInterrupted(openDb(cfg.dataDir), cfg.dataDir);
  if (interrupted > 0) process.stdout.write(`${interrupted} tool call(s) were interrupted by the restart; their sessions say so.\n`);

  const { default: next } = await import('next');
  await loadNextConfigQuietly(dev);
  const app = next({ dev, dir: ROOT, hostname: cfg.host, port: cfg.port });
  await app.prepare();
  const handle = app.getRequestHandler();
  let port = cfg.port;

  const server = http.createServer((req, res) => {
    const verdict = checkDoor({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers }, token, port);
    if (verdict.kind === 'refuse') {
      refuse(req, res, verdict.status, verdict.message);
      return;
    }
    if (verdict.kind === 'set-cookie') {
      res.writeHead(303, { location: verdict.location, 'set-cookie': verdict.cookie, 'cache-control': 'no-store' });
      res.end();
      return;
    }
    void handle(req, res);
  });
  // a request body is read by the route handlers; the door itself never buffers one
  server.requestTimeout = 0;
  // an idle keep-alive connection stays open longer than clients keep theirs (undici: 4 s), so a
  // script's request never meets one the server is closing at that moment (an ECONNRESET under load)
  server.keepAliveTimeout = 75_000;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(cfg.port, cfg.host, () => resolve());
    });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === 'EADDRINUSE'
        ? `port ${cfg.port} on ${cfg.host} is already in use (another Clamp?). Stop it, or start with CLAMP_PORT=<another port>.`
        : code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND'
          ? `CLAMP_HOST=${cfg.host} is not an address of this machine. Use 127.0.0.1.`
          : code === 'EACCES'
            ? `port ${cfg.port} needs privileges. Use a port above 1023 with CLAMP_PORT.`
            : (err as Error).message;
    process.stderr.write(`clamp: cannot listen: ${why}\n`);
    process.exit(2);
  }
  const addr = server.address();
  if (addr && typeof addr === 'object') port = addr.port;
  process.env.CLAMP_PORT = String(port);
  const shownHost = cfg.host === '0.0.0.0' || cfg.host === '::' ? '127.0.0.1' : cfg.host.includes(':') ? `[${cfg.host}]` : cfg.host;
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`\n${signal}: stopping Clamp and every background task…\n`);
    server.close();
    server.closeAllConnections();
    // background tasks (a shutdown hook) and foreground commands alike: each group killed and reaped
    await Promise.all([runShutdownHooks(), stopAllGroups(BUDGET.COMMAND_KILL_GRACE_MS + 3000)]);
    process.exit(0);
  };
  // a closed terminal or a dead parent leaves stdout/stderr broken: writing must not throw (an EPIPE
  // loop kept the process alive and busy after SIGTERM), and a hangup stops Clamp like SIGTERM
  for (const out of [process.stdout, process.stderr]) out.on('error', () => undefined);
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGHUP', () => void stop('SIGHUP'));
  // killing npm (of `npm start`) sends Clamp no signal: notice the orphaning and stop the same way
  watchParents((why) => void stop(`${why}`), BUDGET.LAUNCHER_PARENT_POLL_MS, process.env, chain);
  const { startMcpAtLaunch } = await mcpLaunch;
  // loaded only now: the providers' SDKs are not needed to fail fast on a taken port
  const { currentModel } = await import('./model');
  const model = currentModel(cfg).status;
  process.stdout.write(
    `Clamp is working in ${cfg.workspace}\n` +
      `Data: ${cfg.dataDir} · mode: ${cfg.mode}\n` +
      `Model: ${model.configured ? model.label : modelProblem(model.help)}\n` +
      `${sandboxLine(sandboxView())}\n` +
      (sandboxNetLine(sandboxView()) ? `${sandboxNetLine(sandboxView())}\n` : '') +
      `Open http://${shownHost}:${port}/?token=${token}\n`,
  );

  const mcpLine = startMcpAtLaunch(cfg);
  if (mcpLine) process.stdout.write(`${mcpLine}\n`);
}
