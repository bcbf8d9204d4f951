/**
 * Judging the texts bash evaluates a second time (shell-evaluations.ts finds them): an arithmetic expression,
 * a variable name or a prompt string. What such a context reads is judged by what it can hold: a variable's
 * values are every value the script gives it (a literal, a number, another variable, or something only the
 * run knows), looked at together, so a loop or a branch cannot hide one. A literal that puts code in an array
 * subscript (`a[$(rm -rf d)]`) runs that code: the command is opaque and the code is judged as a script. A value
 * the judge cannot see makes the command ask, because it could hold such a subscript.
 */
import type { Evaluation, ParsedScript, ShellCommand, Word } from './shell-parse';
import { q, type CheckEnv } from './command-check-kit';

type Value = { kind: 'text'; text: string } | { kind: 'number' } | { kind: 'alias'; name: string } | { kind: 'unknown'; why: string };

/** What a script does to its variables, all at once (the order of a run is not assumed). */
export interface VarFacts {
  values: Map<string, Value[]>;
  /** why any variable may hold anything (the script runs eval or source); null when it does not */
  anything: string | null;
  /** declared integer (-i): every value assigned to them is evaluated as arithmetic */
  integer: Set<string>;
  /** declared name references (-n): their values are variable names */
  nameref: Set<string>;
  /** associative arrays (-A) and the command that declares each: later subscripts are strings, not arithmetic */
  assoc: Map<string, number>;
  /**
   * Code in array subscripts written in the line's literal texts (`'a[$(rm -rf d)]'`, a here-doc): when a value
   * the judge cannot follow is evaluated, it may be one of these, carried there by printf, read or a file.
   */
  payloads: string[];
}

/**
 * `name[… $(…) …]` or `name[… \`…\` …]` in a literal text: the subscript's inside. One pass: between two `]`,
 * the first `name[` opens the widest subscript that closes at the second.
 */
function subscriptCode(text: string): string[] {
  const out: string[] = [];
  let from = 0;
  for (let close = text.indexOf(']'); close >= 0; from = close + 1, close = text.indexOf(']', from)) {
    const open = /[A-Za-z_]\w*\[/.exec(text.slice(from, close));
    if (!open) continue;
    const inside = text.slice(from + open.index + open[0].length, close);
    if (inside.includes('$(') || inside.includes('`')) out.push(inside);
  }
  return out;
}

/** Variables bash sets to numbers itself. */
const SHELL_NUMBERS = new Set(['#', '?', '$', '!', 'RANDOM', 'SRANDOM', 'LINENO', 'SECONDS', 'BASHPID', 'PPID', 'UID', 'EUID', 'EPOCHSECONDS', 'BASH_SUBSHELL', 'OPTIND', 'HISTCMD']);
const IDENT = /^[A-Za-z_]\w*$/;
const MAX_DEPTH = 6;
/** Variable look-ups one evaluation may make before it gives up (and asks): values can name each other widely. */
const MAX_LOOKUPS = 2000;

/** The facts of a parsed script. */
export function varFacts(parsed: ParsedScript): VarFacts {
  const facts: VarFacts = { values: new Map(), anything: null, integer: new Set(), nameref: new Set(), assoc: new Map(), payloads: [] };
  const bind = (name: string, v: Value) => {
    const base = name.replace(/\[.*$/s, '');
    const list = facts.values.get(base) ?? [];
    // an element (a[i]=v) is one more value the array holds
    list.push(v);
    facts.values.set(base, list);
  };
  parsed.commands.forEach((cmd, index) => {
    // the source text too where the value is not known (an array literal, a quoted part beside an expansion)
    const texts = [...cmd.words.map((w) => w.value ?? w.raw), ...cmd.assignments.map((a) => a.value?.value ?? a.value?.raw), cmd.stdin?.text];
    for (const t of texts) if (t) facts.payloads.push(...subscriptCode(t));
    if (cmd.kind === 'assign' || cmd.kind === 'declare') {
      const flags = cmd.kind === 'declare' ? cmd.words.slice(1).flatMap((w) => (w.value && /^[-+]\w+$/.test(w.value) && w.value[0] === '-' ? [w.value.slice(1)] : [])).join('') : '';
      for (const a of cmd.assignments) {
        if (flags.includes('i')) facts.integer.add(a.name);
        if (flags.includes('n') && cmd.words[0]?.value !== 'export') facts.nameref.add(a.name);
        if (flags.includes('A') && !facts.assoc.has(a.name)) facts.assoc.set(a.name, index);
        if (a.elements) for (const el of a.elements) bind(a.name.replace(/\[.*$/s, ''), valueOf(el));
        else if (a.value === null) continue;
        else bind(a.name, a.append ? { kind: 'unknown', why: `${a.name} is appended to` } : valueOf(a.value));
      }
      return;
    }
    if (cmd.kind === 'command') commandBindings(cmd, bind, facts);
  });
  for (const b of parsed.bindings) {
    bind(b.name, b.numeric ? { kind: 'number' } : b.value ? valueOf(b.value) : { kind: 'unknown', why: `${b.name} is set by a loop or a default only known when it runs` });
  }
  return facts;
}

function valueOf(w: Word): Value {
  if (w.value !== null) return { kind: 'text', text: w.value };
  if (/^\$\(\(.*\)\)$/s.test(w.raw)) return { kind: 'number' };
  const m = /^("?)\$(?:\{(\w+)\}|(\w+))\1$/.exec(w.raw);
  if (m) return { kind: 'alias', name: m[2] ?? m[3]! };
  return { kind: 'unknown', why: `it is set to ${q(w.raw)}, only known when it runs` };
}

/** Variables set by builtins: read, mapfile, printf -v, getopts, let, wait -p; eval and source can set any. */
function commandBindings(cmd: ShellCommand, bind: (name: string, v: Value) => void, facts: VarFacts): void {
  const words = cmd.words[0]?.value === 'builtin' || cmd.words[0]?.value === 'command' ? cmd.words.slice(1) : cmd.words;
  const name = words[0]?.value;
  const vals = words.slice(1).map((w) => w.value ?? w.raw);
  const input: Value = { kind: 'unknown', why: `${name} sets it to a value only known when it runs` };
  const after = (flag: string) => vals.flatMap((v, i) => (v === flag && vals[i + 1] ? [vals[i + 1]!] : v.startsWith(flag) && v.length > flag.length && flag.length === 2 ? [v.slice(2)] : []));
  if (name === 'eval' || name === 'source' || name === '.') facts.anything = `the line runs ${name}, which can set any variable`;
  else if (name === 'read') {
    const names = vals.filter((v, i) => !v.startsWith('-') && !/^-[a-zA-Z]*[adinNptu]$/.test(vals[i - 1] ?? ''));
    for (const n of [...names, ...after('-a'), ...(names.length ? [] : ['REPLY'])]) bind(n, input);
  } else if (name === 'mapfile' || name === 'readarray') bind(vals.filter((v) => !v.startsWith('-')).pop() ?? 'MAPFILE', input);
  else if (name === 'printf') for (const n of after('-v')) bind(n, input);
  else if (name === 'getopts') {
    if (vals[1]) bind(vals[1], input);
    bind('OPTARG', input);
  } else if (name === 'let') for (const v of vals) { const m = /^([A-Za-z_]\w*)\s*[-+*/%&|^]?=/.exec(v); if (m) bind(m[1]!, { kind: 'number' }); }
  else if (name === 'wait') for (const n of after('-p')) bind(n, { kind: 'number' });
}

/** How a context reads what it is given; a finding names the outcome. */
interface Outcome {
  /** texts whose code runs (an array subscript's, a prompt's) */
  code: string[];
  unknown: string | null;
}

const SAFE: Outcome = { code: [], unknown: null };
const merge = (a: Outcome, b: Outcome): Outcome => ({ code: [...a.code, ...b.code], unknown: a.unknown ?? b.unknown });

class Reader {
  private lookups = 0;
  constructor(private facts: VarFacts) {}

  variable(name: string, as: Evaluation['as'], depth: number, seen: ReadonlySet<string>): Outcome {
    const values = this.facts.values.get(name);
    if (this.facts.anything) return { code: [], unknown: this.facts.anything };
    if (++this.lookups > MAX_LOOKUPS) return { code: [], unknown: `$${name} leads through more values than Clamp follows` };
    if (!values) {
      if (SHELL_NUMBERS.has(name)) return SAFE;
      return { code: [], unknown: /^(\d+|[@*-])$/.test(name) ? `$${name} is an argument only known when it runs` : `$${name} comes from the environment` };
    }
    if (seen.has(name)) return { code: [], unknown: `$${name} refers to itself through other variables` };
    if (depth > MAX_DEPTH) return { code: [], unknown: `$${name} leads through more values than Clamp follows` };
    const next = new Set(seen).add(name);
    return values.reduce<Outcome>((out, v) => {
      if (v.kind === 'number') return out;
      if (v.kind === 'unknown') return merge(out, { code: [], unknown: v.why });
      if (v.kind === 'alias') return merge(out, this.variable(v.name, as, depth + 1, next));
      return merge(out, this.text(v.text, as, depth + 1, next));
    }, SAFE);
  }

  text(text: string, as: Evaluation['as'], depth: number, seen: ReadonlySet<string>): Outcome {
    if (as === 'prompt') return /[$`]/.test(text) ? { code: [text], unknown: null } : SAFE;
    if (as === 'name') {
      if (IDENT.test(text) || /^(\d+|[#?$!@*-])$/.test(text)) return SAFE;
      const m = /^[A-Za-z_]\w*\[(.*)\]$/s.exec(text);
      if (m) return m[1] === '@' || m[1] === '*' ? SAFE : this.subscript(m[1]!, depth, seen);
      return /[$`]/.test(text) ? { code: [text], unknown: null } : { code: [], unknown: `${q(text)} is not a plain variable name` };
    }
    return this.arithmetic(text, depth, seen);
  }

  /** An array subscript: expanded (so `$(…)` and backticks run), then evaluated as arithmetic. */
  private subscript(inner: string, depth: number, seen: ReadonlySet<string>): Outcome {
    if (/[$`]/.test(inner)) return { code: [inner], unknown: null };
    return this.arithmetic(inner, depth + 1, seen);
  }

  /** An arithmetic expression's text: numbers and operators are safe, names are read, subscripts expanded. */
  private arithmetic(text: string, depth: number, seen: ReadonlySet<string>): Outcome {
    let out = SAFE;
    const plain = { code: [], unknown: `${q(text)} is not a plain arithmetic expression` };
    const skipper = /\s+|[-+*/%<>=!&|^~?:,()]|0[xX][0-9a-fA-F]+|\d+#[0-9a-zA-Z@_]+|\d+/y;
    const namer = /[A-Za-z_]\w*/y;
    for (let i = 0; i < text.length; ) {
      skipper.lastIndex = i;
      const skip = skipper.exec(text);
      if (skip) {
        i += skip[0].length;
        continue;
      }
      namer.lastIndex = i;
      const ident = namer.exec(text);
      if (!ident) return merge(out, plain);
      i += ident[0].length;
      if (text[i] !== '[') {
        out = merge(out, this.variable(ident[0], 'arith', depth + 1, seen));
        continue;
      }
      const close = closing(text, i);
      if (close < 0) return merge(out, plain);
      out = merge(out, this.subscript(text.slice(i + 1, close), depth, seen));
      // the element's value is one of the values the array is given
      out = merge(out, this.variable(ident[0], 'arith', depth + 1, seen));
      i = close + 1;
    }
    return out;
  }
}

/** The index of the `]` closing the `[` at `open`, or -1. */
function closing(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '[') depth++;
    else if (text[i] === ']' && --depth === 0) return i;
  }
  return -1;
}

const HOW: Record<Evaluation['as'], string> = { arith: 'as arithmetic', name: 'as a variable name', prompt: 'as a prompt string' };

/**
 * Judge one evaluation on the sub-command being judged: code in what it reads is opaque (and judged as a
 * script, so `rm -rf` in it is tier 2); a value the judge cannot see asks.
 */
export function judgeEvaluation(ev: Evaluation, facts: VarFacts, env: CheckEnv, at: number): void {
  // declared -A before (in the text) or by this very command: its subscripts are strings
  if (ev.array && (facts.assoc.get(ev.array) ?? Infinity) <= at) return;
  const reader = new Reader(facts);
  let outcome: Outcome = ev.variable !== undefined
    ? reader.variable(ev.variable, ev.as, 0, new Set())
    : ev.text !== undefined ? reader.text(ev.text, ev.as, 0, new Set()) : { code: [], unknown: `${ev.unknown} is only known when it runs` };
  // a value the judge cannot follow, in a line that writes code in a subscript somewhere: assume it arrives
  if (!outcome.code.length && outcome.unknown && facts.payloads.length) outcome = { code: facts.payloads, unknown: outcome.unknown };
  const what = ev.variable !== undefined ? `$${ev.variable}` : ev.text !== undefined ? q(ev.text) : 'a value';
  const text = q(env.sub.text);
  if (outcome.code.length) {
    env.sub.readOnly = false;
    env.sub.findings.push({ opaque: true, reason: `${text} evaluates ${what} ${HOW[ev.as]}, which runs the code in ${q(outcome.code[0]!)}` });
    for (const code of outcome.code) env.script(`: ${code}`, `the code in ${q(code)}`);
  } else if (outcome.unknown) {
    env.sub.readOnly = false;
    env.sub.findings.push({ exactKey: true, reason: `${text} evaluates ${what} ${HOW[ev.as]}, and ${outcome.unknown}: an array subscript in it (a[$(cmd)]) would run cmd` });
  }
}

/** The evaluation of a command word in a context: its text, one variable's value, or unknown. */
export function wordEvaluation(w: Word, as: Evaluation['as'], source: string): Evaluation {
  if (w.value !== null) return { as, text: w.value, source };
  const v = /^("?)\$(?:\{(\w+|[#?$!@*-])\}|(\w+|[#?$!@*-]))\1$/.exec(w.raw);
  if (v) return { as, variable: v[2] ?? v[3]!, source };
  // name[$i]: the subscript reads $i as arithmetic
  const sub = /^([A-Za-z_]\w*)\[("?)\$(?:\{(\w+)\}|(\w+))\2\]$/.exec(w.raw);
  if (sub && as === 'name') return { as: 'arith', variable: sub[3] ?? sub[4]!, source };
  return { as, unknown: `the value of ${q(w.raw)}`, source };
}
