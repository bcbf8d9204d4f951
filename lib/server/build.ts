import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { formatDuration } from '../contract/text';

/** The folder Clamp itself lives in (not the workspace). */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SOURCE_DIRS = ['app', 'lib', 'components', 'public'];
const SOURCE_FILES = ['next.config.mjs', 'package.json', 'postcss.config.mjs', 'tsconfig.json'];

/** how often a build that prints nothing new says it is still at it (on a terminal the line is redrawn every second) */
const STILL_EVERY_MS = 15_000;
const TERMINAL_TICK_MS = 1000;
/** how long a start waits for another build of the same folder (a second launcher, a test run) before giving up */
const OTHER_BUILD_WAIT_MAX_MS = 15 * 60_000;
const OTHER_BUILD_POLL_MS = 5000;

/**
 * What the page is built from, as one string: every source file's path, size and time. A build records the
 * fingerprint it started from (`.next/clamp-sources`), so an edit made while a build runs, a deleted file or a
 * file restored with an older time all count as changes.
 */
export function sourceFingerprint(root = ROOT): string {
  const hash = createHash('sha256');
  const visit = (p: string) => {
    let st: fs.Stats;
    try {
      st = fs.statSync(p);
    } catch {
      return;
    }
    if (st.isDirectory()) {
      for (const name of fs.readdirSync(p).sort()) visit(path.join(p, name));
    } else hash.update(`${path.relative(root, p)}\0${st.size}\0${st.mtimeMs}\n`);
  };
  for (const d of SOURCE_DIRS) visit(path.join(root, d));
  for (const f of SOURCE_FILES) visit(path.join(root, f));
  return hash.digest('hex');
}

const STAMP = 'clamp-sources';

/** The fingerprint the last finished build started from, or '' without one. */
function builtFrom(root = ROOT): string {
  try {
    fs.statSync(path.join(root, '.next', 'BUILD_ID'));
    return fs.readFileSync(path.join(root, '.next', STAMP), 'utf8').trim();
  } catch {
    return '';
  }
}

function recordBuiltFrom(fingerprint: string, root = ROOT): void {
  try {
    fs.writeFileSync(path.join(root, '.next', STAMP), `${fingerprint}\n`);
  } catch {
    // no stamp: the next start builds again, which is safe
  }
}

/** What Next's build is doing, from the lines it prints (its own words vary between versions: unknown lines change nothing). */
const PHASES: readonly (readonly [RegExp, string])[] = [
  [/Creating an optimized production build/, 'compiling the page'],
  [/Compiled (successfully|with warnings)/, 'compiled; checking it'],
  [/Collecting page data/, 'collecting page data'],
  [/Generating static pages/, 'generating static pages'],
  [/Finalizing page optimization/, 'finalizing'],
  [/Collecting build traces/, 'collecting build traces'],
];

export interface BuildRun {
  ok: boolean;
  /** the build's own output (stdout then stderr), for a failure's report */
  output: string;
  /** another build of the same folder held Next's lock */
  locked: boolean;
}

export interface BuildOptions {
  /** the program and arguments that build (default: Next's `next build` in ROOT) */
  command?: readonly string[];
  cwd?: string;
  /** where progress goes (default stdout) */
  out?: NodeJS.WritableStream & { isTTY?: boolean };
  /** what the first line says is being built, e.g. "first start" */
  why: string;
  /** say nothing until the build gets past Next's lock (a retry while another build runs) */
  quietUntilStarted?: boolean;
  /** off a terminal, how often a step that lasts says it still runs (default STILL_EVERY_MS) */
  stillEveryMs?: number;
}

/**
 * Run one build and say what it is doing while it runs, with the time since it started: on a terminal
 * one line redrawn every second, elsewhere (a log, a pipe) a line at each step and every
 * STILL_EVERY_MS while a step lasts. The build's own output is kept for a failure's report.
 */
export function runBuild(o: BuildOptions): Promise<BuildRun> {
  const out = o.out ?? process.stdout;
  const tty = !!out.isTTY;
  const [file, ...args] = o.command ?? [process.execPath, path.join(ROOT, 'node_modules/next/dist/bin/next'), 'build'];
  const started = Date.now();
  const elapsed = () => formatDuration(Date.now() - started, { wholeSeconds: true });
  let phase = 'starting Next.js';
  let said = 0;
  let announced = false;
  const say = () => {
    if (!announced) {
      announced = true;
      out.write(`Building Clamp's page (${o.why}; this takes a minute or two)…\n`);
    }
    said = Date.now();
    if (tty) out.write(`\r\x1b[2K  ${phase}… ${elapsed()}`);
    else out.write(`  ${phase} (${elapsed()})\n`);
  };
  if (!o.quietUntilStarted) say();
  return new Promise((resolve) => {
    const child = spawn(file, args, { cwd: o.cwd ?? ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' } });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let partial = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout.push(c);
      const lines = (partial + c.toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        const next = PHASES.find(([re]) => re.test(line))?.[1];
        if (next && next !== phase) {
          phase = next;
          say();
        }
      }
    });
    child.stderr.on('data', (c: Buffer) => stderr.push(c));
    const still = o.stillEveryMs ?? STILL_EVERY_MS;
    const tick = setInterval(() => {
      if (announced && (tty || Date.now() - said >= still)) say();
    }, tty ? TERMINAL_TICK_MS : Math.min(still, 1000));
    const end = (ok: boolean, extra = '') => {
      clearInterval(tick);
      const output = `${Buffer.concat(stdout).toString('utf8')}${Buffer.concat(stderr).toString('utf8')}${extra}`;
      const locked = /Another next build process is already running/.test(output);
      if (tty && announced) out.write('\r\x1b[2K');
      if (ok) out.write(`Built Clamp's page in ${elapsed()}.\n`);
      else if (!locked) out.write(`The build failed after ${elapsed()}.\n`);
      resolve({ ok, output, locked });
    };
    child.on('error', (err) => end(false, `${err.message}\n`));
    child.on('close', (code) => end(code === 0));
  });
}

/**
 * Build the page when there is no build or the sources changed since the last one (or force). Another
 * build of the same folder holds Next's lock: wait for it, then look again (it may have built what is
 * needed). Resolves false when the build failed, after writing its output to stderr.
 */
export async function ensureBuild(force = false): Promise<boolean> {
  const waitStarted = Date.now();
  let waitSaid = 0;
  for (let waiting = false; ; ) {
    const last = builtFrom();
    const now = sourceFingerprint();
    if (!force && last === now) return true;
    const r = await runBuild({ why: last ? 'the sources changed since the last build' : 'first start', quietUntilStarted: waiting });
    if (r.ok) {
      recordBuiltFrom(now);
      return true;
    }
    if (r.locked && Date.now() - waitStarted < OTHER_BUILD_WAIT_MAX_MS) {
      if (Date.now() - waitSaid >= STILL_EVERY_MS) {
        waitSaid = Date.now();
        process.stdout.write(`Another build of Clamp is running; waiting for it (${formatDuration(Date.now() - waitStarted, { wholeSeconds: true })})…\n`);
      }
      waiting = true;
      await new Promise((r) => setTimeout(r, OTHER_BUILD_POLL_MS));
      // the other build counts: what it built is used when it is fresh
      force = false;
      continue;
    }
    process.stderr.write(r.output);
    return false;
  }
}
