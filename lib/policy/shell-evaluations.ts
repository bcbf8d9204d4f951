/**
 * Where bash evaluates text a second time. An arithmetic context — `(( ))`, `$(( ))`, `for (( ))`, an indexed
 * array's subscript, `${x:offset:length}`, the operands of `[[ -eq/-lt/… ]]` — reads a variable's value as an
 * arithmetic expression, and an array subscript inside that value runs the code in it: with
 * `x='a[$(rm -rf d)]'`, `[[ $x -eq 0 ]]` runs rm. `${!x}`, `[[ -v … ]]` read a value as a variable name (a
 * subscript again), `${x@P}` as a prompt (command substitutions run). This module finds those contexts in the
 * tree and says what each reads: a variable's value, a literal text, or something only the run knows.
 */
import type { Node as TsNode } from 'web-tree-sitter';
import { evalWord, type Evaluation } from './shell-ir';

/** `[[ a OP b ]]` operators that compare numbers: both operands are arithmetic expressions. */
const ARITH_TEST_OPS = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge']);
/** Integer constants bash reads in arithmetic: decimal, 0x…, base#digits (octal is decimal-shaped). */
const ARITH_NUMBER = /^(0[xX][0-9a-fA-F]+|\d+#[0-9a-zA-Z@_]+|\d+)$/;
const IDENT = /^[A-Za-z_]\w*$/;
const ASSIGN_OPS = new Set(['=', '+=', '-=', '*=', '/=', '%=', '<<=', '>>=', '&=', '^=', '|=']);

/** What the collection finds: the evaluations, and the variables an arithmetic assignment gives a number. */
export interface Found {
  evaluations: Evaluation[];
  numeric: Set<string>;
}

const clip = (s: string): string => (s.length > 60 ? `${s.slice(0, 59)}…` : s);

/** Records one evaluation of the arithmetic expression being read. */
type AddArith = (e: Omit<Evaluation, 'as' | 'source'>) => void;

/**
 * The values an arithmetic expression reads (walked from `node`). Subscripts' indexes, substitutions and
 * expansions are contexts of their own, found by the caller's walk; here only what their result feeds in.
 */
export function arithmetic(node: TsNode, context: string, out: Found): void {
  arithNode(node, out, (e) => {
    out.evaluations.push({ as: 'arith', source: context, ...e });
  });
}

/** One node of an arithmetic expression: the value it reads, or its parts read in turn. */
function arithNode(n: TsNode, out: Found, add: AddArith): void {
  switch (n.type) {
    case 'number':
      return;
    case 'variable_name':
    case 'word':
      if (ARITH_NUMBER.test(n.text)) return;
      if (IDENT.test(n.text)) return add({ variable: n.text });
      return add({ text: n.text });
    case 'simple_expansion': {
      const name = n.namedChildren.find((c) => c?.type === 'variable_name' || c?.type === 'special_variable_name');
      return name ? add({ variable: name.text }) : add({ unknown: `the value of ${clip(n.text)}` });
    }
    case 'expansion':
      return expansionValue(n, add);
    case 'command_substitution':
    case 'process_substitution':
      return add({ unknown: `the output of \`${clip(n.text)}\`` });
    case 'subscript': {
      // the element's value is one of the values the array is given; the index is a context of its own
      const name = n.childForFieldName('name');
      return name ? add({ variable: name.text }) : add({ unknown: `the array element ${clip(n.text)}` });
    }
    case 'raw_string':
      return add({ text: n.text.slice(1, -1) });
    case 'string': {
      const w = evalWord(n);
      if (w.value !== null) return add({ text: w.value });
      for (const c of n.namedChildren) if (c && c.type !== 'string_content') arithNode(c, out, add);
      return;
    }
    case 'binary_expression':
    case 'variable_assignment':
      return arithAssignment(n, out, add);
    case 'postfix_expression':
    case 'unary_expression':
      return arithStep(n, out, add);
    default:
      return arithParts(n, out, add);
  }
}

/** Every named part of `n` but the one with id `skip`. */
function arithParts(n: TsNode, out: Found, add: AddArith, skip?: number): void {
  for (const c of n.namedChildren) if (c && c.id !== skip) arithNode(c, out, add);
}

/** `x = e`, `x += e` …: x gets a number (and `+=` and the like read it first); other operators read both sides. */
function arithAssignment(n: TsNode, out: Found, add: AddArith): void {
  const left = n.childForFieldName('left') ?? n.childForFieldName('name');
  const op = n.childForFieldName('operator')?.text ?? (n.type === 'variable_assignment' ? '=' : '');
  if (!(left && ASSIGN_OPS.has(op) && IDENT.test(left.text))) return arithParts(n, out, add);
  out.numeric.add(left.text);
  if (op !== '=') add({ variable: left.text });
  arithParts(n, out, add, left.id);
}

/** `x++`, `--x`: x gets a number; the operand is read either way. */
function arithStep(n: TsNode, out: Found, add: AddArith): void {
  if (n.children.some((c) => c?.text === '++' || c?.text === '--')) {
    const v = n.namedChildren.find((c) => c && IDENT.test(c.text));
    if (v) out.numeric.add(v.text);
  }
  arithParts(n, out, add);
}

/** `${x}` reads x; `${#x}` is a number; any other expansion's result is only known when it runs. */
function expansionValue(n: TsNode, add: AddArith): void {
  const inner = n.children.filter((c): c is TsNode => !!c && c.type !== '${' && c.type !== '}');
  if (inner[0]?.type === '#' || inner[0]?.text === '#') return;
  if (inner.length === 1 && (inner[0]!.type === 'variable_name' || inner[0]!.type === 'special_variable_name')) return add({ variable: inner[0]!.text });
  add({ unknown: `the value of ${clip(n.text)}` });
}

/** The contexts inside a `${…}` expansion: indirection, prompt expansion, substring offset and length. */
export function expansionContexts(n: TsNode, out: Found): void {
  const parts = n.children.filter((c): c is TsNode => !!c && c.type !== '${' && c.type !== '}');
  const ops = parts.map((p) => (p.type === p.text && !p.isNamed ? p.text : null));
  const name = parts.find((p) => p.type === 'variable_name' || p.type === 'special_variable_name');
  // ${!x}, ${!x:-d}, ${!x@P}: x's value names the variable read (not ${!x*}, ${!x@} or ${!a[@]}, which list names)
  const lists = parts.length === 3 && (ops[2] === '*' || ops[2] === '@');
  if (ops[0] === '!' && name && parts[1] === name && !lists) out.evaluations.push({ as: 'name', variable: name.text, source: n.text });
  // ${x@P}, ${a[@]@P}: the values are expanded as prompts
  const at = ops.indexOf('@');
  const target = name ?? parts[0]?.childForFieldName('name');
  if (at >= 0 && parts[at + 1]?.text === 'P' && target) out.evaluations.push({ as: 'prompt', variable: target.text, source: n.text });
  // ${x:offset} and ${x:offset:length} (not ${x:-…}, ${x:=…} …): what follows each bare `:` is arithmetic
  const colon = ops.indexOf(':');
  if (colon >= 0 && (name || parts[0]?.type === 'subscript')) {
    for (const p of parts.slice(colon + 1)) if (p.isNamed) arithmetic(p, n.text, out);
  }
}

/** A subscript's index is arithmetic (indexed arrays), except `[@]` and `[*]`. */
export function subscriptContext(n: TsNode, out: Found): void {
  const index = n.childForFieldName('index');
  if (!index || index.text === '@' || index.text === '*') return;
  const from = out.evaluations.length;
  arithmetic(index, n.text, out);
  const array = n.childForFieldName('name')?.text;
  for (const e of out.evaluations.slice(from)) e.array = array;
}

/**
 * `[[ a -eq b ]]` reads both operands as arithmetic (`[ ]`, the test builtin, does not), and `[[ -v name ]]`
 * and `[ -v name ]` their operand as a variable name.
 */
export function testContexts(n: TsNode, out: Found, doubleBracket: boolean): void {
  const visit = (x: TsNode): void => {
    const op = x.childForFieldName('operator')?.text;
    if (doubleBracket && x.type === 'binary_expression' && op && ARITH_TEST_OPS.has(op)) {
      for (const side of ['left', 'right']) {
        const w = x.childForFieldName(side);
        if (w) out.evaluations.push({ ...operand(w), as: 'arith', source: x.text });
      }
    } else if (x.type === 'unary_expression' && (op === '-v' || op === '-R')) {
      const w = x.namedChildren.find((c) => c && c.type !== 'test_operator');
      if (w) out.evaluations.push({ ...nameOperand(w), source: x.text });
    }
    for (const c of x.namedChildren) if (c) visit(c);
  };
  visit(n);
}

/** `([k]=v …)`: each `[k]` of an array literal is a subscript. */
export function arrayKeys(n: TsNode, out: Found): void {
  const array = n.parent?.type === 'variable_assignment' ? n.parent.childForFieldName('name')?.text : undefined;
  const from = out.evaluations.length;
  for (const el of n.namedChildren) {
    if (el?.type !== 'concatenation' || el.namedChildren[0]?.text !== '[') continue;
    const kids = el.namedChildren.filter((c): c is TsNode => !!c);
    const close = kids.findIndex((c, i) => i > 0 && c.text.startsWith(']'));
    if (close < 0) continue;
    const key = kids.slice(1, close);
    if (key.length === 1) out.evaluations.push({ ...operand(key[0]!), as: 'arith', source: el.text });
    else if (key.length > 1) out.evaluations.push({ as: 'arith', unknown: `the key ${clip(el.text)}`, source: el.text });
  }
  for (const e of out.evaluations.slice(from)) e.array = array;
}

/** A name operand: its text, one variable's value, or `name[$i]`, whose subscript reads $i as arithmetic. */
function nameOperand(w: TsNode): Omit<Evaluation, 'source'> {
  const sub = /^[A-Za-z_]\w*\[("?)\$(?:\{(\w+)\}|(\w+))\1\]$/.exec(w.text);
  if (sub) return { as: 'arith', variable: sub[2] ?? sub[3]! };
  return { ...operand(w), as: 'name' };
}

/** What a word hands a context: its literal text, one variable's value, or something only the run knows. */
function operand(w: TsNode): Omit<Evaluation, 'as' | 'source'> {
  const word = evalWord(w);
  if (word.value !== null) return { text: word.value };
  const m = /^("?)\$(?:\{(\w+|[#?$!@*-])\}|(\w+|[#?$!@*-]))\1$/.exec(w.text);
  if (m) return { variable: m[2] ?? m[3]! };
  return { unknown: `the value of ${clip(w.text)}` };
}
