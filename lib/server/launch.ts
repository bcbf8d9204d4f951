import crypto from 'node:crypto';
import http from 'node:http';
import { ConfigError, loadConfig, type ClampConfig } from '../config';
import { checkDoor } from './door';
import { ensureBuild, ROOT } from './build';
import { DamagedStoreError, openDb } from '../store/db';
import { DiskFullError } from '../contract/disk-full';
import { EXIT } from './headless/args';
import { recoverInterrupted } from './write-ahead';
import { parseSandboxLevel, SandboxConfigError, sandboxLine, sandboxView } from '../exec/sandbox';
import { sandboxNetLine } from '../exec/sandbox-net';
import { sandboxLimits, SandboxLimitsError } from '../exec/limits';
import { BUDGET } from '../contract/budget';
import { launchChain, watchParents } from './parent-watch';
import { stopEverything, takeOverCommands } from './process-groups';
import { startRetention } from './retention';
import { flushTracing, startTracing } from '../contract/trace-export';

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
  if (argv[0] === 'run') return runHeadlessAndExit(argv.slice(1));
  if (argv[0] === 'acp') return runAcpAndExit();
  if (argv[0] === 'build') process.exit((await ensureBuild(true)) ? 0 : 1);
  process.env.NEXT_TELEMETRY_DISABLED = '1';
  const cfg = configOrExit();
  storeOrExit(cfg.dataDir);
  const dev = argv.includes('--dev');
  const token = process.env.CLAMP_TOKEN || crypto.randomBytes(24).toString('base64url');
  process.env.CLAMP_TOKEN = token;
  process.env.CLAMP_WORKSPACE = cfg.workspace;
  process.env.CLAMP_DATA_DIR = cfg.dataDir;
  process.env.CLAMP_MODE = cfg.mode;
  // spans only when OTEL_EXPORTER_OTLP_ENDPOINT names a collector; flushed by the shutdown hooks
  await startTracing('server');
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
  await recoverFromCrash(cfg.dataDir);

  const handle = await nextHandler(dev, cfg);
  let port = cfg.port;
  const server = doorServer(handle, token, () => port);
  port = await listenOrExit(server, cfg);
  process.env.CLAMP_PORT = String(port);
  stopOnSignals(server, chain);
  // logs and spills past the period or the budget go, checkpoint repositories are collected: now, then hourly
  startRetention(cfg.dataDir);
  const { startMcpAtLaunch } = await mcpLaunch;
  await printWelcome(cfg, port, token);
  const mcpLine = startMcpAtLaunch(cfg);
  if (mcpLine) process.stdout.write(`${mcpLine}\n`);
}

/** `clamp run`: no server, no build; loaded only here, so the server's start stays as it was. */
async function runHeadlessAndExit(argv: string[]): Promise<never> {
  const [{ runHeadless }] = await Promise.all([import('./headless/run'), startTracing('run')]);
  const code = await runHeadless(argv);
  // the run's spans leave before the process does
  await flushTracing();
  // the transcript may still sit in a pipe's buffer: let it drain before exiting
  await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
  process.exit(code);
}

/** `clamp acp`: the Agent Client Protocol on stdin/stdout for an editor; no server, no build. */
async function runAcpAndExit(): Promise<never> {
  const [{ runAcp }] = await Promise.all([import('./acp/main'), startTracing('acp')]);
  const code = await runAcp();
  await flushTracing();
  process.exit(code);
}

/** The configuration, with CLAMP_SANDBOX and the sandbox's limits checked; a bad one exits with status 2 and says why. */
function configOrExit(): ClampConfig {
  try {
    const cfg = loadConfig();
    parseSandboxLevel(process.env.CLAMP_SANDBOX);
    sandboxLimits(process.env);
    return cfg;
  } catch (err) {
    if (err instanceof ConfigError || err instanceof SandboxConfigError || err instanceof SandboxLimitsError) {
      process.stderr.write(`clamp: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
}

/**
 * The data dir's database opened before anything else: checked (quick_check), backed up and migrated. A damaged one
 * or a disk without room exits with clamp run's store status and says what to do; nothing is written into it.
 */
function storeOrExit(dataDir: string): void {
  try {
    openDb(dataDir);
  } catch (err) {
    if (err instanceof DamagedStoreError || err instanceof DiskFullError) {
      process.stderr.write(`clamp: ${err.message}\n`);
      process.exit(EXIT.store);
    }
    throw err;
  }
}

/** What a dead server left behind: its commands still running are stopped, its calls written into their conversations as interrupted. */
async function recoverFromCrash(dataDir: string): Promise<void> {
  // commands a crashed Clamp left running on this data dir go first; then ours are recorded and watched
  const reaped = await takeOverCommands(dataDir);
  if (reaped > 0) process.stdout.write(`Stopped ${reaped} command(s) left running by a Clamp that did not shut down.\n`);
  const interrupted = recoverInterrupted(openDb(dataDir), dataDir);
  if (interrupted > 0) process.stdout.write(`${interrupted} tool call(s) were interrupted by the restart; their sessions say so.\n`);
}

type NextHandler = (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>;

/** The Next.js app, prepared: its request handler. */
async function nextHandler(dev: boolean, cfg: ClampConfig): Promise<NextHandler> {
  const { default: next } = await import('next');
  await loadNextConfigQuietly(dev);
  const app = next({ dev, dir: ROOT, hostname: cfg.host, port: cfg.port });
  await app.prepare();
  return app.getRequestHandler();
}

/** The HTTP server: every request meets the door (token, origin, host) before Next sees it. */
function doorServer(handle: NextHandler, token: string, port: () => number): http.Server {
  const server = http.createServer((req, res) => {
    const verdict = checkDoor({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers }, token, port());
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
  return server;
}

/** Listen on CLAMP_HOST:CLAMP_PORT and answer the port bound (CLAMP_PORT=0 picks one); a port that cannot be had exits with status 2 and says what to do. */
async function listenOrExit(server: http.Server, cfg: ClampConfig): Promise<number> {
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(cfg.port, cfg.host, () => resolve());
    });
  } catch (err) {
    process.stderr.write(`clamp: cannot listen: ${listenProblem(err as NodeJS.ErrnoException, cfg)}\n`);
    process.exit(2);
  }
  const addr = server.address();
  return addr && typeof addr === 'object' ? addr.port : cfg.port;
}

function listenProblem(err: NodeJS.ErrnoException, cfg: ClampConfig): string {
  if (err.code === 'EADDRINUSE') return `port ${cfg.port} on ${cfg.host} is already in use (another Clamp?). Stop it, or start with CLAMP_PORT=<another port>.`;
  if (err.code === 'EADDRNOTAVAIL' || err.code === 'ENOTFOUND') return `CLAMP_HOST=${cfg.host} is not an address of this machine. Use 127.0.0.1.`;
  if (err.code === 'EACCES') return `port ${cfg.port} needs privileges. Use a port above 1023 with CLAMP_PORT.`;
  return err.message;
}

/** Stop Clamp and everything it started on SIGINT, SIGTERM, SIGHUP or when the process that started it is gone. */
function stopOnSignals(server: http.Server, chain: ReturnType<typeof launchChain>): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`\n${signal}: stopping Clamp and every background task…\n`);
    server.close();
    server.closeAllConnections();
    await stopEverything();
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
}

/** The launcher's lines: the workspace, the data dir and mode, the model, the sandbox and the URL to open. */
async function printWelcome(cfg: ClampConfig, port: number, token: string): Promise<void> {
  const shownHost = cfg.host === '0.0.0.0' || cfg.host === '::' ? '127.0.0.1' : cfg.host.includes(':') ? `[${cfg.host}]` : cfg.host;
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
}
