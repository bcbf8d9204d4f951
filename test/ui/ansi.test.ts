import { describe, expect, it } from 'vitest';
import { ansiSpans, stripAnsi } from '../../lib/ui/ansi';

const E = '\u001b';

describe('ansiSpans', () => {
  it('returns plain text as one unstyled run, and nothing for an empty line', () => {
    expect(ansiSpans('plain <b>&amp;</b>')).toEqual([{ text: 'plain <b>&amp;</b>' }]);
    expect(ansiSpans('')).toEqual([]);
  });

  it('colours the standard, 256 and true-colour palettes', () => {
    expect(ansiSpans(`${E}[32mline 7${E}[0m done`)).toEqual([{ text: 'line 7', style: { color: 'rgb(0, 187, 0)' } }, { text: ' done' }]);
    expect(ansiSpans(`${E}[38;5;208mo`)).toEqual([{ text: 'o', style: { color: 'rgb(255, 135, 0)' } }]);
    expect(ansiSpans(`${E}[38;2;10;20;30mt${E}[48;5;21mb`)).toEqual([
      { text: 't', style: { color: 'rgb(10, 20, 30)' } },
      { text: 'b', style: { color: 'rgb(10, 20, 30)', backgroundColor: 'rgb(0, 0, 255)' } },
    ]);
  });

  it('turns decorations into styles', () => {
    expect(ansiSpans(`${E}[1;31mE${E}[0m`)).toEqual([{ text: 'E', style: { color: 'rgb(187, 0, 0)', fontWeight: 600 } }]);
    expect(ansiSpans(`${E}[2;3mx`)).toEqual([{ text: 'x', style: { opacity: 0.7, fontStyle: 'italic' } }]);
    expect(ansiSpans(`${E}[4;9mu`)).toEqual([{ text: 'u', style: { textDecoration: 'underline line-through' } }]);
  });

  it('merges neighbouring runs of the same style', () => {
    expect(ansiSpans(`${E}[32ma${E}[32mb${E}[0m`)).toEqual([{ text: 'ab', style: { color: 'rgb(0, 187, 0)' } }]);
  });

  it('drops cursor moves and window titles instead of showing them', () => {
    expect(ansiSpans(`a${E}[2Kb${E}]0;title\u0007c`)).toEqual([{ text: 'abc' }]);
    expect(ansiSpans(`${E}]8;;https://x.dev${E}\\link${E}]8;;${E}\\`)).toEqual([{ text: 'link' }]);
  });

  it('keeps HTML as text (React escapes it; nothing is parsed as markup)', () => {
    expect(ansiSpans(`${E}[31m<img src=x onerror=alert(1)>`)).toEqual([{ text: '<img src=x onerror=alert(1)>', style: { color: 'rgb(187, 0, 0)' } }]);
  });
});

describe('stripAnsi', () => {
  it('leaves the visible text', () => {
    expect(stripAnsi(`${E}[1;32mok${E}[0m ${E}[2K${E}]0;t\u0007x`)).toBe('ok x');
    expect(stripAnsi('no escapes')).toBe('no escapes');
  });
});
