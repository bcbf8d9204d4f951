/**
 * HTML → Markdown for web_fetch, with turndown. In Node, turndown parses strings with its bundled
 * DOM (@mixmark-io/domino, picked by the package's "main" build), so no browser or jsdom is needed.
 *
 * What a model reading a page needs differs from a faithful conversion: scripts, styles and other
 * non-text elements are dropped; links and images are made absolute against the page's URL (so
 * the model can fetch them next); inline data: images (often megabytes of base64) become their
 * alt text; the <title> is returned apart instead of opening the text.
 */
import { createRequire } from 'node:module';
import type TurndownServiceType from 'turndown';

/**
 * turndown and its DOM take a while to load (~160 ms): they load on the first page converted, not when
 * Clamp starts. Its CommonJS "main" build is the one Node loads (parses strings with its bundled DOM).
 */
let turndownClass: typeof TurndownServiceType | undefined;
function TurndownService(): typeof TurndownServiceType {
  turndownClass ??= createRequire(import.meta.url)('turndown') as typeof TurndownServiceType;
  return turndownClass;
}

/** Elements whose content is never readable text. */
const DROPPED = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'IFRAME', 'OBJECT', 'EMBED', 'SVG', 'CANVAS']);

/** A URL made absolute against base; undefined for script URLs and unparseable ones. */
function absolute(href: string, base: string | undefined): string | undefined {
  const h = href.trim();
  if (!h || /^javascript:/i.test(h)) return undefined;
  try {
    return base ? new URL(h, base).href : new URL(h).href;
  } catch {
    return base ? undefined : h; // no base: keep a relative link as the page wrote it
  }
}

/** Markdown link targets cannot hold raw spaces or unbalanced parentheses. */
function target(url: string): string {
  return url.replace(/[ ()]/g, (c) => encodeURIComponent(c));
}

function attr(node: HTMLElement, name: string): string {
  return node.getAttribute(name) ?? '';
}

/**
 * Convert an HTML document (or fragment) to Markdown. baseUrl resolves relative links and images.
 * Returns the Markdown (runs of blank lines collapsed) and the page title, if any. Never throws on bad HTML.
 */
export function htmlToMarkdown(html: string, baseUrl?: string): { markdown: string; title?: string } {
  let title: string | undefined;
  const Turndown = TurndownService();
  const td = new Turndown({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '*' });
  td.remove((node) => DROPPED.has(node.nodeName.toUpperCase()));
  td.addRule('title', {
    filter: 'title',
    replacement: (content) => {
      title ??= content.replace(/\s+/g, ' ').trim() || undefined;
      return '';
    },
  });
  td.addRule('absoluteLink', {
    filter: (node) => node.nodeName === 'A' && attr(node, 'href') !== '',
    replacement: (content, node) => {
      const href = absolute(attr(node, 'href'), baseUrl);
      const text = content.trim();
      if (!href) return content;
      if (!text) return '';
      const t = attr(node, 'title');
      return `[${text}](${target(href)}${t ? ` "${t.replace(/"/g, '\\"')}"` : ''})`;
    },
  });
  td.addRule('absoluteImage', {
    filter: 'img',
    replacement: (_content, node) => {
      const alt = attr(node, 'alt').replace(/\s+/g, ' ').trim();
      const raw = attr(node, 'src');
      if (/^data:/i.test(raw.trim())) return alt ? `[image: ${alt}]` : '';
      const src = absolute(raw, baseUrl);
      return src ? `![${alt}](${target(src)})` : alt;
    },
  });
  const markdown = td.turndown(html).replace(/\n{3,}/g, '\n\n').trim();
  return { markdown, title };
}
