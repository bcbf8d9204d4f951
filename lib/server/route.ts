import type { z } from 'zod';
import { errorResponse, json, parseJson, routeId, serverConfig, type ServerConfig } from './http';
import { requestConfig, sessionConfig } from './workspaces';

/** What a route reads before its handler runs: its id parameters, then its JSON body. */
export type RouteSpec<I extends string, S extends z.ZodType> = {
  /** route parameters that name something stored, with the word their 404 uses ({ id: 'Session' }); checked in this order */
  ids?: Record<I, string>;
  /** the status of a JSON answer (200 unless said) */
  status?: number;
  /** the answer to an error this route knows better than errorResponse does; undefined leaves the error to it */
  answerError?: (err: unknown) => Response | undefined;
} & ({ body: S; maxBytes: number } | { body?: undefined; maxBytes?: undefined });

/** What a handler gets: the request, its parameters, the checked ids and body, and the server's configuration. */
export interface RouteCall<I extends string, B> {
  req: Request;
  url: URL;
  /** every route parameter as it came */
  params: Record<string, string>;
  ids: Record<I, string>;
  body: B;
  /**
   * read when first used, so a route that needs no configuration never fails on it. Its workspace is the
   * session's own for a route with a Session id, else the one the request names (lib/server/workspaces.ts)
   */
  readonly cfg: ServerConfig;
  /** the configuration for a session named elsewhere than the route (a body, a query): that session's workspace */
  forSession(sessionId: string): ServerConfig;
}

type Params = Record<string, string>;
type Handler = (req?: Request, ctx?: { params: Promise<Params> }) => Promise<Response>;

// Next always passes the request; a direct call without one (a script, a test) reads as a plain GET
const BARE_REQUEST_URL = 'http://127.0.0.1/';

/**
 * One route handler: ids are url-safe or 404, the body is read within maxBytes and parsed with the schema
 * (413, or 400 naming the field), the handler's value is answered as JSON (a Response it returns goes out as
 * it is), and whatever it throws is answered by answerError, else errorResponse (known errors to their 4xx,
 * the rest to 500). Never throws.
 */
export function route<I extends string = never, S extends z.ZodType = z.ZodNever>(
  spec: RouteSpec<I, S>,
  handler: (call: RouteCall<I, z.infer<S>>) => unknown,
): Handler {
  return async (req = new Request(BARE_REQUEST_URL), ctx) => {
    try {
      const params = (await ctx?.params) ?? {};
      const ids = checkedIds(spec.ids, params);
      const body = await readBody(req, spec);
      const url = new URL(req.url);
      const answer = await handler({
        req,
        url,
        params,
        ids,
        body,
        get cfg() {
          return requestConfig(serverConfig(), req, url, sessionIdOf(spec.ids, ids));
        },
        forSession: (sessionId) => sessionConfig(serverConfig(), sessionId),
      });
      return answer instanceof Response ? answer : json(answer, spec.status);
    } catch (err) {
      return spec.answerError?.(err) ?? errorResponse(err);
    }
  };
}

/** The body the spec names, parsed (no body: undefined, which a handler without one never reads). */
async function readBody<S extends z.ZodType>(req: Request, spec: RouteSpec<string, S>): Promise<z.infer<S>> {
  if (spec.body === undefined) return undefined as z.infer<S>;
  return parseJson(req, spec.body, spec.maxBytes as number);
}

/** The route's id that names a session (its word is Session), if it has one. */
function sessionIdOf<I extends string>(spec: Record<I, string> | undefined, ids: Record<I, string>): string | undefined {
  const name = (Object.keys(spec ?? {}) as I[]).find((k) => spec?.[k] === 'Session');
  return name === undefined ? undefined : ids[name];
}

function checkedIds<I extends string>(ids: Record<I, string> | undefined, params: Params): Record<I, string> {
  const out = {} as Record<I, string>;
  for (const [name, what] of Object.entries(ids ?? {}) as [I, string][]) out[name] = routeId(params[name], what);
  return out;
}
