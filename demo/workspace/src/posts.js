import { slugify } from './slug.js';

export const posts = [
  { title: 'Hello, World!', date: '2026-01-04' },
  { title: 'Why I write tests first', date: '2026-02-11' },
  { title: '  Ten tips for faster builds  ', date: '2026-03-20' },
];

/** The page path of a post: /2026/hello-world/ */
export function postPath(post) {
  return `/${post.date.slice(0, 4)}/${slugify(post.title)}/`;
}
