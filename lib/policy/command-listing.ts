/**
 * The harmless forms of commands that also have harmful ones, as data the read-only table uses: `date` without
 * a setting option, the listing subcommands of npm, docker, kubectl and pip, the git configuration keys that
 * change only how output looks, and the commands xargs may run on any input. Each rule says when the command
 * stays read-only; anything it does not know asks.
 */

type ArgsCheck = (args: string[]) => boolean;

/** The first word that is not an option, skipping the values of the options given. */
function subcommand(args: readonly string[], valueOpts: readonly string[]): { sub: string | undefined; at: number } {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (!a.startsWith('-')) return { sub: a, at: i };
    if (valueOpts.includes(a)) i++;
  }
  return { sub: undefined, at: args.length };
}

/**
 * date: read-only unless it sets the clock (-s/--set, or an operand that is not +FORMAT). -d, -f, -r and -I take
 * a value (attached or next), so `-Is` is ISO-8601 to the second, not -I and -s.
 */
export const dateReadOnly: ArgsCheck = (args) => {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') return args.slice(i + 1).every((o) => o.startsWith('+'));
    if (a.startsWith('--')) {
      const name = a.slice(2).split('=')[0]!;
      if ('set'.startsWith(name) && name.length >= 2) return false;
      if (!a.includes('=') && ['date', 'file', 'reference', 'resolution'].some((n) => n.startsWith(name) && name.length >= 2)) i++;
      continue;
    }
    if (!a.startsWith('-') || a === '-') {
      if (!a.startsWith('+')) return false;
      continue;
    }
    for (let k = 1; k < a.length; k++) {
      const l = a[k]!;
      if (l === 's') return false;
      if (l === 'd' || l === 'f' || l === 'r') {
        if (k === a.length - 1) i++;
        break;
      }
      if (l === 'I') break;
    }
  }
  return true;
};

/** npm subcommands that only read the project (no scripts, no network, no cache). */
const NPM_LISTING = new Set(['ls', 'list', 'll', 'la', 'explain', 'why', 'prefix', 'root', 'query', 'fund']);
export const npmReadOnly: ArgsCheck = (args) => {
  // a configuration or a log folder of the command line's choosing
  if (args.some((a) => /^--(userconfig|globalconfig|logs-dir|cache)(=|$)/.test(a))) return false;
  const { sub, at } = subcommand(args, ['--prefix', '-w', '--workspace', '-C']);
  if (sub === 'pkg') return args[at + 1] === 'get';
  return sub !== undefined && NPM_LISTING.has(sub);
};

/** docker/podman: listing and inspecting, with no option before the subcommand (a host, a context, a config). */
const DOCKER_LISTING = new Set(['ps', 'images', 'version', 'info', 'inspect', 'logs', 'top', 'port', 'diff', 'history', 'stats', 'events']);
const DOCKER_GROUP_LISTING: Readonly<Record<string, ReadonlySet<string>>> = {
  container: new Set(['ls', 'list', 'ps', 'inspect', 'logs', 'top', 'port', 'diff', 'stats']),
  image: new Set(['ls', 'list', 'inspect', 'history']),
  network: new Set(['ls', 'list', 'inspect']),
  volume: new Set(['ls', 'list', 'inspect']),
  context: new Set(['ls', 'list', 'show', 'inspect']),
  system: new Set(['df', 'info', 'events']),
  compose: new Set(['ps', 'ls', 'images', 'top', 'logs', 'version']),
};
export const dockerReadOnly: ArgsCheck = (args) => {
  const [sub, second] = args;
  if (sub === undefined || sub.startsWith('-')) return false;
  if (DOCKER_LISTING.has(sub)) return true;
  const group = DOCKER_GROUP_LISTING[sub];
  return !!group && second !== undefined && group.has(second);
};

/** kubectl: reading the cluster; a kubeconfig of the workspace's choosing (exec plugins) asks. */
const KUBECTL_LISTING = new Set(['get', 'describe', 'logs', 'top', 'version', 'api-resources', 'api-versions', 'explain', 'events']);
export const kubectlReadOnly: ArgsCheck = (args) => {
  // a kubeconfig of the command line's choosing; a server other than the configured one gets its credentials
  if (args.some((a) => /^(--kubeconfig|--server|-s)(=|$)/.test(a) || /^-s./.test(a))) return false;
  const { sub, at } = subcommand(args, ['-n', '--namespace', '--context', '--cluster', '--user', '--as']);
  const next = args[at + 1];
  if (sub === 'config') return ['view', 'get-contexts', 'current-context', 'get-clusters', 'get-users'].includes(next ?? '');
  if (sub === 'cluster-info') return next !== 'dump';
  if (sub === 'auth') return next === 'can-i' || next === 'whoami';
  if (sub === 'rollout') return next === 'status' || next === 'history';
  return sub !== undefined && KUBECTL_LISTING.has(sub);
};

/** pip: listing what is installed; not --outdated (the network) or --python (another interpreter). */
export const pipReadOnly: ArgsCheck = (args) => {
  if (args.some((a) => /^--(python|log|log-file)(=|$)/.test(a) || a === '--outdated' || a === '-o' || a === '--uptodate' || a === '-u')) return false;
  const { sub } = subcommand(args, ['--format', '--path', '--exclude']);
  return sub === 'list' || sub === 'show' || sub === 'freeze' || sub === 'check' || sub === 'inspect';
};

/** systemctl, journalctl, ip, ss: the forms that show state. */
export const systemctlReadOnly: ArgsCheck = (args) => {
  const { sub } = subcommand(args, ['-H', '--host', '-M', '--machine', '-t', '--type', '--state', '-p', '--property', '-n', '--lines', '-o', '--output']);
  return sub !== undefined && (/^(status|show|cat|is-\w+|list-\w+|get-default|help)$/.test(sub));
};
export const journalctlReadOnly: ArgsCheck = (args) =>
  !args.some((a) => /^--(vacuum-\w+|rotate|flush|sync|relinquish-var|smart-relinquish-var|setup-keys|update-catalog|new-id128)/.test(a));
export const ipReadOnly: ArgsCheck = (args) => {
  // -batch runs the ip commands of a file; -force keeps going through them
  if (args.some((a) => /^-(b|batch|force)$/.test(a))) return false;
  const words = args.filter((a) => !a.startsWith('-'));
  // `ip addr`, `ip route show`, `ip -j link list …`: an object, then show/list (or nothing)
  return words.length >= 1 && (words.length === 1 || /^(show|list|lst|sh|ls|get)$/.test(words[1]!)) && !/^(netns|monitor)$/.test(words[0]!);
};
/** ss -K kills sockets; -D/--diag dumps raw information into a file. */
export const ssReadOnly: ArgsCheck = (args) => !args.some((a) => a === '--kill' || a.startsWith('--diag') || /^-[a-zA-Z]*[KD]/.test(a));

/** tar listing (t, --list) an archive that is not remote (host:path runs rsh), without writing an index. */
export const tarReadOnly: ArgsCheck = (args) => {
  const first = args[0] ?? '';
  const listing = args.includes('--list') || (/^-?[a-zA-Z]+$/.test(first) && first.includes('t'));
  const writes = args.some((a) => /^--(extract|get|create|append|update|delete|catenate|concatenate|index-file|volno-file)/.test(a) || (/^-?[a-zA-Z]+$/.test(a) && a === first && /[xcruA]/.test(a)));
  const remote = args.some((a, i) => (/^-[a-zA-Z]*f$/.test(args[i - 1] ?? '') || /^--file$/.test(args[i - 1] ?? '')) && /^[^/]*:/.test(a)) && !args.includes('--force-local');
  return listing && !writes && !remote;
};

/** unzip listing, testing or printing to stdout (-l, -v, -t, -Z, -p); anything else extracts. */
export const unzipReadOnly: ArgsCheck = (args) => args.some((a) => /^-[a-zA-Z]*[lvtZp]/.test(a) && !a.startsWith('--'));

/** gzip/xz/bzip2/zstd listing, testing or writing to stdout (-l, -t, -c); anything else (or -o, --rm) writes files. */
export const compressReadOnly: ArgsCheck = (args) =>
  args.some((a) => /^-[a-zA-Z0-9]*[ltc]/.test(a) || /^--(list|test|stdout|to-stdout)$/.test(a)) &&
  !args.some((a) => a === '-o' || a.startsWith('--output') || a === '--rm');

/** xxd writes a second operand (its output file); -r with one operand prints to stdout. */
export const xxdReadOnly: ArgsCheck = (args) => {
  const ops = args.filter((a, i) => !a.startsWith('-') && !/^-(c|g|l|o|s|n|C|cols|groupsize|len|seek|name)$/.test(args[i - 1] ?? ''));
  return ops.length <= 1;
};

/** ulimit prints limits; with a value it changes them. */
export const ulimitReadOnly: ArgsCheck = (args) => args.every((a) => a.startsWith('-'));

/**
 * Commands that stay read-only whatever arguments they are given — also options an input chooses — so xargs
 * (and find -exec) may hand them anything. Not those with an option that runs a program or writes (sort -o,
 * rg --pre, file -C, tree -o …).
 */
export const ANY_ARGS_READ_ONLY = new Set([
  'cat', 'head', 'tail', 'wc', 'ls', 'grep', 'egrep', 'fgrep', 'stat', 'du', 'md5sum', 'sha1sum', 'sha256sum', 'sha512sum',
  'shasum', 'cksum', 'b2sum', 'basename', 'dirname', 'realpath', 'readlink', 'echo', 'printf', 'nl', 'tac', 'rev', 'fold',
  'cut', 'cmp', 'diff', 'comm', 'od', 'hexdump', 'strings', 'jq', 'test', '[', 'true', 'false',
]);

/** xargs options that leave the command it runs as it is written (not --process-slot-var, which sets a variable). */
export const XARGS_PLAIN_OPTS = /^(-0|--null|-r|--no-run-if-empty|-t|--verbose|-x|--exit|-o|--open-tty|-l|-i|--replace(=.*)?|-[nLPsdEeIa].*|--(max-args|max-lines|max-procs|max-chars|delimiter|eof|arg-file)(=.*)?)$/;

/**
 * `git -c key=value` settings that change only how output looks or who is named: never a program, a file to
 * load, a path, or a repository. A pager is harmless only as `cat`, nothing or off.
 */
const HARMLESS_GIT_KEYS = new RegExp(
  '^(' +
    [
      'color\\.[\\w.-]+', 'column\\.\\w+', 'advice\\.\\w+', 'i18n\\.\\w+', 'pretty\\.[\\w-]+', 'format\\.pretty', 'init\\.defaultbranch',
      'core\\.(quotepath|abbrev|autocrlf|safecrlf|filemode|ignorecase|precomposeunicode|whitespace|commentchar)',
      'log\\.(date|decorate|abbrevcommit|follow|graphcolors|mailmap|initialdecorationset|excludedecoration|showroot)',
      '(user|author|committer)\\.(name|email)',
      'status\\.(short|branch|showuntrackedfiles|relativepaths|renames|renamelimit|showstash|aheadbehind|submodulesummary)',
      'diff\\.(noprefix|mnemonicprefix|renames|renamelimit|algorithm|context|interhunkcontext|indentheuristic|relative|statgraphwidth|statnamewidth|suppressblankempty|colormoved|colormovedws|dirstat|ignoresubmodules|wserrorhighlight|submodule)',
      'grep\\.(linenumber|column|patterntype|extendedregexp|fullname|fallbacktonoindex)',
      'blame\\.(coloring|date|showemail|showroot|blankboundary|markunblamablelines|markignoredlines)',
      'merge\\.conflictstyle', '(branch|tag)\\.sort', 'versionsort\\.\\w+',
    ].join('|') +
    ')$',
  'i',
);
export function harmlessGitConfig(setting: string): boolean {
  const eq = setting.indexOf('=');
  const key = eq < 0 ? setting : setting.slice(0, eq);
  const value = eq < 0 ? 'true' : setting.slice(eq + 1);
  if (/^(core\.pager|pager\.[\w-]+)$/i.test(key)) return ['', 'cat', 'false', 'off', 'no', '0'].includes(value.trim().toLowerCase());
  return HARMLESS_GIT_KEYS.test(key);
}
