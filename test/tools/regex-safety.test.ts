import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nestedRepetition } from '../../lib/tools/grep/regex-safety';
import { grepTool } from '../../lib/tools/grep/grep';
import { harness, tempWorkspace } from '../helpers';

describe('nested repetition (catastrophic backtracking)', () => {
  it.each([
    ['(a+)+$', '(a+)+'],
    ['^(\\w*)*x', '(\\w*)*'],
    ['(x+y?){2,}', '(x+y?){2,}'],
    ['((ab)*c)+', '((ab)*c)+'],
    ['(?:\\d+\\s*)+end', '(?:\\d+\\s*)+'],
    ['((a)+)*', '((a)+)*'],
  ])('finds %s', (src, found) => {
    expect(nestedRepetition(src)).toBe(found);
  });
  it.each(['a+b*', '(ab)+', '(a+)?', '(a+){1}', '\\(a+\\)+', '[(a+)]+', 'function\\s+\\w+\\(', '(foo|bar)+', 'x{2,3}', '(a{2})+', '(a+){3}'])('leaves %s alone', (src) => {
    expect(nestedRepetition(src)).toBeUndefined();
  });
});

describe('grep refuses a pattern that could stall the server', () => {
  let ws: ReturnType<typeof tempWorkspace>;
  beforeEach(() => (ws = tempWorkspace()));
  afterEach(() => ws.cleanup());
  it('answers with the reason and the next step, before searching', async () => {
    ws.write('a.txt', 'a'.repeat(40) + 'b\n');
    const h = harness([grepTool], ws);
    const t0 = Date.now();
    const r = await h.call('grep', { pattern: '(a+)+$' });
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(r.status).toBe('error');
    expect(r.output).toBe(
      'The pattern /(a+)+$/ repeats a group that itself repeats ((a+)+); on some lines that takes exponential time and would stall Clamp. Rewrite it without the nested repetition (for example a+ instead of (a+)+), or pass literal: true.',
    );
    const ok = await h.call('grep', { pattern: 'a+b$' });
    expect(ok.output).toContain('a.txt:1:');
  });
});
