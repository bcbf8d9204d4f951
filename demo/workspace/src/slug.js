/** Turn a post's title into the slug of its URL: "Hello, World!" should give "hello-world". */
export function slugify(title) {
  return title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-');
}
