/**
 * The data command safety judges by: which commands only read, how many words make up a
 * command's rule key, and the names behind each tier. Behaviour lives in command-safety.ts
 * and command-checks.ts; adding a command here should rarely need code.
 */

import {
  compressReadOnly, dateReadOnly, dockerReadOnly, ipReadOnly, journalctlReadOnly, kubectlReadOnly, npmReadOnly, pipReadOnly,
  ssReadOnly, systemctlReadOnly, tarReadOnly, ulimitReadOnly, unzipReadOnly, xxdReadOnly,
} from './command-listing';

type ArgsCheck = (args: string[]) => boolean;

const hasFlag = (args: string[], ...flags: string[]): boolean =>
  args.some((a) => flags.some((f) => a === f || (f.startsWith('--') && a.startsWith(`${f}=`))));
/** a short option cluster (-xo, -o) holding this letter */
const hasShort = (args: string[], letter: string): boolean => args.some((a) => /^-[a-zA-Z]+$/.test(a) && a.includes(letter));
const operands = (args: string[]): string[] => args.filter((a) => !a.startsWith('-'));

/**
 * Commands that only read (or only print), and for some the arguments that keep them so.
 * `true` = read-only whatever the arguments. find and git are judged in command-checks.ts.
 */
export const READ_ONLY: Readonly<Record<string, true | ArgsCheck>> = {
  ls: true, cat: true, head: true, tail: true, wc: true, pwd: true, echo: true, printf: true,
  // ag --pager, ack --pager/--output/--ackrc, bat --pager/--lessopen run programs: execOptionCheck makes them opaque
  grep: true, egrep: true, fgrep: true, ag: true, ack: (a) => !hasFlag(a, '--pager'),
  // rg --pre runs a program on every file
  rg: (a) => !hasFlag(a, '--pre'),
  // fd -x / -X run a program per match
  fd: (a) => !hasFlag(a, '-x', '-X', '--exec', '--exec-batch'),
  which: true, whereis: true, type: true, stat: true, du: true, df: true,
  // file -C compiles a magic file and writes it
  file: (a) => !hasShort(a, 'C') && !hasFlag(a, '--compile'),
  // sed writes only with -i (its w/W/e commands are judged by sedScriptCheck)
  sed: (a) => !a.some((v) => v === '--in-place' || v.startsWith('--in-place=') || /^-[a-zA-Z]*i/.test(v)),
  gsed: (a) => !a.some((v) => v === '--in-place' || v.startsWith('--in-place=') || /^-[a-zA-Z]*i/.test(v)),
  npm: npmReadOnly, docker: dockerReadOnly, podman: dockerReadOnly, kubectl: kubectlReadOnly, pip: pipReadOnly, pip3: pipReadOnly,
  timedatectl: (a) => a.length === 0 || ['status', 'show', 'list-timezones', 'timesync-status', 'show-timesync'].includes(a[0]!),
  hostnamectl: (a) => a.length === 0 || a[0] === 'status',
  systemctl: systemctlReadOnly, journalctl: journalctlReadOnly, ip: ipReadOnly, ss: ssReadOnly, netstat: true,
  tar: tarReadOnly, unzip: unzipReadOnly, zipinfo: true, gzip: compressReadOnly, xz: compressReadOnly, bzip2: compressReadOnly, zstd: compressReadOnly,
  zcat: true, bzcat: true, xzcat: true, zstdcat: true, lz4cat: true, xxd: xxdReadOnly, expr: true, bc: true, ulimit: ulimitReadOnly,
  tree: (a) => !hasFlag(a, '-o'),
  sort: (a) => !hasShort(a, 'o') && !hasFlag(a, '--output'),
  uniq: (a) => operands(a).length <= 1,
  cut: true, tr: true, diff: true, cmp: true, comm: true, join: true, paste: true, column: true,
  // yq -i edits in place; mikefarah's -s/--split-exp writes a file per document
  jq: true, yq: (a) => !hasShort(a, 'i') && !hasShort(a, 's') && !hasFlag(a, '--inplace', '--in-place', '--split-exp'),
  date: dateReadOnly,
  whoami: true, id: true, groups: true, uname: true, hostname: (a) => operands(a).length === 0 && !hasShort(a, 'F') && !hasFlag(a, '--file'),
  true: true, false: true, test: true, '[': true, ':': true,
  cd: true, pushd: true, popd: true, dirs: true, printenv: true,
  basename: true, dirname: true, realpath: true, readlink: true, nl: true, tac: true, rev: true,
  fold: true, fmt: true, expand: true, unexpand: true, seq: true, sleep: true,
  // bat cache --build and --generate-config-file write
  bat: (a) => a[0] !== 'cache' && !hasFlag(a, '--generate-config-file'),
  md5sum: true, sha1sum: true, sha256sum: true, sha512sum: true, shasum: true, cksum: true, b2sum: true,
  base64: (a) => !hasFlag(a, '-o', '--output'),
  od: true, hexdump: true, strings: true, ps: true, pgrep: true, uptime: true, nproc: true,
  free: true, locale: true, tty: true, getconf: true, cal: true, lsof: true,
  set: true, shift: true, exit: true, return: true, wait: true, read: true,
  // builtins that only set shell state; their checks (command-checks-builtins.ts) ask when one runs code
  mapfile: true, readarray: true, getopts: true, unset: true, let: true, hash: true, compgen: true, complete: true, compopt: true,
  enable: true, fc: true, history: true, declare: true, typeset: true, local: true, export: true, readonly: true,
};

/** git subcommands that only read; the git checker adds the argument rules (branch listing …). */
export const GIT_READ_ONLY = new Set([
  'status', 'log', 'diff', 'show', 'rev-parse', 'ls-files', 'blame', 'branch', 'describe', 'shortlog',
  'ls-tree', 'cat-file', 'grep', 'remote', 'config', 'tag', 'reflog', 'rev-list', 'merge-base', 'name-rev',
  'whatchanged', 'version', 'count-objects', 'check-ignore', 'check-attr', 'var', 'stash', 'worktree',
  'ls-remote', 'show-ref', 'for-each-ref', 'cherry', 'range-diff', 'diff-tree', 'diff-files', 'diff-index',
]);

/** git options before the subcommand that take a separate value. */
export const GIT_GLOBAL_VALUE_OPTS = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--super-prefix', '--config-env', '--exec-path']);

/** `git -c key=value` keys that make git run a program. */
export const GIT_EXEC_CONFIG = /^(alias\.|core\.(pager|editor|fsmonitor|sshcommand|hookspath|askpass|gitproxy)|diff\.|filter\.|credential\.|sequence\.editor|gpg\.|pager\.|uploadpack\.|remote\..*\.(receivepack|uploadpack|vcs)|include\.|includeif\.|protocol\.|url\.|core\.alternaterefs|merge\.[^.]+\.driver|difftool\.|mergetool\.|submodule\.|browser\.|web\.browser|man\.|interactive\.difffilter)/i;

/** `tool --version` and friends, for well-known toolchains, are read-only. */
export const VERSION_QUERY = new Set([
  'node', 'npm', 'npx', 'pnpm', 'yarn', 'bun', 'deno', 'python', 'python3', 'pip', 'pip3', 'uv', 'cargo',
  'rustc', 'rustup', 'go', 'java', 'javac', 'mvn', 'gradle', 'dotnet', 'ruby', 'gem', 'perl', 'php', 'tsc',
  'make', 'cmake', 'gcc', 'clang', 'git', 'docker', 'kubectl', 'terraform', 'swift', 'bash', 'zsh', 'sh',
]);
export const VERSION_ARGS = new Set(['--version', '-v', '-V', 'version', '-version']);

/**
 * Toolchain commands whose program (or the options of the program they start) a file in the workspace chooses,
 * so even `cargo --version` can run the workspace's own program: what chooses it, for the reason.
 */
const RUST_TOOLCHAIN = 'a rust-toolchain.toml in the workspace may name (its path can be a folder there)';
export const WORKSPACE_CHOSEN_TOOLCHAIN: Readonly<Record<string, string>> = {
  ...Object.fromEntries(['cargo', 'rustc', 'rustdoc', 'rustfmt', 'cargo-fmt', 'cargo-clippy', 'clippy-driver', 'rust-analyzer', 'rust-gdb', 'rust-lldb', 'rustup'].map((n) => [n, `runs the Rust toolchain ${RUST_TOOLCHAIN}`])),
  yarn: 'runs the yarn release a .yarnrc or .yarnrc.yml in the workspace may name (yarnPath)',
  mvn: 'starts Java with the options a .mvn/jvm.config in the workspace adds',
  gradle: 'starts the Java a gradle.properties in the workspace may name',
  dotnet: 'runs the SDK a global.json in the workspace may name by its folder',
};

/** Directories whose programs are trusted as the command they are named after. */
export const SYSTEM_BIN_DIRS = new Set(['/bin', '/usr/bin', '/usr/local/bin', '/sbin', '/usr/sbin', '/opt/homebrew/bin']);

// ——— tiers ———

/** Tier 1: runs as another user (root). */
export const ROOT_COMMANDS = new Set(['sudo', 'su', 'doas', 'pkexec', 'run0', 'sudoedit', 'runuser']);
/** Tier 1: formats or repartitions a disk. */
export const DISK_COMMANDS = new Set([
  'mke2fs', 'mkswap', 'wipefs', 'fdisk', 'sfdisk', 'cfdisk', 'parted', 'gdisk', 'sgdisk', 'blkdiscard', 'cryptsetup',
  'mkntfs', 'mkdosfs', 'mkexfatfs', 'lvremove', 'vgremove', 'pvremove', 'zpool', 'badblocks',
]);
export const DISKUTIL_ERASE = new Set(['eraseDisk', 'eraseVolume', 'partitionDisk', 'zeroDisk', 'randomDisk', 'secureErase', 'reformat']);
/** Tier 1: stops or restarts the machine. */
export const POWER_COMMANDS = new Set(['shutdown', 'reboot', 'halt', 'poweroff']);
export const SYSTEMCTL_POWER = new Set(['poweroff', 'reboot', 'halt', 'kexec', 'soft-reboot']);

/** Shells: `-c` runs a string, no script operand reads the script from stdin. */
export const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'fish', 'csh', 'tcsh']);
/** Other interpreters and the options that run inline code. */
export const INTERPRETERS: Readonly<Record<string, { inline: string[]; valueOpts: string[] }>> = {
  python: { inline: ['-c'], valueOpts: ['-W', '-X', '--check-hash-based-pycs'] },
  python3: { inline: ['-c'], valueOpts: ['-W', '-X', '--check-hash-based-pycs'] },
  python2: { inline: ['-c'], valueOpts: ['-W', '-X'] },
  node: { inline: ['-e', '--eval', '-p', '--print'], valueOpts: ['-r', '--require', '--import', '--loader', '--experimental-loader', '-C', '--conditions'] },
  bun: { inline: ['-e', '--eval', '-p', '--print'], valueOpts: [] },
  deno: { inline: ['eval'], valueOpts: [] },
  perl: { inline: ['-e', '-E'], valueOpts: ['-I', '-M', '-m'] },
  ruby: { inline: ['-e'], valueOpts: ['-I', '-r'] },
  php: { inline: ['-r'], valueOpts: ['-c', '-d'] },
  lua: { inline: ['-e'], valueOpts: ['-l'] },
  osascript: { inline: ['-e'], valueOpts: ['-l'] },
};
/** Fetch from the network: piping their output into an interpreter runs unseen code. */
export const DOWNLOADERS = new Set(['curl', 'wget', 'fetch', 'http', 'https', 'aria2c', 'nc', 'ncat', 'lwp-request', 'xh']);
/** Delete what they are given (find -exec rm …). */
export const DELETERS = new Set(['rm', 'rmdir', 'unlink', 'shred', 'srm']);

/** Wrappers that run the rest of their arguments as the command, and the options that take a value. */
export const WRAPPERS: Readonly<Record<string, { valueOpts: string[]; positional?: number }>> = {
  command: { valueOpts: [] },
  builtin: { valueOpts: [] },
  exec: { valueOpts: ['-a'] },
  nice: { valueOpts: ['-n', '--adjustment'] },
  nohup: { valueOpts: [] },
  time: { valueOpts: ['-f', '--format', '-o', '--output'] },
  // timeout DURATION cmd …
  timeout: { valueOpts: ['-s', '--signal', '-k', '--kill-after'], positional: 1 },
  stdbuf: { valueOpts: ['-i', '-o', '-e', '--input', '--output', '--error'] },
  ionice: { valueOpts: ['-c', '-n', '--class', '--classdata'] },
  setsid: { valueOpts: [] },
  coproc: { valueOpts: [] },
  caffeinate: { valueOpts: ['-t', '-w'] },
  unbuffer: { valueOpts: [] },
};

/**
 * Variables whose value changes which program runs or what it loads: setting one makes the
 * command opaque, because the program the name resolves to is no longer the one judged.
 */
export const EXEC_ENV = /^(PATH|LD_\w+|DYLD_\w+|BASH_ENV|ENV|PROMPT_COMMAND|PS4|SHELLOPTS|BASHOPTS|IFS|HOME|\w*PAGER|EDITOR|VISUAL|GIT_(EDITOR|SEQUENCE_EDITOR|EXTERNAL_DIFF|SSH|SSH_COMMAND|ASKPASS|PROXY_COMMAND|EXEC_PATH|CONFIG\w*|DIR|WORK_TREE|TEMPLATE_DIR)|SSH_ASKPASS|LESSOPEN|LESSCLOSE|MANOPT|TAR_OPTIONS|RSYNC_RSH|NODE_OPTIONS|PYTHONSTARTUP|PYTHONPATH|PERL5OPT|PERL5LIB|RUBYOPT|BASH_FUNC_\w*)$/;

// ——— devices ———

/** Writing these does nothing harmful. */
export const HARMLESS_DEVICE = /^\/dev\/(null|zero|full|stdout|stderr|stdin|tty|random|urandom|fd\/\d+)$/;
/** Writing these overwrites a disk or kernel memory. */
export const DISK_DEVICE = /^\/dev\/(sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d|mmcblk\d|disk\d|rdisk\d|disk\/|loop\d|md\d|dm-\d|mapper\/|sr\d|nbd\d|zram\d|bcache\d|rbd\d|ubi|mtd|mem$|kmem$|port$)/;

// ——— rule keys ———

/**
 * How many leading words (the name, then words that are not options) make up a rule key.
 * The longest matching prefix wins: `npm` is 2 (`npm install`), `npm run` is 3 (`npm run test`).
 * Commands not listed have arity 1 (`ls -la` → `ls`). Interpreters take the script (`python
 * x.py`) so a rule for one script never covers another.
 */
export const ARITY: Readonly<Record<string, number>> = {
  git: 2, 'git stash': 3, 'git remote': 3, 'git worktree': 3, 'git submodule': 3, 'git config': 3,
  gh: 3, glab: 3, hub: 2,
  npm: 2, 'npm run': 3, 'npm run-script': 3, 'npm exec': 3, 'npm x': 3, npx: 2,
  pnpm: 2, 'pnpm run': 3, 'pnpm exec': 3, 'pnpm dlx': 3, pnpx: 2,
  yarn: 2, 'yarn run': 3, 'yarn dlx': 3, 'yarn workspace': 4,
  bun: 2, 'bun run': 3, 'bun x': 3, bunx: 2, deno: 2, 'deno run': 3, 'deno task': 3,
  node: 2, tsx: 2, 'ts-node': 2, vitest: 2, turbo: 2, nx: 2,
  python: 2, python3: 2, python2: 2, pip: 2, pip3: 2, pipx: 2, 'pipx run': 3,
  uv: 2, 'uv run': 3, 'uv pip': 3, 'uv tool': 3, poetry: 2, 'poetry run': 3, pdm: 2, 'pdm run': 3, conda: 2, ruff: 2,
  cargo: 2, 'cargo +nightly': 3, rustup: 2, go: 2, 'go mod': 3, 'go tool': 3,
  make: 2, just: 2, task: 2, mvn: 2, gradle: 2, './gradlew': 2, './mvnw': 2, dotnet: 2, swift: 2,
  docker: 2, 'docker compose': 3, 'docker container': 3, 'docker image': 3, 'docker-compose': 2, podman: 2,
  kubectl: 2, helm: 2, terraform: 2, tofu: 2, aws: 3, gcloud: 3, az: 3,
  brew: 2, apt: 2, 'apt-get': 2, gem: 2, bundle: 2, 'bundle exec': 3, rails: 2, rake: 2, composer: 2,
  ruby: 2, perl: 2, php: 2, bash: 2, sh: 2, zsh: 2, systemctl: 2, launchctl: 2,
};

/** Options whose value follows as a separate word, per command, so it is not taken for a subcommand. */
export const KEY_VALUE_OPTS: Readonly<Record<string, readonly string[]>> = {
  git: [...GIT_GLOBAL_VALUE_OPTS],
  npm: ['--prefix', '-w', '--workspace'],
  pnpm: ['--filter', '-F', '-C', '--dir'],
  yarn: ['--cwd'],
  cargo: ['--manifest-path', '-p', '--package', '-Z'],
  make: ['-C', '-f', '--file', '-j', '--jobs', '-I'],
  docker: ['-H', '--host', '--context', '-c', '--config'],
  kubectl: ['-n', '--namespace', '--context', '--kubeconfig'],
  go: ['-C'],
};

/** Options kept in the key with their value (`python -m pytest`). */
const KEY_KEPT_OPTS: Readonly<Record<string, readonly string[]>> = {
  python: ['-m'], python3: ['-m'], python2: ['-m'],
};

/**
 * The rule key of one command's words (wrappers and env prefixes already removed): the name,
 * then the next words that are not options, as many as ARITY gives; stops at `--`.
 */
export function ruleKeyFor(words: readonly string[]): string {
  if (words.length === 0) return '';
  const name = words[0]!;
  const valueOpts = KEY_VALUE_OPTS[name] ?? [];
  const kept = KEY_KEPT_OPTS[name] ?? [];
  const tokens = [name];
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!;
    if (w === '--') break;
    if (kept.includes(w) && i + 1 < words.length) {
      tokens.push(`${w} ${words[++i]}`);
      continue;
    }
    if (w.startsWith('-') && w.length > 1) {
      if (valueOpts.includes(w)) i++;
      continue;
    }
    tokens.push(w);
  }
  let arity = 1;
  for (let k = 1; k <= tokens.length; k++) {
    const prefix = tokens.slice(0, k).join(' ');
    const found = ARITY[prefix];
    if (found !== undefined) arity = found;
    else if (k > 1) break;
  }
  return tokens.slice(0, arity).join(' ');
}
