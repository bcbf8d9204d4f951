/** @type {import('next').NextConfig} */
const nextConfig = {
  // native and wasm packages stay outside the bundle and load from node_modules at run time
  serverExternalPackages: ['better-sqlite3', 'web-tree-sitter', 'tree-sitter-bash', 'fast-glob', 'execa'],
  poweredByHeader: false,
  // Clamp is used from a browser on the same machine: compressing buys nothing there, and gzip held the chat stream back
  // (every chunk a thread-pool job waiting for a busy event loop: tool results reached the page
  // a second after the server had moved on)
  compress: false,
  reactStrictMode: true,
  devIndicators: false,
  // `npm run typecheck` checks the whole tree (tests included) as its own step
  typescript: { ignoreBuildErrors: true },
};

export default nextConfig;
