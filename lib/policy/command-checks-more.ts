/**
 * Checks for classes of commands that hide what they run or send: wrappers beyond the simple ones
 * (flock, taskset, strace, systemd-run, script -c, at, tmux, screen …), options that run a program
 * or write a file (in every spelling: clustered, with the value attached, GNU abbreviations), package
 * runners, uploads of secret files, and publishing or infrastructure commands (awk and sed scripts:
 * command-checks-scripts.ts).
 */
import type { Word } from './shell-parse';
import { placesOf } from './command-paths';
import { finding, q, skipOptions, suffixWord, unseenCode, writeCheck, type Check, type Checker } from './command-check-kit';

// ——— option spellings ———

/** A short option letter used: alone (-x), in a cluster (-Hx), or with its value attached (-xcmd). */
export function usesShort(vals: readonly string[], letters: string): boolean {
  return vals.some((v) => v.length > 1 && v[0] === '-' && v[1] !== '-' && [...letters].some((l) => v.slice(1).includes(l)));
}

/** A long option used, spelled out or abbreviated the GNU way (--to-com=… for --to-command), with or without =value. */
export function usesLong(vals: readonly string[], names: readonly string[]): string | undefined {
  for (const v of vals) {
    if (!v.startsWith('--') || v === '--') continue;
    const given = v.slice(2).split('=')[0]!;
    const hit = names.find((n) => n === given || (given.length >= 3 && n.startsWith(given)));
    if (hit) return `--${hit}`;
  }
  return undefined;
}

/** Options that make a command run another program (or a script), per command. */
const EXEC_OPTIONS: Readonly<Record<string, { short?: string; long?: string[]; oldStyle?: boolean }>> = {
  tar: { short: 'IF', long: ['to-command', 'checkpoint-action', 'use-compress-program', 'info-script', 'new-volume-script', 'rsh-command', 'rmt-command'], oldStyle: true },
  sort: { long: ['compress-program'] },
  rsync: { short: 'e', long: ['rsh', 'rsync-path'] },
  man: { short: 'PH', long: ['pager', 'html'] },
  fd: { short: 'xX', long: ['exec', 'exec-batch'] },
  fdfind: { short: 'xX', long: ['exec', 'exec-batch'] },
  rg: { long: ['pre', 'hostname-bin'] },
  ag: { long: ['pager'] },
  // ack evaluates --output as Perl; --ackrc reads options (a pager) from a file
  ack: { long: ['pager', 'output', 'ackrc'] },
  bat: { long: ['pager', 'lessopen'] },
  pip: { long: ['python'] }, pip3: { long: ['python'] },
  zip: { long: ['unzip-command'] },
  vim: { short: 'cSu', long: ['cmd'] }, vi: { short: 'cSu', long: ['cmd'] }, nvim: { short: 'cSu', long: ['cmd'] },
  view: { short: 'cSu', long: ['cmd'] }, vimdiff: { short: 'cSu', long: ['cmd'] }, ex: { short: 'cSu', long: ['cmd'] },
  less: { long: ['lesskey-file'] },
  scp: { short: 'S' }, sftp: { short: 'S' },
};
/** Options that write a file, per command: the file is judged as a write wherever it is. */
const OUTPUT_OPTIONS: Readonly<Record<string, { short?: string; long: string[] }>> = {
  sort: { short: 'o', long: ['output'] },
  shuf: { short: 'o', long: ['output'] },
  tree: { short: 'o', long: [] },
  base64: { short: 'o', long: ['output'] },
};

/**
 * The files an output option names, spelled any way the parser accepts: `-o f`, `-of`, a cluster
 * ending in it (`-uo f`, `-uof`), `--output f`, `--output=f` and GNU abbreviations (`--out=f`).
 */
export function outputOptionTargets(args: readonly Word[], vals: readonly string[], spec: { short?: string; long: string[] }): Word[] {
  const out: Word[] = [];
  for (let i = 0; i < vals.length; i++) {
    const v = vals[i]!;
    if (v === '--') break;
    if (v.startsWith('--')) {
      const eq = v.indexOf('=');
      const given = v.slice(2, eq < 0 ? undefined : eq);
      if (!spec.long.some((n) => n === given || (given.length >= 3 && n.startsWith(given)))) continue;
      if (eq >= 0) out.push(suffixWord(args[i]!, v.slice(0, eq + 1)));
      else if (args[i + 1]) out.push(args[++i]!);
    } else if (spec.short && v.length > 1 && v[0] === '-') {
      const letters = /^-[a-zA-Z]*/.exec(v)![0].slice(1);
      const at = [...letters].findIndex((l) => spec.short!.includes(l));
      if (at < 0) continue;
      const prefix = v.slice(0, at + 2);
      if (v.length > prefix.length) out.push(suffixWord(args[i]!, prefix));
      else if (args[i + 1]) out.push(args[++i]!);
    }
  }
  return out;
}

/** A command writing where an output option says (sort -o ~/.bashrc): judged like a redirect. */
export function outputOptionCheck(c: Check): void {
  const spec = OUTPUT_OPTIONS[c.base];
  if (!spec) return;
  const targets = outputOptionTargets(c.args, c.vals, spec);
  if (targets.length === 0) return;
  c.env.sub.readOnly = false;
  for (const t of targets) writeCheck(c, t);
}

/** ssh -o options that run a local program. */
const SSH_EXEC_OPTS = /^(ProxyCommand|LocalCommand|PermitLocalCommand|KnownHostsCommand|Match)\b/i;

/** A command whose options run a program: opaque (asks, never saved, refused in auto mode). Returns nothing: the command's own check goes on. */
export function execOptionCheck(c: Check): void {
  const spec = EXEC_OPTIONS[c.base];
  const text = q(c.env.sub.text);
  if (spec) {
    const long = spec.long ? usesLong(c.vals, spec.long) : undefined;
    const oldStyle = spec.oldStyle && /^[a-zA-Z]+$/.test(c.vals[0] ?? '') && [...(spec.short ?? '')].some((l) => c.vals[0]!.includes(l));
    const short = spec.short && (usesShort(c.vals, spec.short) || oldStyle);
    const plus = /^(vim?|nvim|view|vimdiff|ex)$/.test(c.base) && c.vals.some((v) => v.startsWith('+') && v.length > 1);
    const tt = c.base === 'zip' && c.vals.some((v) => /^-[a-zA-Z]*TT/.test(v));
    if (long || short || plus || tt) {
      c.env.sub.readOnly = false;
      finding(c, { opaque: true, reason: `${text} runs a program named in its options (${long ?? (plus ? '+command' : tt ? '-TT' : `-${spec.short}`)})` });
    }
  }
  if (c.base === 'ssh' || c.base === 'scp' || c.base === 'sftp') {
    const opts = c.vals.flatMap((v, i) => (v === '-o' ? [c.vals[i + 1] ?? ''] : v.startsWith('-o') && v.length > 2 ? [v.slice(2)] : []));
    if (opts.some((o) => SSH_EXEC_OPTS.test(o))) finding(c, { opaque: true, reason: `${text} sets an ssh option that runs a local program` });
  }
}

// ——— wrappers that run their arguments ———

/** Judge the command a wrapper runs as this sub-command (its key and read-only state become the inner one's). */
function runInner(c: Check, start: number): boolean {
  const inner = c.args.slice(start);
  if (inner.length === 0) return false;
  c.env.argv(inner);
  return true;
}

const flockCheck: Checker = (c) => {
  const cIdx = c.vals.findIndex((v) => v === '-c' || v === '--command');
  if (cIdx >= 0) return stringAt(c, cIdx + 1, 'runs a command string under a lock');
  const start = skipOptions(c.vals, ['-w', '--timeout', '-E', '--conflict-exit-code']);
  return runInner(c, start + 1); // flock FILE cmd …
};

const tasksetCheck: Checker = (c) => {
  if (usesShort(c.vals.slice(0, skipOptions(c.vals, [])), 'p')) return false; // taskset -p: changes a running process
  return runInner(c, skipOptions(c.vals, []) + 1); // taskset MASK cmd …
};

const wrapperAt = (valueOpts: string[], positional = 0): Checker => (c) => runInner(c, skipOptions(c.vals, valueOpts) + positional);

/** A wrapper whose command is one string argument (script -c, su -c …). */
function stringAt(c: Check, index: number, what: string): boolean {
  const code = c.args[index];
  c.env.sub.readOnly = false;
  if (!code) return true;
  if (code.value === null) {
    unseenCode(c, code.raw, `${what} built at run time`);
    return true;
  }
  finding(c, { opaque: true, reason: `${q(c.env.sub.text)} ${what}` });
  c.env.script(code.value, `the command given to ${c.base}`);
  return true;
}

const scriptCheck: Checker = (c) => {
  const i = c.vals.findIndex((v) => v === '-c' || v === '--command' || v.startsWith('--command='));
  if (i < 0) return false;
  const v = c.vals[i]!;
  if (v.startsWith('--command=')) {
    const w: Word = { ...c.args[i]!, value: v.slice('--command='.length) };
    c.args.splice(i + 1, 0, w);
  }
  return stringAt(c, i + 1, 'runs a command string in a recorded terminal');
};

/** tmux, screen, at, batch: what they run is a string, a file or stdin, run later or elsewhere. */
const laterCheck = (what: string): Checker => (c) => {
  if (c.vals.length === 0 && (c.base === 'tmux' || c.base === 'screen')) return false;
  if (c.base === 'tmux' && /^(ls|list-\w+|has-session|has|display-message|show-\w+|-V)$/.test(c.vals[0] ?? '')) return false;
  if (c.base === 'screen' && (c.vals[0] === '-ls' || c.vals[0] === '-list')) return false;
  if ((c.base === 'at' || c.base === 'batch') && c.vals.some((v) => v === '-l' || v === '-c')) return false;
  c.env.sub.readOnly = false;
  finding(c, { opaque: true, reason: `${q(c.env.sub.text)} ${what}` });
  return false;
};

/** hyperfine 'cmd' …: every operand is a shell command it runs. */
const hyperfineCheck: Checker = (c) => {
  c.env.sub.readOnly = false;
  const ops = c.args.filter((a, i) => !(c.vals[i]!.startsWith('-')));
  finding(c, { opaque: true, reason: `${q(c.env.sub.text)} runs the commands it is given` });
  for (const a of ops) if (a.value !== null) c.env.script(a.value, 'a command given to hyperfine');
  return false;
};

export const WRAPPER_CHECKS: Record<string, Checker> = {
  flock: flockCheck,
  taskset: tasksetCheck,
  strace: wrapperAt(['-e', '-o', '-p', '-s', '-u', '-E', '-P', '-I', '-b', '-a', '-X', '-O', '-S']),
  ltrace: wrapperAt(['-e', '-o', '-p', '-s', '-u', '-n', '-a', '-A', '-D', '-l', '-F']),
  chrt: wrapperAt([], 1),
  'systemd-run': wrapperAt(['-p', '--property', '-u', '--unit', '-E', '--setenv', '--uid', '--gid', '--nice', '-M', '--machine', '--description', '--slice', '--working-directory', '-H', '--host']),
  unshare: wrapperAt(['--map-user', '--map-group', '--setuid', '--setgid', '-S', '-G', '-R', '--root', '-w', '--wd']),
  'xvfb-run': wrapperAt(['-n', '--server-num', '-s', '--server-args', '-f', '--auth-file', '-e', '--error-file', '-p', '--xauth-protocol']),
  'dbus-run-session': wrapperAt(['--config-file', '--dbus-daemon']),
  valgrind: wrapperAt([]),
  firejail: wrapperAt([]),
  catchsegv: wrapperAt([]),
  toybox: (c) => runInner(c, 0),
  script: scriptCheck,
  tmux: laterCheck('runs commands in a terminal session of its own'),
  screen: laterCheck('runs commands in a terminal session of its own'),
  at: laterCheck('schedules commands (read from stdin or a file) to run later'),
  batch: laterCheck('schedules commands (read from stdin or a file) to run later'),
  hyperfine: hyperfineCheck,
};

// ——— package runners: the program they run is judged ———

/** `npx pkg …`, `npm exec -- prog …`, `uv run prog …` …: the words after the runner and its options, or null when not a runner. */
export function runnerInner(base: string, vals: readonly string[]): { start: number; script?: number } | null {
  const sub = vals[0];
  const at = (skip: number) => {
    let i = skipOptions(vals, ['-p', '--package', '--with', '--python', '-w', '--workspace', '--from', '--prefix', '--spec'], skip);
    if (vals[i - 1] === '--') return { start: i };
    const call = vals.findIndex((v, k) => k >= skip && (v === '-c' || v === '--call'));
    if (call >= 0) return { start: vals.length, script: call + 1 };
    if (i < skip) i = skip;
    return { start: i };
  };
  if (base === 'npx' || base === 'pnpx' || base === 'bunx' || base === 'uvx') return at(0);
  if ((base === 'npm' && (sub === 'exec' || sub === 'x')) || (base === 'pnpm' && (sub === 'exec' || sub === 'dlx')) || (base === 'yarn' && (sub === 'dlx' || sub === 'exec'))) return at(1);
  if (base === 'bun' && sub === 'x') return at(1);
  if ((base === 'uv' || base === 'poetry' || base === 'pdm' || base === 'conda' || base === 'pipenv' || base === 'hatch') && sub === 'run') return at(1);
  if (base === 'uv' && sub === 'tool' && vals[1] === 'run') return at(2);
  if (base === 'pipx' && sub === 'run') return at(1);
  if (base === 'bundle' && sub === 'exec') return at(1);
  return null;
}

/** Judge what a package runner runs; only its findings count (the runner keeps its own, exact, rule key). */
export function runnerCheck(c: Check): void {
  const r = runnerInner(c.base, c.vals);
  if (!r) return;
  if (r.script !== undefined) {
    const code = c.args[r.script];
    if (code) stringAt(c, r.script, 'runs a command string');
    return;
  }
  const inner = c.args.slice(r.start);
  if (inner.length) c.env.part(inner);
}

// ——— secrets sent away ———

const SECRET_PATH = /(^|\/)(\.ssh|\.aws|\.gnupg|\.netrc|\.npmrc|\.pypirc|\.git-credentials|\.docker\/config\.json|\.config\/gh|\.config\/gcloud|\.kube|\.azure|\.password-store|id_rsa|id_dsa|id_ecdsa|id_ed25519)(\/|$)|(^|\/)\.env(\.[\w-]+)?$|^\/etc\/(shadow|gshadow|sudoers)|(^|\/)secrets\.json$/;

/** Whether a path word names a secret file (after ~ and $HOME expand). */
export function isSecretPath(w: Word, c: Pick<Check, 'env'>): boolean {
  const raw = w.raw.replace(/^['"]|['"]$/g, '').replace(/^(\$HOME|\$\{HOME\})(?=\/|$)/, c.env.home);
  const abs = w.value === null ? [] : placesOf(w, c.env).flatMap((p) => ('abs' in p ? [p.abs] : []));
  return [raw, ...(w.value === null ? [] : [w.value]), ...abs].some((p) => SECRET_PATH.test(p));
}

/** Programs that send what they read to another machine. */
export const SENDERS = new Set(['curl', 'wget', 'nc', 'ncat', 'netcat', 'socat', 'telnet', 'scp', 'sftp', 'rsync', 'ssh', 'http', 'https', 'xh', 'aws', 'gsutil', 'rclone']);

/** curl -d @f / --data-binary @f / -F x=@f / -T f, wget --post-file f, scp/rsync f host:, and a secret piped in. */
export function uploadCheck(c: Check): void {
  if (!SENDERS.has(c.base)) return;
  const sent: Word[] = [];
  c.args.forEach((a, i) => {
    const v = c.vals[i]!;
    const next = c.args[i + 1];
    const at = (w: Word | undefined, strip: RegExp) => {
      if (!w) return;
      if (w.value === null) {
        const m = strip.exec(w.raw);
        if (m) sent.push({ ...w, raw: w.raw.slice(m[0].length) });
        return;
      }
      const m = strip.exec(w.value);
      if (m) sent.push({ ...w, value: w.value.slice(m[0].length), raw: w.raw.slice(m[0].length), tilde: w.value.slice(m[0].length).startsWith('~') });
    };
    if (/^(-d|--data|--data-binary|--data-raw|--data-urlencode|--json)$/.test(v)) at(next, /^([\w.-]*=)?@/);
    else if (/^--(data|data-binary|data-urlencode|json)=@/.test(v)) at(a, /^--[\w-]+=@/);
    else if (/^-d@/.test(v)) at(a, /^-d@/);
    else if (v === '-F' || v === '--form') at(next, /^[^=]*=[@<]/);
    else if (v === '-T' || v === '--upload-file') at(next, /^/);
    else if (/^--(post-file|body-file)=/.test(v)) at(a, /^--[\w-]+=/);
    else if (v === '--post-file' || v === '--body-file') at(next, /^/);
    else if ((c.base === 'scp' || c.base === 'rsync' || c.base === 'sftp') && !v.startsWith('-')) sent.push(a);
  });
  const upstreamSecret = c.env.upstream.some((u) => u.kind === 'command' && u.words.slice(1).some((w) => isSecretPath(w, c)));
  const secret = sent.find((w) => isSecretPath(w, c));
  if (secret || upstreamSecret) {
    finding(c, { tier: 2, reason: `${q(c.env.sub.text)} sends ${secret ? q(secret.raw) : 'a secret file'} (a secret: keys, tokens, credentials) to another machine` });
  }
}

// ——— publishing and infrastructure ———

function publishReason(base: string, vals: readonly string[]): string | null {
  const ops = vals.filter((v) => !v.startsWith('-'));
  const [a, b] = ops;
  const has = (...f: string[]) => vals.some((v) => f.includes(v.split('=')[0]!));
  if (['npm', 'pnpm', 'yarn', 'bun'].includes(base) && (a === 'publish' || a === 'unpublish' || a === 'deprecate' || (a === 'npm' && b === 'publish'))) return 'publishes or withdraws a package on the registry';
  if (base === 'cargo' && (a === 'publish' || a === 'yank' || a === 'owner')) return 'publishes or withdraws a crate';
  if ((base === 'gem' && (a === 'push' || a === 'yank')) || (base === 'twine' && a === 'upload') || (['poetry', 'uv', 'flit', 'hatch', 'pdm'].includes(base) && a === 'publish')) return 'publishes a package';
  if (base === 'gh' && ['repo', 'release', 'secret', 'variable', 'gpg-key', 'ssh-key', 'run', 'cache'].includes(a ?? '') && (b === 'delete' || b === 'archive' || (a === 'secret' && b === 'set'))) return `changes GitHub (${a} ${b}), which cannot be undone from here`;
  if (base === 'gh' && a === 'api' && vals.some((v, i) => (v === '-X' || v === '--method') && /^(DELETE|PUT|PATCH|POST)$/i.test(vals[i + 1] ?? ''))) return 'changes GitHub through its API';
  if ((base === 'pulumi' && (a === 'destroy' || a === 'up' || a === 'down' || (a === 'stack' && b === 'rm'))) || (base === 'cdk' && (a === 'destroy' || a === 'deploy'))) return 'changes or destroys real infrastructure';
  if ((base === 'terraform' || base === 'tofu') && (a === 'destroy' || (a === 'apply' && (has('-destroy') || has('-auto-approve'))) || (a === 'state' && (b === 'rm' || b === 'push')))) return 'changes or destroys real infrastructure';
  if ((base === 'kubectl' || base === 'oc') && ['delete', 'drain', 'replace', 'apply', 'patch', 'scale', 'rollout', 'cordon', 'taint', 'edit'].includes(a ?? '')) return 'changes a Kubernetes cluster';
  if (base === 'helm' && ['uninstall', 'delete', 'install', 'upgrade', 'rollback'].includes(a ?? '')) return 'changes a Kubernetes cluster';
  if (base === 'aws' && ((a === 's3' && (b === 'rm' || b === 'rb' || b === 'mv' || (b === 'sync' && has('--delete')))) || ops.slice(1).some((o) => /^(delete|terminate|remove|deregister|destroy)-/.test(o)))) return 'deletes cloud resources or data';
  if ((base === 'gcloud' || base === 'az') && ops.some((o) => o === 'delete' || o === 'remove')) return 'deletes cloud resources';
  if ((base === 'docker' || base === 'podman') && (a === 'push' || (a === 'system' && b === 'prune') || (a === 'volume' && (b === 'rm' || b === 'prune')))) return a === 'push' ? 'publishes an image' : 'deletes container data';
  return null;
}

export function publishCheck(c: Check): void {
  const why = publishReason(c.base, c.vals);
  if (why) finding(c, { tier: 2, reason: `${q(c.env.sub.text)} ${why}` });
}

// ——— containers with host access ———

/** docker/podman run|create with the host's root, home or anything outside the workspace mounted, --privileged or host namespaces. */
export function containerCheck(c: Check): void {
  if (c.base !== 'docker' && c.base !== 'podman' && c.base !== 'nerdctl') return;
  const sub = c.vals.find((v) => !v.startsWith('-'));
  if (sub !== 'run' && sub !== 'create' && sub !== 'exec') return;
  const text = q(c.env.sub.text);
  const vals = c.vals;
  // --pid=host and --pid host alike; seccomp/apparmor unconfined lifts the container's confinement too
  const hostNs = (v: string, i: number) => /^--(pid|net|network|ipc|uts|userns|cgroupns)=host$/.test(v) || (/^--(pid|net|network|ipc|uts|userns|cgroupns)$/.test(v) && vals[i + 1] === 'host');
  const unconfined = (v: string, i: number) => /unconfined/.test(v.startsWith('--security-opt=') ? v : v === '--security-opt' ? (vals[i + 1] ?? '') : '');
  if (vals.some((v, i) => v === '--privileged' || hostNs(v, i) || unconfined(v, i) || /^--cap-add(=|$)/.test(v) || v.startsWith('--device'))) {
    finding(c, { tier: 2, reason: `${text} gives a container the host's privileges or namespaces` });
  }
  vals.forEach((v, i) => {
    const spec = v === '-v' || v === '--volume' || v === '--mount' ? vals[i + 1] : /^(-v|--volume=|--mount=)/.test(v) ? v.replace(/^(-v|--volume=|--mount=)/, '') : undefined;
    if (!spec) return;
    const src = spec.includes('source=') || spec.includes('src=') ? /(?:source|src)=([^,]+)/.exec(spec)?.[1] ?? '' : spec.split(':')[0]!;
    if (!src.startsWith('/') && !src.startsWith('~') && !src.startsWith('$')) return; // a named volume
    const word: Word = { value: src.startsWith('$HOME') ? `~${src.slice(5)}` : src, raw: src, tilde: src.startsWith('~') || src.startsWith('$HOME'), glob: false, brace: false };
    const places = placesOf(word, c.env);
    const own = (p: (typeof places)[number]) => 'abs' in p && (p.abs === c.env.workspace || p.abs.startsWith(`${c.env.workspace}/`));
    if (places.some((p) => !own(p) && (p.kind === 'catastrophic' || p.kind === 'outside' || p.kind === 'unknown' || p.kind === 'device'))) {
      finding(c, { tier: 2, reason: `${text} mounts ${src} from outside the workspace into a container` });
    }
  });
}

// ——— rule keys that must be exact ———

/** Commands whose options can run code or send data: a saved rule covers exactly the command it was saved for. */
const EXACT_KEYS = new Set([
  'tar', 'ssh', 'scp', 'sftp', 'sed', 'gsed', 'awk', 'gawk', 'mawk', 'nawk', 'curl', 'wget', 'find', 'rsync', 'docker', 'podman', 'nerdctl',
  'npx', 'pnpx', 'bunx', 'uvx', 'pipx', 'vim', 'vi', 'nvim', 'man', 'zip', 'sort', 'fd', 'rg', 'less', 'nc', 'ncat', 'socat', 'openssl', 'gpg',
]);
const EXACT_KEY_PREFIXES = new Set([
  'git rebase', 'git difftool', 'git mergetool', 'git config', 'git bisect', 'git submodule', 'git clone', 'git fetch', 'git pull', 'git push',
  'git archive', 'git grep', 'git diff', 'git log', 'git show', 'git filter-branch', 'git -c',
  'git diff-tree', 'git diff-files', 'git diff-index', 'git cat-file', 'git blame', 'git whatchanged', 'git range-diff',
  'npm exec', 'npm x', 'pnpm exec', 'pnpm dlx', 'yarn dlx', 'yarn exec', 'bun x', 'uv run', 'uv tool', 'poetry run', 'pdm run', 'bundle exec', 'pipx run',
]);

/** The saved-rule key: `=` and the whole command for the commands above (matched exactly), else the prefix key. */
export function ruleKeyOf(base: string, name: string, vals: readonly string[], prefixKey: string): string {
  const two = prefixKey.split(' ').slice(0, 2).join(' ');
  if (!EXACT_KEYS.has(base) && !EXACT_KEY_PREFIXES.has(two) && !EXACT_KEY_PREFIXES.has(prefixKey)) return prefixKey;
  // quoted where needed, so two different argument lists never give the same key
  const word = (v: string) => (/^[\w@%+=:,./~^-]+$/.test(v) ? v : `'${v.replace(/'/g, `'\\''`)}'`);
  return `=${[name, ...vals].map(word).join(' ')}`;
}
