/**
 * Line continuations as bash reads them: a backslash followed by a newline is removed before the text is split
 * into words and operators, also inside a word (`r\<newline>m` is `rm`), an operator (`&\<newline>&`) or a
 * double-quoted string. It stays where bash keeps it: inside single quotes and $'…', in a comment (which ends at
 * the newline), and in the body of a here-doc whose delimiter is quoted. tree-sitter-bash takes a continuation
 * for a word break, so the judge removes them first and parses what bash will run.
 */
import type { Node as TsNode, Parser as TsParser } from 'web-tree-sitter';

/** More passes than this means the text keeps changing how it splits: the caller fails closed. */
const MAX_PASSES = 16;

/**
 * The source with every line continuation bash removes removed; `null` when the passes did not settle. Each pass
 * parses the text to learn where quoting keeps a backslash-newline, removes the others, and repeats, because a
 * join can change what the parser reads as a comment or a quote.
 */
export function joinContinuations(parser: TsParser, source: string): string | null {
  let text = source;
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    if (!text.includes('\\\n')) return text;
    const tree = parser.parse(text);
    if (!tree) return null;
    let kept: [number, number][];
    try {
      kept = keptRanges(tree.rootNode);
    } finally {
      tree.delete();
    }
    const next = removeOutside(text, kept);
    if (next === text) return text;
    text = next;
  }
  return null;
}

/** Source ranges (UTF-16 offsets) where a backslash-newline is part of the text, not a continuation. */
function keptRanges(root: TsNode): [number, number][] {
  const out: [number, number][] = [];
  const walk = (node: TsNode) => {
    if (node.type === 'raw_string' || node.type === 'ansi_c_string' || node.type === 'comment') {
      out.push([node.startIndex, node.endIndex]);
      return;
    }
    if (node.type === 'heredoc_body' && quotedDelimiter(node.parent)) {
      out.push([node.startIndex, node.endIndex]);
      return;
    }
    for (const child of node.children) if (child) walk(child);
  };
  walk(root);
  return out.sort((a, b) => a[0] - b[0]);
}

/** `<<'EOF'`, `<<"EOF"`, `<<\EOF`: bash reads the body as it is written. */
function quotedDelimiter(redirect: TsNode | null): boolean {
  const start = redirect?.children.find((c) => c?.type === 'heredoc_start');
  return !!start && /['"\\]/.test(start.text);
}

/**
 * Remove each backslash-newline outside the kept ranges. A backslash escapes the character after it, so `\\`
 * followed by a newline is an escaped backslash and a line break, not a continuation.
 */
function removeOutside(text: string, kept: readonly [number, number][]): string {
  let out = '';
  let k = 0;
  for (let i = 0; i < text.length; i++) {
    while (k < kept.length && kept[k]![1] <= i) k++;
    const range = kept[k];
    if (range && range[0] <= i) {
      out += text.slice(i, range[1]);
      i = range[1] - 1;
      continue;
    }
    const ch = text[i]!;
    if (ch !== '\\') {
      out += ch;
      continue;
    }
    const next = text[i + 1];
    if (next === '\n') {
      i++;
      continue;
    }
    out += next === undefined ? ch : ch + next;
    i++;
  }
  return out;
}
