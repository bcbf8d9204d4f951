/**
 * Per-command checks: what one simple command (after its wrappers) does, as findings
 * (tier 1, tier 2, opaque, or a note) on the sub-command being judged, then its read-only
 * state and rule key. Code runners live in command-checks-exec.ts, git and find in
 * command-checks-git-find.ts. Every check is pure: no disk, no processes.
 */
import type { Word } from './shell-parse';
import { placesOf, worstPlace, type Place } from './command-paths';
import {
  DISK_COMMANDS, DISKUTIL_ERASE, INTERPRETERS, POWER_COMMANDS, READ_ONLY, ROOT_COMMANDS,
  SHELLS, SYSTEMCTL_POWER, VERSION_ARGS, VERSION_QUERY, WORKSPACE_CHOSEN_TOOLCHAIN, WRAPPERS, ruleKeyFor,
} from './command-tables';
import { finding, q, skipOptions, suffixWord, writeCheck, type Check, type Checker, type Finding } from './command-check-kit';
import { EXEC_CHECKS, interpreterCheck, shellCheck } from './command-checks-exec';
import { GIT_FIND_CHECKS } from './command-checks-git-find';
import {
  WRAPPER_CHECKS, containerCheck, execOptionCheck, outputOptionCheck, publishCheck, ruleKeyOf, runnerCheck, uploadCheck,
} from './command-checks-more';
import { awkCheck, sedScriptCheck } from './command-checks-scripts';
import { BUILTIN_CHECKS } from './command-checks-builtins';

/** `command -v NAME` / `command -V NAME` (also -pv): a lookup only when the flag is among command's own leading options. */
export function isCommandLookup(vals: readonly string[]): boolean {
  for (const v of vals) {
    if (v === '--' || !v.startsWith('-') || v.length < 2) return false;
    if (!/^-[pvV]+$/.test(v)) return false;
    if (/[vV]/.test(v)) return true;
  }
  return false;
}

const rootCheck: Checker = (c) => {
  finding(c, { tier: 1, reason: `${q(c.env.sub.text)} runs as root (${c.base}); Clamp never runs commands with raised privileges — ask the user to run it themselves` });
};

const wrapperCheck: Checker = (c) => {
  const spec = WRAPPERS[c.base]!;
  if (c.base === 'command' && isCommandLookup(c.vals)) return false; // a lookup
  const start = skipOptions(c.vals, spec.valueOpts) + (spec.positional ?? 0);
  const inner = c.args.slice(start);
  if (inner.length === 0) return false;
  c.env.argv(inner);
  return true;
};

const rmCheck: Checker = (c) => {
  let recursive = false;
  let maybeRecursive = false;
  let afterDashes = false;
  const targets: Word[] = [];
  for (const a of c.args) {
    const v = a.value;
    if (v === null) maybeRecursive = true; // an expansion may carry -r
    if (!afterDashes && v === '--') afterDashes = true;
    else if (!afterDashes && v !== null && v.startsWith('-') && v !== '-') {
      if (v === '--no-preserve-root') finding(c, { tier: 1, reason: `${q(c.env.sub.text)} turns off rm's protection of /` });
      if (v === '--recursive' || (!v.startsWith('--') && /[rR]/.test(v))) recursive = true;
    } else targets.push(a);
  }
  const rec = recursive || maybeRecursive;
  const text = q(c.env.sub.text);
  for (const t of targets) {
    const place = worstPlace(placesOf(t, c.env));
    if (!place) continue;
    const f = deleteFinding(place, t.raw, rec, text);
    if (f) finding(c, f);
  }
};

function deleteFinding(place: Place, shown: string, recursive: boolean, text: string): Finding | null {
  const how = recursive ? ' recursively' : '';
  switch (place.kind) {
    case 'catastrophic':
      if (!place.contents) return { tier: 1, reason: `${text} deletes ${place.desc}` };
      return recursive
        ? { tier: 1, reason: `${text} deletes everything in ${place.desc}` }
        : { tier: 2, reason: `${text} deletes every file directly in ${place.desc}` };
    case 'device':
      return { tier: 2, reason: `${text} deletes the device node ${place.abs}` };
    case 'unknown':
      return recursive ? { tier: 2, reason: `${text} deletes ${shown}, ${place.why}, possibly recursively` } : { reason: `${text} deletes ${shown}, ${place.why}` };
    case 'outside':
      return { tier: 2, reason: `${text} deletes ${shown} outside the workspace${how}` };
    case 'git':
      return { tier: 2, reason: `${text} deletes ${shown} inside .git${how}` };
    case 'inside':
      return recursive ? { tier: 2, reason: `${text} deletes ${shown} recursively` } : { reason: `${text} deletes ${shown}` };
  }
}

/** chmod / chown / chgrp: -R on /, ~ or the workspace is tier 1; any other -R, or a target outside, tier 2. */
const modeCheck: Checker = (c) => {
  const what = c.base === 'chmod' ? 'permissions' : 'ownership';
  const flag = c.base === 'chmod' ? /^-[cfvR]+$/ : /^-[cfvhHLPR]+$/;
  const recursive = c.vals.some((v) => v === '--recursive' || (flag.test(v) && v.includes('R')));
  const operands = c.args.filter((a) => !(a.value !== null && (flag.test(a.value) || a.value.startsWith('--'))));
  const targets = c.vals.some((v) => v.startsWith('--reference')) ? operands : operands.slice(1);
  const text = q(c.env.sub.text);
  for (const t of targets) {
    const place = worstPlace(placesOf(t, c.env));
    if (!place) continue;
    if (place.kind === 'catastrophic' && recursive) finding(c, { tier: 1, reason: `${text} changes ${what} of everything in ${place.desc}` });
    else if (recursive) finding(c, { tier: 2, reason: `${text} changes ${what} recursively` });
    else if (place.kind === 'catastrophic' || place.kind === 'outside' || place.kind === 'device') finding(c, { tier: 2, reason: `${text} changes ${what} of ${t.raw} outside the workspace` });
  }
};

const ddCheck: Checker = (c) => {
  for (const a of c.args) {
    if (a.value === null || a.value.startsWith('of=')) writeCheck(c, suffixWord(a, 'of='));
  }
};

const diskCheck: Checker = (c) => {
  if (!c.base.startsWith('mkfs') && c.vals.some((v) => v === '-l' || v === '--list')) return;
  if (c.base === 'cryptsetup' && /^(status|luksDump|isLuks|--version|--help)$/.test(c.vals.find((v) => !v.startsWith('-') || v.startsWith('--')) ?? '')) return;
  finding(c, { tier: 1, reason: `${q(c.env.sub.text)} formats or repartitions a disk` });
};

const powerCheck: Checker = (c) => {
  const hit =
    POWER_COMMANDS.has(c.base) ||
    (c.base === 'systemctl' && c.vals.some((v) => SYSTEMCTL_POWER.has(v))) ||
    ((c.base === 'init' || c.base === 'telinit') && c.vals.some((v) => v === '0' || v === '6'));
  if (hit) finding(c, { tier: 1, reason: `${q(c.env.sub.text)} shuts down or restarts the machine` });
};

const killCheck: Checker = (c) => {
  let i = 0;
  if (c.vals[0] === '-s' || c.vals[0] === '-n') i = 2;
  else if (c.vals[0]?.startsWith('-') && c.vals[0] !== '--' && c.vals[0] !== '-1') i = 1;
  if (c.vals[i] === '--') i++;
  if (c.vals.slice(i).includes('-1')) finding(c, { tier: 2, reason: `${q(c.env.sub.text)} signals every process you own` });
};

const teeCheck: Checker = (c) => {
  let writes = false;
  for (const a of c.args) if (!(a.value !== null && a.value.startsWith('-'))) writes = writeCheck(c, a) || writes;
  c.env.sub.readOnly = !writes;
  return false;
};

/** cp / mv / ln / install / rsync: the destination is a write; mv also takes its sources away. */
const copyCheck: Checker = (c) => {
  const text = q(c.env.sub.text);
  const ops = c.args.filter((a) => !(a.value !== null && a.value.startsWith('-')));
  const targetOpt = c.args.findIndex((a) => a.value === '-t' || a.value?.startsWith('--target-directory'));
  let dest: Word | undefined;
  if (targetOpt >= 0) {
    const a = c.args[targetOpt]!;
    dest = a.value === '-t' ? c.args[targetOpt + 1] : suffixWord(a, `${a.value!.split('=')[0]}=`);
  } else if (ops.length >= 2) dest = ops[ops.length - 1];
  const remote = (w: Word) => c.base === 'rsync' && w.value !== null && /^[^/]*:/.test(w.value);
  if (dest && !remote(dest)) writeCheck(c, dest);
  if (c.base === 'rsync' && c.vals.some((v) => v.startsWith('--delete'))) finding(c, { tier: 2, reason: `${text} deletes files in the destination that the source lacks` });
  if (c.base !== 'mv') return;
  for (const src of ops.filter((w) => w !== dest)) {
    const place = worstPlace(placesOf(src, c.env));
    if (place?.kind === 'catastrophic') finding(c, { tier: place.contents ? 2 : 1, reason: `${text} moves ${place.contents ? 'everything in ' : ''}${place.desc} away` });
    else if (place?.kind === 'outside') finding(c, { tier: 2, reason: `${text} moves ${src.raw} from outside the workspace` });
  }
};

const sedCheck: Checker = (c) => {
  if (!c.vals.some((v) => v === '--in-place' || v.startsWith('--in-place=') || /^-[a-zA-Z]*i/.test(v))) return;
  const hasScriptOpt = c.vals.some((v) => v === '-e' || v === '-f' || v.startsWith('--expression') || v.startsWith('--file'));
  const files: Word[] = [];
  for (let i = 0; i < c.args.length; i++) {
    const v = c.vals[i]!;
    if (v === '-e' || v === '-f') i++;
    else if (!v.startsWith('-')) files.push(c.args[i]!);
  }
  for (const f of hasScriptOpt ? files : files.slice(1)) writeCheck(c, f);
};

const downloadCheck: Checker = (c) => {
  const flags = c.base === 'wget' ? ['-O', '--output-document'] : ['-o', '--output'];
  c.args.forEach((a, i) => {
    const v = c.vals[i]!;
    const next = c.args[i + 1];
    if (flags.includes(v) && next && next.value !== '-') writeCheck(c, next);
    else if (flags[1] && v.startsWith(`${flags[1]}=`)) writeCheck(c, suffixWord(a, `${flags[1]}=`));
  });
};

const simpleTier2 = (what: string): Checker => (c) => {
  finding(c, { tier: 2, reason: `${q(c.env.sub.text)} ${what}` });
};

const shredCheck: Checker = (c) => {
  const devices = c.args.some((a) => placesOf(a, c.env).some((p) => p.kind === 'device' && p.disk));
  finding(c, devices ? { tier: 1, reason: `${q(c.env.sub.text)} overwrites a disk device` } : { tier: 2, reason: `${q(c.env.sub.text)} destroys file contents beyond recovery` });
};

const crontabCheck: Checker = (c) => {
  if (c.vals.some((v) => /^-[a-z]*r/.test(v))) finding(c, { tier: 2, reason: `${q(c.env.sub.text)} removes all your cron jobs` });
};

const diskutilCheck: Checker = (c) => {
  if (c.vals.some((v) => DISKUTIL_ERASE.has(v))) finding(c, { tier: 1, reason: `${q(c.env.sub.text)} erases or repartitions a disk` });
};

/** tar extracting with -C DIR writes into DIR. */
const tarCheck: Checker = (c) => {
  const first = c.vals[0] ?? '';
  const extracts = c.vals.some((v) => v === '--extract' || v === '--get') || (/^-?[a-zA-Z]+$/.test(first) && first.includes('x'));
  if (!extracts) return;
  c.args.forEach((a, i) => {
    const v = c.vals[i]!;
    const next = c.args[i + 1];
    if ((v === '-C' || v === '--directory') && next) writeCheck(c, next);
    else if (v.startsWith('--directory=')) writeCheck(c, suffixWord(a, '--directory='));
  });
};

const CHECKS: Record<string, Checker> = {
  rm: rmCheck, chmod: modeCheck, chown: modeCheck, chgrp: modeCheck, dd: ddCheck,
  shutdown: powerCheck, reboot: powerCheck, halt: powerCheck, poweroff: powerCheck, systemctl: powerCheck, init: powerCheck, telinit: powerCheck,
  kill: killCheck, tee: teeCheck, cp: copyCheck, mv: copyCheck, ln: copyCheck, install: copyCheck, rsync: copyCheck,
  sed: sedCheck, curl: downloadCheck, wget: downloadCheck, shred: shredCheck, crontab: crontabCheck, diskutil: diskutilCheck,
  truncate: simpleTier2('cuts files to a given size; what is cut is lost'),
  tar: tarCheck, ...EXEC_CHECKS, ...GIT_FIND_CHECKS, ...BUILTIN_CHECKS,
};

/**
 * Judge one command line (name and arguments): apply its check, then — unless the check
 * handled it (a wrapper) — its read-only state and rule key.
 */
export function checkArgv(c: Check): void {
  const { base } = c;
  let handled: boolean | void = false;
  // classes that hold for any command: options that run programs, secrets sent away, publishing, containers, package runners, sed scripts
  execOptionCheck(c);
  outputOptionCheck(c);
  uploadCheck(c);
  publishCheck(c);
  containerCheck(c);
  runnerCheck(c);
  sedScriptCheck(c);
  if (ROOT_COMMANDS.has(base)) handled = rootCheck(c);
  else if (WRAPPERS[base]) handled = wrapperCheck(c);
  else if (Object.hasOwn(WRAPPER_CHECKS, base)) handled = WRAPPER_CHECKS[base]!(c);
  else if (base.startsWith('mkfs') || DISK_COMMANDS.has(base)) handled = diskCheck(c);
  else if (SHELLS.has(base)) handled = shellCheck(c);
  else if (INTERPRETERS[base]) handled = interpreterCheck(c);
  else if (Object.hasOwn(CHECKS, base)) handled = CHECKS[base]!(c);
  if (handled) return;
  c.env.sub.key = ruleKeyOf(base, c.name, c.vals, ruleKeyFor([c.name, ...c.vals]));
  const awk = awkCheck(c) || ['awk', 'gawk', 'mawk', 'nawk'].includes(base);
  if (!c.trusted) c.env.sub.readOnly = false;
  else if (c.args.length === 1 && VERSION_QUERY.has(base) && VERSION_ARGS.has(c.vals[0]!)) {
    const chosen = Object.hasOwn(WORKSPACE_CHOSEN_TOOLCHAIN, base) ? WORKSPACE_CHOSEN_TOOLCHAIN[base] : undefined;
    if (!chosen) return;
    c.env.sub.readOnly = false;
    finding(c, { reason: `${q(c.env.sub.text)} ${chosen}` });
  } else if (base === 'command' && isCommandLookup(c.vals)) return;
  else if (base === 'tee' || base === 'env' || base === 'git' || base === 'find' || awk) return; // their checks decided
  else {
    const rule = Object.hasOwn(READ_ONLY, base) ? READ_ONLY[base] : undefined;
    if (!rule || (rule !== true && !rule(c.vals))) c.env.sub.readOnly = false;
  }
}

