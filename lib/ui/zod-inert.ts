/**
 * What `zod`, `zod/v4` and `zod/v3` resolve to in the page's bundle (next.config.mjs: turbopack.resolveAlias, browser
 * only; the server and its render of the page load the real zod). The AI SDK's `ai` module, which useChat needs,
 * builds its model-message schemas with zod when it loads, so zod came along: 450 KB of the page's script, and
 * ~150 ms of each load's evaluation spent building schemas nothing in the page uses. The page checks nothing with
 * zod: its own schemas are the server's (lib/contract/request-bodies.ts), and its chat transport parses the stream
 * without the SDK's chunk schema (components/chat-transport.ts). Here each schema the SDK builds is one inert stand-in;
 * a check against one throws, so a new use of zod in the page fails loudly instead of passing anything.
 */

const CHECKS = new Set<PropertyKey>(['parse', 'parseAsync', 'safeParse', 'safeParseAsync', 'decode', 'encode', '~standard', 'toJSONSchema']);

function refuse(what: PropertyKey): never {
  throw new Error(`zod is not loaded in Clamp's page (${String(what)} was asked of a schema): check the value on the server, or use the SDK without a zod schema.`);
}

/** Any property of it (a schema, a method, a namespace) is itself, any call or `new` gives itself; a check throws. */
const inert: unknown = new Proxy(function inertSchema() {}, {
  get: (_target, key) => {
    if (CHECKS.has(key)) refuse(key);
    // not a promise, not a primitive
    if (key === 'then' || key === Symbol.toPrimitive || key === Symbol.iterator) return undefined;
    return inert;
  },
  apply: () => inert,
  construct: () => inert as object,
});

export const z = inert;
export const ZodFirstPartyTypeKind = inert;
export const safeParseAsync = (): never => refuse('safeParseAsync');
export const toJSONSchema = (): never => refuse('toJSONSchema');
export default inert;
