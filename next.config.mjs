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
  // the page's bundle gets an inert zod: the AI SDK builds its schemas with it when it loads, and the page checks
  // nothing with them (lib/ui/zod-inert.ts says why); the server keeps the real one
  turbopack: {
    resolveAlias: {
      zod: { browser: './lib/ui/zod-inert.ts' },
      'zod/v4': { browser: './lib/ui/zod-inert.ts' },
      'zod/v3': { browser: './lib/ui/zod-inert.ts' },
    },
  },
};

export default nextConfig;
