/**
 * The plain-data form of a parsed script that the judge reads (no tree-sitter types leak out),
 * and word evaluation: quotes removed, `~` and $HOME marked for expansion, unquoted globs and
 * braces flagged, and anything only the run can know (other variables, substitutions,
 * arithmetic) turned into null.
 */
import type { Node as TsNode } from 'web-tree-sitter';

/** One shell word after quote removal, as far as it can be known before it runs. */
export interface Word {
  /** the value after quote removal; null when it depends on a run-time expansion */
  value: string | null;
  /** the source text */
  raw: string;
  /** the value starts with a tilde (or $HOME) that the shell expands to a home directory */
  tilde: boolean;
  /** unquoted glob characters (* ? [) remain in the value */
  glob: boolean;
  /** unquoted braces remain in the value (a possible {a,b} expansion) */
  brace: boolean;
}

export interface Redirect {
  /** the operator: > >> >| &> &>> <> >& < <& … */
  op: string;
  /** the target file; null for a descriptor duplication (2>&1, >&-) */
  target: Word | null;
  text: string;
}

/** What a command reads on stdin from the script itself. */
export interface StdinText {
  kind: 'heredoc' | 'herestring';
  /** the text fed in (raw when it holds expansions) */
  text: string;
}

/**
 * Text bash evaluates a second time: as an arithmetic expression (where an array subscript runs the code in it),
 * as a variable name (`${!x}`, `[[ -v … ]]`: a subscript again) or as a prompt (`${x@P}`: substitutions run).
 * Exactly one of `variable`, `text` and `unknown` is set.
 */
export interface Evaluation {
  as: 'arith' | 'name' | 'prompt';
  /** the value of this variable is what is read */
  variable?: string;
  /** a text known before the run is what is read */
  text?: string;
  /** what is read is only known when it runs: what it is ("the output of `$(cat f)`") */
  unknown?: string;
  /** the context's source text, for reasons */
  source: string;
  /** the array whose subscript this is (an associative array's subscripts are not arithmetic) */
  array?: string;
}

/** A variable bound outside a plain assignment: a for/select loop word, an arithmetic assignment, ${x:=…}. */
export interface Binding {
  name: string;
  /** the value when known (a loop's literal word) */
  value: Word | null;
  /** an arithmetic assignment: the value is a number */
  numeric: boolean;
}

/** One command that can run: a simple command, a [ ] / [[ ]] test, an assignment, a bare redirect or `(( ))`. */
export interface ShellCommand {
  kind: 'command' | 'test' | 'assign' | 'declare' | 'redirect' | 'arith';
  /** the command's own source text, with its redirects (for the approval UI) */
  text: string;
  /** FOO=1 prefixes (and the assignments of `export`, `local` …); `append` for `x+=…`, `elements` for `a=(…)` */
  assignments: { name: string; value: Word | null; append?: true; elements?: Word[] }[];
  /** name first, then the arguments; for 'declare' the keyword first */
  words: Word[];
  redirects: Redirect[];
  stdin: StdinText | null;
  /** indices of the commands in earlier stages of the same pipeline */
  upstream: number[];
  /** indices of the commands that must succeed before this one runs (left of &&) */
  guards: number[];
  /** inside $(…) or backticks */
  inSubstitution: boolean;
  /** the texts this command makes bash evaluate again (arithmetic, names, prompts) */
  evaluations: Evaluation[];
}

export interface ShellFunction {
  name: string;
  text: string;
  /** its body calls the function itself */
  recursive: boolean;
  /** its body holds a pipeline or a background job */
  spawns: boolean;
}

export interface ParsedScript {
  commands: ShellCommand[];
  functions: ShellFunction[];
  /** source texts of every $(…) and backtick substitution */
  substitutions: string[];
  /** variables bound by loops, arithmetic and ${x:=…} (plain assignments are on the commands) */
  bindings: Binding[];
  /** why the text is not clean shell syntax; null when it parsed */
  error: string | null;
}

/** A word known exactly (a keyword or a synthetic argument). */
export function literalWord(value: string): Word {
  return { value, raw: value, tilde: false, glob: false, brace: false };
}

interface WordState {
  value: string | null;
  tilde: boolean;
  glob: boolean;
  brace: boolean;
}

/** Evaluate a word node as far as static analysis allows. */
export function evalWord(node: TsNode): Word {
  const st: WordState = { value: '', tilde: false, glob: false, brace: false };
  appendPart(node, st, true);
  return { ...st, raw: node.text };
}

function add(st: WordState, text: string): void {
  if (st.value !== null) st.value += text;
}

function appendPart(node: TsNode, st: WordState, atStart: boolean): void {
  switch (node.type) {
    case 'word': {
      const text = node.text;
      if (atStart && text.startsWith('~')) st.tilde = true;
      let out = '';
      for (let i = 0; i < text.length; i++) {
        const ch = text[i]!;
        if (ch === '\\') {
          const nextCh = text[i + 1];
          if (nextCh !== undefined && nextCh !== '\n') out += nextCh;
          i++;
          continue;
        }
        if (ch === '*' || ch === '?' || ch === '[') st.glob = true;
        if (ch === '{' || ch === '}') st.brace = true;
        out += ch;
      }
      return add(st, out);
    }
    case 'number':
      return add(st, node.text);
    case 'raw_string':
      return add(st, node.text.slice(1, -1));
    case 'ansi_c_string':
      return add(st, decodeAnsiC(node.text.slice(2, -1)));
    case 'string':
    case 'translated_string':
      for (const child of node.children) {
        if (!child) continue;
        if (!child.isNamed) continue;
        if (child.type === 'string_content') add(st, child.text.replace(/\\([$`"\\\n])/g, (_m, c: string) => (c === '\n' ? '' : c)));
        else appendExpansion(child, st, atStart && st.value === '');
      }
      return;
    case 'concatenation':
      node.children.forEach((child, i) => child && appendPart(child, st, atStart && i === 0));
      return;
    default:
      return appendExpansion(node, st, atStart);
  }
}

/** $HOME and $PWD at the start of a word are known; any other expansion is not. */
function appendExpansion(node: TsNode, st: WordState, atStart: boolean): void {
  if ((node.type === 'simple_expansion' || node.type === 'expansion') && atStart) {
    const text = node.text;
    if (text === '$HOME' || text === '${HOME}') {
      st.tilde = true;
      return add(st, '~');
    }
    if (text === '$PWD' || text === '${PWD}') return add(st, '.');
  }
  st.value = null;
}

function decodeAnsiC(body: string): string {
  const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', v: '\v', '\\': '\\', "'": "'", '"': '"', '?': '?' };
  return body.replace(/\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|.)/g, (_m, esc: string) => {
    if (esc[0] === 'x' || esc[0] === 'u' || esc[0] === 'U') return String.fromCodePoint(parseInt(esc.slice(1), 16));
    if (/^[0-7]+$/.test(esc)) return String.fromCharCode(parseInt(esc, 8));
    return simple[esc] ?? `\\${esc}`;
  });
}

// ——— tree nodes to plain data ———

export function children(node: TsNode): TsNode[] {
  return node.children.filter((c): c is TsNode => c !== null);
}

export function named(node: TsNode): TsNode[] {
  return node.namedChildren.filter((c): c is TsNode => c !== null);
}

export function assignmentOf(node: TsNode): ShellCommand['assignments'][number] {
  const value = node.childForFieldName('value');
  const append = node.children.some((c) => c?.type === '+=');
  // an array literal's elements, `[k]=` keys taken off (the keys are judged as subscripts)
  const elements = value?.type === 'array'
    ? named(value).map((el) => {
        const w = evalWord(el);
        const key = w.value === null ? null : /^\[[^\]]*\]=/.exec(w.value);
        return key ? { ...w, value: w.value!.slice(key[0].length) } : w;
      })
    : undefined;
  return {
    name: node.childForFieldName('name')?.text ?? '',
    value: value ? evalWord(value) : literalWord(''),
    ...(append ? { append: true as const } : {}),
    ...(elements ? { elements } : {}),
  };
}

export function redirectOf(node: TsNode): Redirect | null {
  const op = children(node).find((c) => !c.isNamed)?.text ?? '';
  const dest = node.childForFieldName('destination');
  if (!dest) return null;
  // >&2, 2>&1, >&- duplicate or close a descriptor; >&file writes a file like &>file
  const dup = (op === '>&' || op === '<&') && (dest.type === 'number' || dest.text === '-');
  return { op, target: dup ? null : evalWord(dest), text: node.text };
}
