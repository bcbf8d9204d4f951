import { NextResponse, type NextRequest } from 'next/server';
import { checkDoor } from './lib/server/door';

/**
 * A second door inside Next.js: the launcher's door already checks every request, and this one
 * makes sure a server started some other way (`next start`) is shut too, rather than open.
 */
export function proxy(req: NextRequest) {
  const token = process.env.CLAMP_TOKEN;
  const port = Number(process.env.CLAMP_PORT);
  if (!token || !Number.isInteger(port)) {
    return new NextResponse('Clamp was not started by its launcher. Start it with `npm start`.\n', { status: 401 });
  }
  const headers: Record<string, string> = {};
  req.headers.forEach((v, k) => (headers[k] = v));
  const v = checkDoor({ method: req.method, url: req.nextUrl.pathname + req.nextUrl.search, headers }, token, port);
  if (v.kind === 'pass') return NextResponse.next();
  if (v.kind === 'set-cookie') {
    return new NextResponse(null, { status: 303, headers: { location: v.location, 'set-cookie': v.cookie } });
  }
  return new NextResponse(v.message + '\n', { status: v.status, headers: { 'content-type': 'text/plain; charset=utf-8' } });
}

export const config = { matcher: '/:path*' };
