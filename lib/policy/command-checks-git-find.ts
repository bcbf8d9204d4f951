/**
 * The two commands whose safety depends most on their arguments: git (read-only for status/log/diff,
 * tier 2 for history-destroying operations) and find (read-only unless it deletes or runs commands).
 */
import path from 'node:path';
import type { Word } from './shell-parse';
import { placesOf, worstPlace } from './command-paths';
import { DELETERS, GIT_EXEC_CONFIG, GIT_GLOBAL_VALUE_OPTS, GIT_READ_ONLY } from './command-tables';
import { finding, q, writeCheck, type Check, type Checker } from './command-check-kit';
import { outputOptionTargets, usesLong, usesShort } from './command-checks-more';
import { harmlessGitConfig } from './command-listing';

/** git subcommands' options (and words) that run a program. */
const GIT_SUB_EXEC: Readonly<Record<string, { short?: string; long?: string[]; first?: string[] }>> = {
  difftool: { short: 'x', long: ['extcmd'] },
  mergetool: { long: ['tool-help'] },
  rebase: { short: 'x', long: ['exec'] },
  bisect: { first: ['run'] },
  submodule: { first: ['foreach'] },
  clone: { short: 'u', long: ['upload-pack', 'template'] },
  fetch: { long: ['upload-pack'] },
  pull: { long: ['upload-pack'] },
  'ls-remote': { long: ['upload-pack'] },
  archive: { long: ['exec'] },
  push: { long: ['receive-pack', 'exec'] },
  'send-pack': { long: ['receive-pack', 'exec'] },
  grep: { short: 'O', long: ['open-files-in-pager'] },
};

/** A git subcommand whose options run a program, or `git config` setting a key that runs one. */
function gitExec(c: Check, sub: string, rest: string[]): void {
  const spec = GIT_SUB_EXEC[sub];
  const text = q(c.env.sub.text);
  if (spec) {
    const opts = rest.filter((r) => r.startsWith('-'));
    const hit = (spec.long && usesLong(opts, spec.long)) || (spec.short && usesShort(opts.filter((o) => !o.startsWith('--')), spec.short) ? `-${spec.short}` : undefined) || (spec.first?.includes(rest[0] ?? '') ? rest[0] : undefined);
    if (hit) finding(c, { opaque: true, reason: `${text} runs a program given to git ${sub} (${hit})` });
  }
  if (['diff', 'log', 'show', 'whatchanged', 'range-diff', 'format-patch'].includes(sub)) {
    // --output=FILE (and -o DIR for format-patch) writes where it says
    // in every spelling: --output f, --output=f, GNU abbreviations (--outp=f), format-patch's -of
    const base = c.vals.length - rest.length;
    const spec = sub === 'format-patch' ? { short: 'o', long: ['output', 'output-directory'] } : { long: ['output'] };
    const targets = outputOptionTargets(c.args.slice(base), rest, spec);
    if (targets.length > 0) c.env.sub.readOnly = false;
    for (const t of targets) writeCheck(c, t);
  }
  if (sub === 'config') {
    const key = rest.find((r) => !r.startsWith('-') && r !== 'set');
    const writes = !rest.some((r) => /^--(get|get-all|get-regexp|get-urlmatch|list|unset|unset-all)$|^-l$/.test(r)) && rest[0] !== 'get' && rest[0] !== 'list';
    if (key && writes && GIT_EXEC_CONFIG.test(key)) finding(c, { opaque: true, reason: `${text} sets git config that makes git run a program (${key})` });
  }
}

const shortHas = (v: string, letter: string): boolean => /^-[a-zA-Z]+$/.test(v) && v.includes(letter);

/** Mutating `git branch` options; without them (and without a new name) branch only lists. */
const BRANCH_MUTATE = new Set(['-d', '-D', '-m', '-M', '-c', '-C', '--delete', '--move', '--copy', '-u', '--set-upstream-to', '--unset-upstream', '--edit-description', '-f', '--force', '-t', '--track', '--no-track', '--create-reflog']);
const BRANCH_LIST = new Set(['-l', '--list', '--contains', '--no-contains', '--merged', '--no-merged', '--points-at', '-a', '--all', '-r', '--remotes', '--show-current']);

function gitTier2(sub: string, rest: string[]): string | null {
  const has = (...flags: string[]) => rest.some((r) => flags.some((f) => r === f || (f.startsWith('--') && r.startsWith(`${f}=`))));
  switch (sub) {
    case 'push': {
      const force = has('--force', '-f', '--force-with-lease', '--force-if-includes', '--mirror') || rest.some((r) => shortHas(r, 'f') || /^\+[^+]/.test(r));
      const del = has('--delete', '-d', '--prune') || rest.some((r) => shortHas(r, 'd') || /^:[^:]/.test(r));
      if (force) return 'force-pushes: it can overwrite history on the remote';
      if (del) return 'deletes branches or tags on the remote';
      return null;
    }
    case 'reset':
      return has('--hard', '--merge') ? 'throws away uncommitted changes' : null;
    case 'clean':
      return has('-n', '--dry-run') || rest.some((r) => shortHas(r, 'n')) ? null : 'deletes untracked files, which git cannot bring back';
    case 'checkout': {
      const dd = rest.indexOf('--');
      return (dd >= 0 && dd < rest.length - 1) || rest.includes('.') || has('-f', '--force') ? 'discards uncommitted changes' : null;
    }
    case 'restore': {
      const staged = has('--staged', '-S');
      const worktree = has('--worktree', '-W');
      return (!staged || worktree) && rest.some((r) => !r.startsWith('-')) ? 'discards uncommitted changes in the working tree' : null;
    }
    case 'switch':
      return has('-f', '--force', '--discard-changes') ? 'discards uncommitted changes' : null;
    case 'branch':
      return has('-D') || rest.some((r) => shortHas(r, 'D')) || (has('-d', '--delete') && has('-f', '--force')) ? 'force-deletes a branch; its unmerged commits are lost' : null;
    case 'stash':
      return rest[0] === 'drop' || rest[0] === 'clear' ? 'deletes stashed changes' : null;
    case 'reflog':
      return rest[0] === 'expire' || rest[0] === 'delete' ? 'rewrites the reflog, the safety net for lost commits' : null;
    case 'filter-branch':
    case 'filter-repo':
      return 'rewrites the whole history';
    case 'update-ref':
      return has('-d') ? 'deletes a ref' : null;
    default:
      return null;
  }
}

/** `git tag` options that only list (with -l, or without operands). */
const TAG_LIST = /^(-l|--list|-n\d*|--sort(=.*)?|--contains|--no-contains|--merged|--no-merged|--points-at|--column(=.*)?|--no-column|--format(=.*)?|-i|--ignore-case|--color(=.*)?|--omit-empty)$/;
/** `git config` options that write. */
const CONFIG_WRITE = /^(--add|--replace-all|--unset|--unset-all|--rename-section|--remove-section|-e|--edit|--fixed-value)$/;

function gitReadOnly(sub: string, rest: string[]): boolean {
  if (!GIT_READ_ONLY.has(sub)) return false;
  const has = (...flags: string[]) => rest.some((r) => flags.some((f) => r === f || (f.startsWith('--') && r.startsWith(`${f}=`))));
  const operands = rest.filter((r) => !r.startsWith('-'));
  // in any subcommand: an external diff or a textconv driver is a program; --show-signature and %G… run gpg
  if (has('--ext-diff', '--textconv', '--show-signature') || rest.some((r) => /^--(format|pretty)=.*%G/.test(r))) return false;
  switch (sub) {
    case 'log': case 'diff': case 'show': case 'whatchanged': case 'range-diff': case 'diff-tree': case 'diff-files': case 'diff-index':
      return !has('--output');
    case 'cat-file':
      return !has('--filters');
    case 'grep':
      return !has('-O', '--open-files-in-pager');
    case 'branch':
      if (rest.some((r) => BRANCH_MUTATE.has(r.split('=')[0]!) || (/^-[a-zA-Z]+$/.test(r) && /[dDmMcCuft]/.test(r)))) return false;
      return operands.length === 0 || rest.some((r) => BRANCH_LIST.has(r.split('=')[0]!));
    case 'tag':
      return rest.every((r) => TAG_LIST.test(r) || !r.startsWith('-')) && (operands.length === 0 || has('-l', '--list'));
    case 'remote':
      // `git remote -v set-url …` sets: only `show` and `get-url` read, whatever options come first
      return operands.length === 0 || operands[0] === 'show' || operands[0] === 'get-url';
    case 'config':
      if (rest.some((r) => CONFIG_WRITE.test(r)) || ['set', 'unset', 'rename-section', 'remove-section', 'edit'].includes(operands[0] ?? '')) return false;
      return has('--get', '--get-all', '--get-regexp', '--get-urlmatch', '--list', '-l') || operands[0] === 'get' || operands[0] === 'list' || (operands.length === 1 && rest.length === 1);
    case 'stash':
      return rest[0] === 'list' || rest[0] === 'show';
    case 'worktree':
      return rest[0] === 'list';
    case 'reflog':
      return rest.length === 0 || rest[0] === 'show' || rest[0]!.startsWith('-');
    default:
      return true;
  }
}

const gitCheck: Checker = (c) => {
  let i = 0;
  for (; i < c.vals.length; i++) {
    const v = c.vals[i]!;
    if (!v.startsWith('-')) break;
    if (v === '--version' || v === '--help' || v === '-h') return;
    if (v === '-c' || v.startsWith('--config-env')) {
      const setting = v === '-c' ? c.vals[i + 1] ?? '' : v;
      // a key that only changes how output looks (color.ui, core.quotepath, core.pager=cat …) keeps a read-only command read-only
      const harmless = v === '-c' && c.args[i + 1]?.value != null && harmlessGitConfig(setting);
      if (!harmless && (GIT_EXEC_CONFIG.test(setting.replace(/^--config-env=?/, '')) || v.startsWith('--config-env'))) {
        finding(c, { opaque: true, reason: `${q(c.env.sub.text)} sets git config that makes git run a program (${setting.split('=')[0]})` });
      }
      if (!harmless) {
        c.env.sub.readOnly = false;
        // a rule saved for it covers exactly this setting, not every other -c before the same subcommand
        finding(c, { exactKey: true, reason: `${q(c.env.sub.text)} sets git config ${setting.split('=')[0]}, which Clamp does not know to be harmless` });
      }
    }
    if (/^--(exec-path|git-dir|work-tree)(=|$)/.test(v) && !(v === '--exec-path')) {
      finding(c, { opaque: true, reason: `${q(c.env.sub.text)} points git at another program or repository (${v.split('=')[0]}), whose hooks and config run` });
      c.env.sub.readOnly = false;
    }
    if (GIT_GLOBAL_VALUE_OPTS.has(v) && v !== '--exec-path') i++;
  }
  const subWord = c.args[i];
  if (!subWord) return;
  if (subWord.value === null) {
    finding(c, { opaque: true, reason: `${q(c.env.sub.text)} runs a git subcommand only known when it runs` });
    c.env.sub.readOnly = false;
    return;
  }
  const rest = c.vals.slice(i + 1);
  gitExec(c, subWord.value, rest);
  const danger = gitTier2(subWord.value, rest);
  if (danger) finding(c, { tier: 2, reason: `${q(c.env.sub.text)} ${danger}` });
  if (danger || !gitReadOnly(subWord.value, rest)) c.env.sub.readOnly = false;
};

/** Tests that narrow what find matches; without one, `find DIR -delete` deletes all of DIR. */
const FIND_TESTS = new Set([
  '-name', '-iname', '-path', '-ipath', '-wholename', '-iwholename', '-regex', '-iregex', '-type', '-xtype', '-size',
  '-mtime', '-mmin', '-atime', '-amin', '-ctime', '-cmin', '-newer', '-user', '-group', '-uid', '-gid', '-perm',
  '-empty', '-links', '-inum', '-samefile', '-lname', '-ilname', '-nouser', '-nogroup', '-executable', '-readable', '-writable', '-fstype',
]);
const FIND_EXEC = new Set(['-exec', '-execdir', '-ok', '-okdir']);
const FIND_TESTS_ANY = (vals: readonly string[]) => vals.some((v) => FIND_TESTS.has(v));

const findCheck: Checker = (c) => {
  const text = q(c.env.sub.text);
  let i = 0;
  while (i < c.vals.length && /^-[HLPO]/.test(c.vals[i]!)) i++;
  if (c.vals[i] === '-D') i += 2;
  const starts: Word[] = [];
  for (; i < c.args.length && !/^[-(!]/.test(c.vals[i]!); i++) starts.push(c.args[i]!);
  let deletes = false;
  // find evaluates its expression left to right: only tests before the -delete narrow it, and -o starts over
  let narrowed = false;
  let filtered = true;
  const execs: Word[][] = [];
  for (; i < c.args.length; i++) {
    const v = c.vals[i]!;
    if (FIND_TESTS.has(v)) narrowed = true;
    if (v === '-o' || v === '-or' || v === ',') narrowed = false;
    if (v === '-delete') {
      deletes = true;
      filtered &&= narrowed;
    }
    else if (FIND_EXEC.has(v)) {
      const inner: Word[] = [];
      for (i++; i < c.args.length && c.vals[i] !== ';' && c.vals[i] !== '+'; i++) {
        const a = c.args[i]!;
        inner.push(a.value?.includes('{}') ? { ...a, value: null } : a);
      }
      execs.push(inner);
    } else if (v === '-fprint' || v === '-fprint0' || v === '-fls' || v === '-fprintf') {
      const target = c.args[i + 1];
      if (target) writeCheck(c, target);
      i += v === '-fprintf' ? 2 : 1;
      c.env.sub.readOnly = false;
    }
  }
  for (const inner of execs) {
    const name = inner[0];
    finding(c, { opaque: true, reason: `${text} runs ${q(name?.raw ?? '')} on every file it finds` });
    if (inner.length) c.env.part(inner);
    if (name?.value && DELETERS.has(path.posix.basename(name.value))) deletes = true;
  }
  if (deletes && execs.length && !c.vals.includes('-delete')) filtered = FIND_TESTS_ANY(c.vals);
  if (deletes) {
    const place = worstPlace((starts.length ? starts : [{ value: '.', raw: '.', tilde: false, glob: false, brace: false }]).flatMap((s) => placesOf(s, c.env)));
    if (place?.kind === 'catastrophic' && !filtered) finding(c, { tier: 1, reason: `${text} deletes everything in ${place.desc}` });
    else finding(c, { tier: 2, reason: `${text} deletes every file it matches` });
  }
  if (deletes || execs.length) c.env.sub.readOnly = false;
};

/** The argument-dependent checks, merged into the command table by the judge. */
export const GIT_FIND_CHECKS: Record<string, Checker> = { git: gitCheck, find: findCheck };
