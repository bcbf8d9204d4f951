import { beforeAll, describe, expect, it } from 'vitest';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { loadHighlighter } from '../../components/code-highlight';
import { Markdown } from '../../components/message-view';
import { estimateRowPx, type ChatRow } from '../../components/chat-rows';

const render = (text: string) => renderToStaticMarkup(createElement(Markdown, { text }));

/** The highlighter loads with the first code fence a message shows, not with the page (it is a sixth of its script). */
describe('Markdown before the highlighter has loaded', () => {
  it('a fenced block renders plain until the highlighter has loaded, then highlighted: the plain render is not kept', async () => {
    const text = '```ts\nexport const b = 1;\n```';
    const before = render(text);
    expect(before).toContain('export const b = 1;');
    expect(before).not.toContain('hljs');
    await loadHighlighter();
    expect(render(text)).toMatch(/<span class="hljs-keyword">export<\/span>/);
  });
});

/** The chat's Markdown: one highlighter serves every message (building one per render cost every mount ~6 ms). */
describe('Markdown', () => {
  beforeAll(() => loadHighlighter());

  it('highlights a fenced block with a language, in every message rendered, and leaves one without a language plain', () => {
    for (const text of ['```ts\nconst a: number = 1;\n```', 'Then:\n\n```python\ndef f():\n    return None\n```']) {
      const html = render(text);
      expect(html).toContain('class="hljs language-');
      expect(html).toMatch(/<span class="hljs-keyword">(const|def)<\/span>/);
    }
    const plain = render('```\nconst a = 1;\n```');
    expect(plain).not.toContain('hljs-keyword');
    expect(plain).toContain('const a = 1;');
  });

  it('an unknown language is shown as plain code, not an error', () => {
    const html = render('```no-such-language\nlet x = 1\n```');
    expect(html).toContain('let x = 1');
    expect(html).not.toContain('hljs-keyword');
  });

  it('a text rendered again (a row scrolled back into view) gives the same markup; each streamed version its own', () => {
    const first = render('Run `npm test`, then **fix** it.');
    expect(render('Run `npm test`, then **fix** it.')).toBe(first);
    expect(first).toContain('<code>npm test</code>');
    const streamed: Array<[string, string]> = [
      ['One', '<p>One</p>'],
      ['One *two*', '<p>One <em>two</em></p>'],
      ['One *two* `three`', '<p>One <em>two</em> <code>three</code></p>'],
    ];
    for (const [text, html] of streamed) expect(render(text)).toBe(`<div class="md">${html}</div>`);
  });
});

describe('estimateRowPx', () => {
  const base = { key: 'k', messageId: 'm' };
  it('counts the bottom padding of a turn\'s last row, and lines of text', () => {
    const text = (t: string, last: boolean): ChatRow => ({ ...base, last, kind: 'text', text: t });
    expect(estimateRowPx(text('short', true)) - estimateRowPx(text('short', false))).toBe(8);
    expect(estimateRowPx(text('x'.repeat(200), false))).toBe(estimateRowPx(text('short', false)) + 44);
    expect(estimateRowPx(text('x'.repeat(100_000), false))).toBeLessThanOrEqual(408);
  });
});
