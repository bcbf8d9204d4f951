import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * What a sandboxed command may not read. HOME is hidden whole (an empty read-only folder over it), and only
 * what toolchains read is shown again, read-only: the folders of well-known toolchains and version managers,
 * the folders the environment's toolchain variables and search paths name (PATH's entries and the like), git's
 * own configuration, and what the person adds (settings, CLAMP_SANDBOX_SHOW). On top of that, secret files and
 * folders stay hidden wherever they are seen — in a shown folder, in a workspace that is HOME, outside HOME —
 * by their real path: a `~/.ssh` that is a link into a dotfiles folder is hidden through either path, and a
 * link inside a secret folder hides what it points to, recursively.
 */

/** Browsers' profiles: their cookies hold sessions (Clamp's own access token among them). Large: not walked for links. */
const BROWSER_PROFILES = ['.mozilla', '.config/google-chrome', '.config/chromium', '.config/BraveSoftware', '.config/microsoft-edge', '.thunderbird'];

/** Secret folders and files under HOME. */
export const HOME_SECRETS: readonly string[] = [
  '.ssh', '.aws', '.gnupg', '.password-store', '.config/gh', '.config/hub', '.config/glab-cli', '.netrc', '.docker/config.json',
  '.npmrc', '.yarnrc', '.yarnrc.yml', '.pypirc', '.git-credentials', '.config/git/credentials', '.config/gcloud', '.kube', '.azure',
  '.pgpass', '.my.cnf', '.cargo/credentials', '.cargo/credentials.toml', '.vault-token', '.gem/credentials', '.terraform.d/credentials.tfrc.json',
  '.terraformrc', '.m2/settings.xml', '.m2/settings-security.xml', '.gradle/gradle.properties', '.ivy2/.credentials', '.sbt/.credentials',
  '.nuget/NuGet/NuGet.Config', '.config/NuGet/NuGet.Config', '.composer/auth.json', '.config/composer/auth.json', '.s3cfg', '.boto', '.oci',
  '.config/rclone', '.config/op', '.config/doctl', '.config/hcloud', '.config/configstore', '.tsh', '.local/share/keyrings',
  // shell and REPL histories (a command typed with a token in it)
  '.bash_history', '.zsh_history', '.zhistory', '.history', '.sh_history', '.local/share/fish/fish_history', '.python_history',
  '.node_repl_history', '.psql_history', '.mysql_history', '.sqlite_history', '.lesshst',
  ...BROWSER_PROFILES,
];

/** Secrets outside any HOME: the host's password hashes and keys, mounted secrets. */
const HOST_SECRETS: readonly string[] = [
  '/etc/shadow', '/etc/gshadow', '/etc/shadow-', '/etc/gshadow-', '/etc/ssl/private', '/etc/krb5.keytab', '/run/secrets', '/var/run/secrets',
];
/** Sockets that hand out more than a command should have (root via docker, the person's ssh keys). */
const HOST_SOCKETS: readonly string[] = ['/var/run/docker.sock', '/run/docker.sock', '/run/podman/podman.sock'];

/** What toolchains read under HOME: shown read-only when HOME is hidden (secrets inside them stay hidden). */
const HOME_TOOLCHAINS: readonly string[] = [
  '.cargo/bin', '.cargo/registry', '.cargo/git', '.cargo/config.toml', '.cargo/config', '.rustup',
  '.nvm', '.volta', '.fnm', '.local/share/fnm', '.bun', '.deno', '.local/share/pnpm', '.npm-global', '.yarn/bin',
  '.pyenv', '.local/bin', '.local/lib', '.local/share/virtualenvs', '.virtualenvs', '.local/pipx', '.local/share/pipx', '.local/share/uv',
  '.conda', 'miniconda3', 'anaconda3', 'miniforge3', 'mambaforge', 'micromamba', '.pixi',
  '.sdkman', '.jdks', '.m2/repository', '.gradle/caches', '.gradle/wrapper', '.gradle/jdks', '.ivy2/cache',
  'go', 'sdk', '.goenv', '.rbenv', '.rvm', '.gem', '.local/share/gem', '.dotnet', '.nuget/packages', '.ghcup', '.cabal/bin', '.cabal/packages',
  '.opam', '.elan', '.julia', '.juliaup', '.asdf', '.tool-versions', '.local/share/mise', '.nix-profile', '.nix-defexpr',
  '.gitconfig', '.config/git/config', '.config/git/ignore', '.config/git/attributes', '.gitignore_global', '.editorconfig',
];
/** Variables that name a toolchain's folder. */
const TOOLCHAIN_DIRS = [
  'JAVA_HOME', 'JDK_HOME', 'GOPATH', 'GOROOT', 'CARGO_HOME', 'RUSTUP_HOME', 'PYENV_ROOT', 'VIRTUAL_ENV', 'CONDA_PREFIX', 'NVM_DIR', 'SDKMAN_DIR',
  'VOLTA_HOME', 'PNPM_HOME', 'BUN_INSTALL', 'DENO_INSTALL', 'GEM_HOME', 'DOTNET_ROOT', 'RBENV_ROOT', 'ASDF_DIR', 'ASDF_DATA_DIR', 'ANDROID_HOME',
];
/** Variables that list folders (colon-separated). */
const SEARCH_PATHS = ['PATH', 'PYTHONPATH', 'NODE_PATH', 'GEM_PATH', 'LD_LIBRARY_PATH', 'LIBRARY_PATH', 'PKG_CONFIG_PATH', 'CPATH', 'PERL5LIB', 'CMAKE_PREFIX_PATH'];

/** Folders walked, at most, looking for links out of a secret folder (a bound on the work per command). */
const LINK_WALK_MAX_ENTRIES = 2000;

export const inside = (p: string, dir: string) => p === dir || p.startsWith(dir.endsWith('/') ? dir : `${dir}/`);

/**
 * The file system as one plan sees it: each folder is listed once, and a path whose folder does not list it is
 * known missing without a system call of its own (most of the ~150 names looked for do not exist).
 */
class Probe {
  private readonly listings = new Map<string, Set<string> | null>();

  private listing(dir: string): Set<string> | null {
    let l = this.listings.get(dir);
    if (l === undefined) {
      try {
        l = new Set(fs.readdirSync(dir));
      } catch {
        l = null;
      }
      this.listings.set(dir, l);
    }
    return l;
  }

  /** false when a folder on the way does not list the next name; true when it may exist */
  private mayExist(p: string): boolean {
    let dir = '/';
    for (const name of p.split('/').filter(Boolean)) {
      const l = this.listing(dir);
      // an unreadable folder: ask the path itself
      if (l === null) return true;
      if (!l.has(name)) return false;
      dir = path.join(dir, name);
    }
    return true;
  }

  lstat(p: string): fs.Stats | undefined {
    if (!this.mayExist(p)) return undefined;
    try {
      return fs.lstatSync(p);
    } catch {
      return undefined;
    }
  }

  realpath(p: string): string | undefined {
    if (!this.mayExist(p)) return undefined;
    try {
      return fs.realpathSync.native(p);
    } catch {
      return undefined;
    }
  }
}

export interface HideInput {
  workspace: string;
  dataDir: string;
  /** the HOME whose secrets are hidden */
  home: string;
  /** hide HOME whole (false: a workspace that is HOME, or no HOME to hide) */
  hideHome: boolean;
  /** the environment the command gets (its toolchain variables and search paths are shown) */
  env: NodeJS.ProcessEnv;
  /** more paths to hide (the person's), absolute or under HOME (`~/…`) */
  hide: readonly string[];
  /** more paths under HOME to show (the person's) */
  show: readonly string[];
  /** folders the sandbox shows whatever else hides them (a language server's install folder …) */
  alsoShown: readonly string[];
}

export interface HidePlan {
  /** HOME folders covered by an empty read-only folder (HOME, and the account's own home when it differs) */
  homes: string[];
  /** what is shown again inside a hidden HOME: [path in the sandbox, what it shows] (a link is shown as a link to its real path) */
  shown: { at: string; real: string; link: boolean }[];
  /** secret folders (an empty read-only folder over each) and files (/dev/null over each), by real path and as named */
  dirs: string[];
  files: string[];
}

const expandHome = (p: string, home: string) => (p === '~' ? home : p.startsWith('~/') ? path.join(home, p.slice(2)) : p);

/** The folders the environment names for toolchains: their variables, and the search paths' entries (a `bin` folder's parent). */
function namedFolders(env: NodeJS.ProcessEnv, homes: readonly string[]): string[] {
  const out: string[] = [];
  for (const k of TOOLCHAIN_DIRS) if (env[k]?.startsWith('/')) out.push(env[k]!);
  for (const k of SEARCH_PATHS) {
    for (const entry of (env[k] ?? '').split(':')) {
      if (!entry.startsWith('/')) continue;
      const dir = path.normalize(entry);
      // a toolchain's bin links into its own folders (~/.npm-global/bin → ../lib/…): show the toolchain's folder,
      // unless that is HOME itself or ~/.local (which holds other programs' data)
      const parent = path.dirname(dir);
      const wide = path.basename(dir) === 'bin' && !homes.includes(parent) && !homes.some((h) => parent === path.join(h, '.local'));
      out.push(wide ? parent : dir);
    }
  }
  return out;
}

/** Whether this process may read a file (or pass through a folder). */
function readable(p: string, st: fs.Stats): boolean {
  try {
    fs.accessSync(p, st.isDirectory() ? fs.constants.X_OK : fs.constants.R_OK);
    return true;
  } catch {
    return false;
  }
}

/** The plan of what to hide and show for one command. Never throws. */
export function hidePlan(o: HideInput): HidePlan {
  const probe = new Probe();
  const h = hiddenHomes(o, probe);
  const shown = shownInHomes(o, probe, h);
  // a path is seen in the sandbox unless a hidden HOME covers it and nothing shows it again
  const visible = (p: string) =>
    !h.homes.some((home) => inside(p, home)) || inside(p, o.workspace) || shown.some((s) => inside(p, s.at) || inside(p, s.real)) || o.alsoShown.some((s) => inside(p, s));
  const secrets = new SecretHider(o.workspace, probe, visible);
  // Clamp's data dir and the browsers' profiles are hidden as they are: no secret of the person's links out of them
  secrets.hide(o.dataDir, false);
  const allHomes = new Set([o.home, ...h.named, ...h.homes]);
  for (const home of allHomes) for (const b of BROWSER_PROFILES) secrets.hide(path.join(home, b), false);
  for (const p of secretPaths(o, allHomes)) secrets.hide(p);
  return { homes: h.homes, shown, dirs: [...secrets.dirs], files: [...secrets.files] };
}

/** The HOMEs a command does not see, as named and where they really are (every comparison is between real paths). */
interface HiddenHomes {
  /** HOME and the account's own home, as named (none when HOME is not hidden) */
  named: string[];
  pairs: { named: string; real: string }[];
  /** their real paths */
  homes: string[];
  /** a path with a HOME it is reached through replaced by where that HOME really is */
  canon: (p: string) => string;
}

function hiddenHomes(o: HideInput, probe: Probe): HiddenHomes {
  // a HOME reached through a link is hidden where it really is
  const named = o.hideHome ? [...new Set([o.home, os.homedir()])] : [];
  const pairs = named
    .map((h) => ({ named: path.normalize(h), real: probe.realpath(h) }))
    .filter((h): h is { named: string; real: string } => !!h.real && h.real !== '/' && !inside(o.workspace, h.real) && !!probe.lstat(h.real)?.isDirectory());
  const canon = (p: string) => {
    const n = path.normalize(p);
    const h = pairs.find((x) => inside(n, x.named));
    return h ? h.real + n.slice(h.named.length) : n;
  };
  return { named, pairs, homes: [...new Set(pairs.map((h) => h.real))], canon };
}

/** What is shown again inside the hidden HOMEs: toolchains, the folders the environment names, the person's own list. */
function shownInHomes(o: HideInput, probe: Probe, h: HiddenHomes): HidePlan['shown'] {
  const { homes } = h;
  const shown: HidePlan['shown'] = [];
  const seen = new Set<string>();
  const show = (p: string) => {
    const at = h.canon(p);
    if (seen.has(at) || homes.includes(at) || !homes.some((home) => inside(at, home))) return;
    const st = probe.lstat(at);
    const real = st && probe.realpath(at);
    if (!st || !real) return;
    seen.add(at);
    shown.push({ at, real, link: st.isSymbolicLink() });
    // a link to elsewhere in a hidden HOME: what it points to is shown as well
    if (st.isSymbolicLink()) show(real);
  };
  const home = h.pairs[0]?.real ?? o.home;
  if (homes.length) {
    for (const rel of HOME_TOOLCHAINS) show(path.join(home, rel));
    for (const p of namedFolders(o.env, [...homes, ...h.pairs.map((x) => x.named)])) show(p);
    for (const p of o.show) show(expandHome(p, home));
  }
  // a folder shown inside another shown folder is shown already (one mount fewer)
  const outer = shown.filter((s) => !s.link);
  for (let i = shown.length - 1; i >= 0; i--) {
    const s = shown[i]!;
    if (outer.some((o) => o !== s && inside(s.at, o.at) && inside(s.real, o.real))) shown.splice(i, 1);
  }
  return shown;
}

/** Secret folders and files, by real path, with what links inside a secret folder lead to (within LINK_WALK_MAX_ENTRIES). */
class SecretHider {
  readonly dirs = new Set<string>();
  readonly files = new Set<string>();
  private budget = LINK_WALK_MAX_ENTRIES;
  private readonly walked = new Set<string>();

  constructor(
    private readonly workspace: string,
    private readonly probe: Probe,
    private readonly visible: (p: string) => boolean,
  ) {}

  /** Hide a secret where it really is (mounting over a link's own path would follow it anyway). */
  hide(p: string, walk = true): void {
    const real = this.probe.realpath(p);
    const st = real ? this.probe.lstat(real) : undefined;
    if (!real || !st) return;
    // what this process's user cannot read, a sandboxed command (the same user, with no capability) cannot either;
    // root reads by owner bits alone, so for root everything counts
    if (this.visible(real) && readable(real, st)) {
      // a folder that holds the workspace (a workspace inside the data dir) is not covered
      if (st.isDirectory()) {
        if (!inside(this.workspace, real)) this.dirs.add(real);
      } else {
        this.files.add(real);
      }
    }
    if (walk && st.isDirectory()) this.walkLinks(real);
  }

  /** Links inside a secret folder lead out of it: what they point to is hidden as well. */
  private walkLinks(dir: string): void {
    if (this.walked.has(dir)) return;
    this.walked.add(dir);
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (--this.budget < 0) return;
      const p = path.join(dir, e.name);
      if (e.isSymbolicLink()) {
        const real = this.probe.realpath(p);
        if (real && !inside(real, dir)) this.hide(real);
      } else if (e.isDirectory()) {
        this.walkLinks(p);
      }
    }
  }
}

/** The secrets hidden and walked: the host's, each HOME's, the environment's (cargo, ssh agent), the person's, the store's. */
function secretPaths(o: HideInput, allHomes: Set<string>): string[] {
  const secrets = [...HOST_SECRETS, ...HOST_SOCKETS, ...hostKeys()];
  for (const h of allHomes) secrets.push(...HOME_SECRETS.filter((s) => !BROWSER_PROFILES.includes(s)).map((s) => path.join(h, s)));
  const cargoHome = o.env.CARGO_HOME;
  if (cargoHome?.startsWith('/')) secrets.push(path.join(cargoHome, 'credentials'), path.join(cargoHome, 'credentials.toml'));
  if (o.env.SSH_AUTH_SOCK?.startsWith('/')) secrets.push(o.env.SSH_AUTH_SOCK);
  for (const p of o.hide) if (expandHome(p, o.home).startsWith('/')) secrets.push(path.normalize(expandHome(p, o.home)));
  if (inside(o.workspace, o.dataDir)) {
    // the store's file names (lib/store: secrets.ts, db.ts), written out here since exec may not import the store
    for (const name of ['secrets.json', 'clamp.db', 'clamp.db-wal', 'clamp.db-shm', 'approval-secret']) secrets.push(path.join(o.dataDir, name));
  }
  return secrets;
}

/** The host's ssh private keys (readable by root, which a sandboxed root still is without its capabilities). */
function hostKeys(): string[] {
  try {
    return fs.readdirSync('/etc/ssh').filter((n) => /^ssh_host_.*_key$/.test(n)).map((n) => path.join('/etc/ssh', n));
  } catch {
    return [];
  }
}
