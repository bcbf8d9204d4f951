/**
 * The walk over a bash parse tree that ShellParser.parse runs: every command that can run, in order, with the
 * pipeline and `&&` links between them, the substitution each sits in, and the evaluations (arithmetic,
 * subscripts, indirect expansions) that belong to each.
 */
import type { Node as TsNode } from 'web-tree-sitter';
import { arithmetic, arrayKeys, expansionContexts, subscriptContext, testContexts, type Found } from './shell-evaluations';
import { assignmentOf, children, evalWord, literalWord, named, redirectOf, type Binding, type Redirect, type ShellCommand, type ShellFunction, type StdinText, type Word } from './shell-ir';

const MAX_DEPTH = 200;

interface WalkCtx {
  inSubst: boolean;
  /** which substitution the walk is in (0 = the top level); pipelines and lists link commands of the same one */
  level: number;
  upstream: number[];
  guards: number[];
  depth: number;
  /** the command whose words are being walked: evaluations found there are its own */
  owner?: number;
}

/** Collects the commands, functions, substitutions and bindings of one parse tree. */
export class Builder {
  commands: ShellCommand[] = [];
  functions: ShellFunction[] = [];
  substitutions: string[] = [];
  bindings: Binding[] = [];
  found: Found = { evaluations: [], numeric: new Set() };
  error: string | null = null;
  /** redirect nodes already attached to a command */
  private attached = new Set<number>();
  /** command node id → index in commands */
  private byNode = new Map<number, number>();
  /** index in commands → the substitution level it was found at */
  private levels: number[] = [];
  private nextLevel = 1;

  /** Walk one node: the commands it holds and what links them (pipelines, lists, substitutions, functions). */
  walk(node: TsNode, ctx: WalkCtx): void {
    if (ctx.depth > MAX_DEPTH) {
      this.error ??= 'it is nested too deeply';
      return;
    }
    if (node.isError || node.isMissing) this.error ??= `unexpected \`${clip(node.text || node.type)}\``;
    const next = { ...ctx, depth: ctx.depth + 1 };
    switch (node.type) {
      case 'comment':
        return;
      case 'command':
        return this.walkChildren(node, { ...next, owner: this.addCommand(node, ctx) });
      case 'command_substitution':
        this.substitutions.push(node.text);
        return this.walkChildren(node, { inSubst: true, level: this.nextLevel++, upstream: [], guards: [], depth: next.depth });
      case 'process_substitution':
        return this.walkChildren(node, { ...next, level: this.nextLevel++, upstream: [], guards: [], owner: undefined });
      case 'for_statement':
        this.bindLoopVariable(node);
        return this.walkChildren(node, next);
      case 'pipeline':
        return this.walkPipeline(node, next);
      case 'list':
        return this.walkList(node, next);
      case 'function_definition':
        return this.walkFunction(node, next);
      case 'test_command':
        return this.walkTest(node, ctx, next);
      case 'variable_assignment':
      case 'variable_assignments':
        return this.walkAssignment(node, ctx, next);
      case 'declaration_command':
      case 'unset_command':
        return this.walkChildren(node, { ...next, owner: this.addDeclaration(node, ctx) });
      case 'file_redirect':
        this.addLooseRedirect(node, ctx);
        return this.walkChildren(node, next);
      case 'heredoc_redirect':
        return this.walkHeredoc(node, next);
      default:
        return this.walkEvaluated(node, ctx, next);
    }
  }

  /** The places bash evaluates text again (arithmetic, subscripts, expansions, array keys); anything else walks on. */
  private walkEvaluated(node: TsNode, ctx: WalkCtx, next: WalkCtx): void {
    switch (node.type) {
      case 'compound_statement':
        if (node.child(0)?.type !== '((') return this.walkChildren(node, next);
        return this.evaluate(node, ctx, (f) => named(node).forEach((c) => arithmetic(c, node.text, f)), true);
      case 'c_style_for_statement':
        return this.walkCStyleFor(node, ctx, next);
      case 'arithmetic_expansion':
        return this.evaluate(node, ctx, (f) => named(node).forEach((c) => arithmetic(c, node.text, f)));
      case 'subscript':
        return this.evaluate(node, ctx, (f) => subscriptContext(node, f));
      case 'expansion':
        if (/^\$\{\w+:?=/.test(node.text)) this.bindings.push({ name: /\w+/.exec(node.text.slice(2))![0], value: null, numeric: false });
        return this.evaluate(node, ctx, (f) => expansionContexts(node, f));
      case 'array':
        return this.evaluate(node, ctx, (f) => arrayKeys(node, f));
      default:
        return this.walkChildren(node, next);
    }
  }

  /** `for ((i = 0; …))`: the header is an arithmetic command of its own; the body walks on as usual. */
  private walkCStyleFor(node: TsNode, ctx: WalkCtx, next: WalkCtx): void {
    const body = node.childForFieldName('body');
    const header = (body ? node.text.slice(0, body.startIndex - node.startIndex) : node.text).replace(/[;\s]+$/, '');
    const index = this.push(node, ctx, { kind: 'arith', text: header });
    for (const c of children(node)) {
      if (c.id !== body?.id && c.isNamed) arithmetic(c, header, this.found);
      this.walk(c, c.id === body?.id ? next : { ...next, owner: index });
    }
    this.attach(index);
  }

  /** `for x in a b`: x takes each value; `for x` (the arguments) and `select` give it one only the run knows. */
  private bindLoopVariable(node: TsNode): void {
    const name = node.childForFieldName('variable')?.text ?? '';
    const values = children(node).filter((c, i) => node.fieldNameForChild(i) === 'value');
    const select = node.child(0)?.type === 'select';
    if (values.length === 0 || select) this.bindings.push({ name, value: null, numeric: false });
    else for (const v of values) this.bindings.push({ name, value: evalWord(v), numeric: false });
  }

  /** `[ … ]` and `[[ … ]]`: a command whose operands may be evaluated (as numbers, as variable names). */
  private walkTest(node: TsNode, ctx: WalkCtx, next: WalkCtx): void {
    const index = this.push(node, ctx, { kind: 'test', text: node.text });
    testContexts(node, this.found, node.child(0)?.type === '[[');
    this.walkChildren(node, { ...next, owner: index });
    this.attach(index);
  }

  /** An assignment standing alone (`x=1`, not a command's prefix or a declaration's argument) is a command of its own. */
  private walkAssignment(node: TsNode, ctx: WalkCtx, next: WalkCtx): void {
    const parent = node.parent?.type;
    if (parent === 'command' || parent === 'declaration_command' || parent === 'variable_assignments') return this.walkChildren(node, next);
    const nodes = node.type === 'variable_assignment' ? [node] : named(node).filter((n) => n.type === 'variable_assignment');
    this.walkChildren(node, { ...next, owner: this.push(node, ctx, { kind: 'assign', text: node.text, assignments: nodes.map(assignmentOf) }) });
  }

  /** A redirect no command took (`> f` alone, one on a compound statement) is a command of its own. */
  private addLooseRedirect(node: TsNode, ctx: WalkCtx): void {
    if (this.attached.has(node.id)) return;
    const r = redirectOf(node);
    if (r) this.push(node, ctx, { kind: 'redirect', text: node.text, redirects: [r] });
  }

  private walkChildren(node: TsNode, ctx: WalkCtx): void {
    for (const child of children(node)) this.walk(child, ctx);
  }

  /**
   * Collect the evaluations of one context node onto the command it belongs to — its owner, or a command of
   * its own (`(( … ))` always; `$((x))` in a `case` word, a loop's list …) — then walk on inside it.
   */
  private evaluate(node: TsNode, ctx: WalkCtx, collect: (f: Found) => void, alone = false): void {
    collect(this.found);
    let owner = ctx.owner;
    if (alone || (owner === undefined && this.found.evaluations.length > 0)) owner = this.push(node, ctx, { kind: 'arith', text: node.text });
    if (owner !== undefined) this.attach(owner);
    this.walkChildren(node, { ...ctx, depth: ctx.depth + 1, owner });
  }

  /** Hand the evaluations collected so far to a command. */
  private attach(index: number): void {
    this.commands[index]!.evaluations.push(...this.found.evaluations);
    this.found.evaluations = [];
  }

  private push(node: TsNode, ctx: WalkCtx, partial: Partial<ShellCommand> & Pick<ShellCommand, 'kind' | 'text'>): number {
    const index = this.commands.length;
    this.commands.push({
      assignments: [],
      words: [],
      redirects: [],
      stdin: null,
      upstream: ctx.upstream,
      guards: ctx.guards,
      inSubstitution: ctx.inSubst,
      evaluations: [],
      ...partial,
    });
    this.byNode.set(node.id, index);
    this.levels.push(ctx.level);
    return index;
  }

  private addCommand(node: TsNode, ctx: WalkCtx): number {
    const words: Word[] = [];
    const assignments: ShellCommand['assignments'] = [];
    const redirects: Redirect[] = [];
    let stdin: StdinText | null = null;
    const redirectNodes: TsNode[] = [];
    node.children.forEach((child, i) => {
      if (!child) return;
      const field = node.fieldNameForChild(i);
      if (child.type === 'variable_assignment') assignments.push(assignmentOf(child));
      else if (field === 'name') words.push(evalWord(child.namedChildren.length === 1 ? child.namedChildren[0]! : child));
      else if (field === 'argument') words.push(evalWord(child));
      else if (child.type.endsWith('_redirect')) redirectNodes.push(child);
    });
    const parent = node.parent;
    if (parent?.type === 'redirected_statement' && parent.childForFieldName('body')?.id === node.id) {
      for (const r of children(parent)) {
        if (!r.type.endsWith('_redirect')) continue;
        redirectNodes.push(r);
        // a here-doc's own trailing redirects (cat <<EOF > out) sit inside the heredoc node
        if (r.type === 'heredoc_redirect') redirectNodes.push(...children(r).filter((c) => c.type === 'file_redirect'));
      }
    }
    const texts: string[] = [];
    for (const r of redirectNodes) {
      this.attached.add(r.id);
      if (r.type === 'file_redirect') {
        const red = redirectOf(r);
        if (red) redirects.push(red);
        if (r.parent?.id !== node.id) texts.push(r.text);
      } else if (r.type === 'herestring_redirect') {
        const w = r.namedChildren.find((c) => c && c.type !== 'file_descriptor');
        stdin = { kind: 'herestring', text: w ? (evalWord(w).value ?? w.text) : '' };
      } else if (r.type === 'heredoc_redirect') {
        const body = r.namedChildren.find((c) => c?.type === 'heredoc_body');
        stdin = { kind: 'heredoc', text: body?.text ?? '' };
        const start = r.namedChildren.find((c) => c?.type === 'heredoc_start');
        texts.push(`${r.child(0)?.text ?? '<<'}${start?.text ?? ''}`);
      }
    }
    const text = [node.text, ...texts].join(' ');
    return this.push(node, ctx, { kind: 'command', text, words, assignments, redirects, stdin });
  }

  private addDeclaration(node: TsNode, ctx: WalkCtx): number {
    const keyword = node.child(0);
    const words: Word[] = keyword ? [literalWord(keyword.text)] : [];
    const assignments: ShellCommand['assignments'] = [];
    for (const child of named(node)) {
      if (child.type === 'variable_assignment') assignments.push(assignmentOf(child));
      else if (child.type === 'variable_name') assignments.push({ name: child.text, value: null });
      else words.push(evalWord(child));
    }
    return this.push(node, ctx, { kind: 'declare', text: node.text, words, assignments });
  }

  private walkPipeline(node: TsNode, ctx: WalkCtx): void {
    // `cat <<EOF | sh`: the grammar hangs the rest of the pipeline under the here-doc node,
    // so the command owning the here-doc is the first stage
    const upstream: number[] = [];
    if (node.parent?.type === 'heredoc_redirect') {
      const owner = this.ownerOf(node.parent);
      if (owner !== undefined) upstream.push(owner);
    }
    for (const stage of children(node)) {
      if (!stage.isNamed) continue;
      const before = this.commands.length;
      this.walk(stage, { ...ctx, upstream: [...ctx.upstream, ...upstream] });
      upstream.push(...this.sameLevelSince(before, ctx.level));
    }
  }

  private walkList(node: TsNode, ctx: WalkCtx): void {
    let guards = ctx.guards;
    let pendingAnd = false;
    let left: number[] = [];
    for (const child of children(node)) {
      if (!child.isNamed) {
        if (child.type === '&&') pendingAnd = true;
        continue;
      }
      // the right side of `a && b` runs only when a succeeded; `||` gives no such promise
      if (pendingAnd) guards = [...guards, ...left];
      pendingAnd = false;
      const before = this.commands.length;
      this.walk(child, { ...ctx, guards });
      left = this.sameLevelSince(before, ctx.level);
    }
  }

  private walkHeredoc(node: TsNode, ctx: WalkCtx): void {
    // `cat <<EOF && rm x`: the grammar nests the rest of the list inside the here-doc node
    let guards = ctx.guards;
    for (const child of children(node)) {
      if (child.type === '&&') {
        const owner = this.ownerOf(node);
        if (owner !== undefined) guards = [...guards, owner];
      }
      if (child.isNamed) this.walk(child, { ...ctx, guards });
    }
  }

  private walkFunction(node: TsNode, ctx: WalkCtx): void {
    const name = node.childForFieldName('name')?.text ?? '';
    const before = this.commands.length;
    this.walkChildren(node, ctx);
    const body = node.childForFieldName('body');
    const inner = this.commands.slice(before);
    this.functions.push({
      name,
      text: node.text,
      recursive: inner.some((c) => c.kind === 'command' && c.words[0]?.value === name),
      spawns: body ? hasSpawn(body) : false,
    });
  }

  private ownerOf(redirect: TsNode): number | undefined {
    const parent = redirect.parent;
    if (!parent) return undefined;
    const owner = parent.type === 'redirected_statement' ? parent.childForFieldName('body') : parent;
    return owner ? this.byNode.get(owner.id) : undefined;
  }

  private sameLevelSince(start: number, level: number): number[] {
    const out: number[] = [];
    for (let i = start; i < this.commands.length; i++) if (this.levels[i] === level) out.push(i);
    return out;
  }
}

function hasSpawn(node: TsNode): boolean {
  if (node.type === 'pipeline' || node.type === '&') return true;
  return children(node).some(hasSpawn);
}

function clip(s: string): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > 40 ? `${one.slice(0, 39)}…` : one;
}

