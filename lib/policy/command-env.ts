/**
 * Environment assignments: `X=v cmd`, `export X=v`, `env X=v cmd`, and plain `X=v`. A variable can name a
 * program (PAGER, EDITOR, GIT_SSH_COMMAND), a configuration file that names one (RIPGREP_CONFIG_PATH, GIT_CONFIG,
 * KUBECONFIG), code to load (LD_PRELOAD, NODE_OPTIONS, BASH_ENV) or a file to write (GIT_TRACE=<file>); what
 * the command then runs or writes is no longer what its words say. Those are opaque or writes; a variable known
 * to be harmless (the locale, the time zone, colours, git's identity, a pager set to cat) changes nothing; any
 * other variable handed to a command makes a read-only command ask.
 */
import type { Word } from './shell-parse';
import { finding, q, type Check } from './command-check-kit';
import { judgeWritePath } from './command-paths';
import { EXEC_ENV } from './command-tables';

/** Variables that change no program, configuration or file a command uses. */
const HARMLESS_ENV = new RegExp(
  '^(' +
    [
      'LANG', 'LANGUAGE', 'LC_\\w+', 'TZ', 'COLUMNS', 'LINES', 'TERM', 'COLORTERM', 'NO_COLOR', 'FORCE_COLOR', 'CLICOLOR(_FORCE)?',
      'CI', 'DEBIAN_FRONTEND', 'POSIXLY_CORRECT', 'QUOTING_STYLE', 'TIME_STYLE', '(DF_|DU_|LS_)?BLOCK_SIZE', 'LS_COLORS', 'GREP_COLORS?',
      'GIT_TERMINAL_PROMPT', 'GIT_OPTIONAL_LOCKS', 'GIT_FLUSH', 'GIT_ADVICE', 'GIT_(AUTHOR|COMMITTER)_(NAME|EMAIL|DATE)',
      'GIT_(LITERAL|GLOB|NOGLOB|ICASE)_PATHSPECS', 'GIT_NO_REPLACE_OBJECTS', 'GIT_MERGE_AUTOEDIT',
      'PYTHONDONTWRITEBYTECODE', 'PYTHONUNBUFFERED', 'PYTHONIOENCODING', 'PYTHONHASHSEED', 'RUST_BACKTRACE', 'RUST_LOG',
      'NODE_ENV', 'NODE_NO_WARNINGS', 'NO_UPDATE_NOTIFIER', '(npm|NPM)_(config|CONFIG)_(loglevel|LOGLEVEL|color|COLOR|fund|FUND|update_notifier|UPDATE_NOTIFIER)',
    ].join('|') +
    ')$',
);

/** Pager variables: harmless when they name cat or nothing (git and man then print straight through). */
const PAGER_ENV = /^(\w*PAGER)$/;
const HARMLESS_PAGER = new Set(['', 'cat']);

/** Variables that write a trace or log to the file they name; 0/1/2/true/false mean standard error or nothing. */
const TRACE_ENV = /^(GIT_TRACE\w*|SSLKEYLOGFILE|GCOV_PREFIX|LLVM_PROFILE_FILE)$/;
const TRACE_OFF = /^(|0|1|2|true|false|yes|no|on|off)$/i;

/**
 * Variables that name a program, a configuration file (which can name programs) or code to load, beyond the
 * exec table: every GIT_* not known harmless (git reads them as paths, config and programs), npm's and XDG's
 * configuration, and names ending in CONFIG, RC, OPTIONS, OPTS, PATH, HOME, PRELOAD, STARTUP or PLUGINS.
 */
const CONFIG_ENV = /^(GIT_\w+|npm_config_\w+|NPM_CONFIG_\w+|XDG_\w+|\w*_(CONFIG|CONFIG_\w+|RC|RCFILE|OPTIONS|OPTS|PATH|HOME|PRELOAD|STARTUP|PLUGINS?|COMMAND|CMD|PROGRAM|BIN|EXEC|WRAPPER)|\w*CONFIG|KUBECONFIG|RUSTC|RUSTC_WRAPPER|CC|CXX|LD|AR|MAKE|MAKEFLAGS|SHELL|BROWSER|TERMINAL|TMPDIR|HISTFILE|INPUTRC|PS[0-4]|CDPATH|GLOBIGNORE|FIGNORE|MAIL(PATH|CHECK)?)$/;

export type EnvUse = 'prefix' | 'export' | 'assign';

/**
 * Judge one assignment on the command being judged. `prefix` (X=v cmd, env X=v cmd) and `export` hand the
 * variable to programs; a plain `assign` only sets a shell variable, so only the names that change the shell
 * itself (PATH, IFS, PS4, BASH_ENV …) and the configuration names count there. Returns whether a read-only
 * command must now ask (an unknown variable handed to it); findings are added directly.
 */
export function judgeEnv(c: Check, name: string, value: Word | null, use: EnvUse): boolean {
  const text = q(c.env.sub.text);
  const v = value?.value ?? null;
  if (HARMLESS_ENV.test(name)) return false;
  if (PAGER_ENV.test(name) && v !== null && HARMLESS_PAGER.has(v.trim())) return false;
  // IFS as a prefix sets only how that command (read) splits; the command's own words are split before it applies
  if (name === 'IFS' && use === 'prefix') return false;
  if (TRACE_ENV.test(name)) {
    if (v !== null && TRACE_OFF.test(v.trim())) return false;
    c.env.sub.readOnly = false;
    const w = value ? judgeWritePath(value, c.env) : null;
    finding(c, { tier: w?.tier, exactKey: true, reason: `${text} sets ${name}, which ${w ? w.what.replace(/^writes /, 'writes a trace to ') : `writes a trace to ${q(value?.raw ?? '')}`}` });
    return false;
  }
  if (EXEC_ENV.test(name) || CONFIG_ENV.test(name)) {
    c.env.sub.readOnly = false;
    finding(c, { opaque: true, reason: `${text} sets ${name}, which changes what programs run and how` });
    return false;
  }
  return use !== 'assign';
}

/** The note for a read-only command handed a variable Clamp does not know: it asks. */
export function unknownEnvNote(c: Check, names: readonly string[]): void {
  c.env.sub.readOnly = false;
  finding(c, { exactKey: true, reason: `${q(c.env.sub.text)} sets ${names.join(', ')}, which Clamp does not know to be harmless for the programs it runs` });
}
