// The blog's dev server: serves each post's path and logs every request; stops by itself after 10 minutes.
import http from 'node:http';
import { posts, postPath } from './src/posts.js';

const server = http.createServer((req, res) => {
  const post = posts.find((p) => postPath(p) === req.url);
  res.writeHead(post ? 200 : 404, { 'content-type': 'text/plain' });
  res.end(post ? post.title : 'not found');
});
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  console.log(`dev server listening on http://127.0.0.1:${port}`);
  let n = 0;
  // a visitor reading the posts, one request a second
  const visit = setInterval(() => {
    const post = posts[n++ % posts.length];
    const t0 = Date.now();
    http.get(`http://127.0.0.1:${port}${postPath(post)}`, (res) => {
      res.resume();
      res.on('end', () => console.log(`GET ${postPath(post)} ${res.statusCode} ${Date.now() - t0}ms`));
    });
  }, 1000);
  setTimeout(() => {
    clearInterval(visit);
    server.close();
    console.log('dev server stopped after 10 minutes');
  }, 600_000);
});
