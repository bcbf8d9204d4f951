/**
 * One GET over node:http(s) to addresses already checked: the connection's lookup answers with those addresses
 * only (addresses.ts pinnedLookup), so no second resolution can send it elsewhere, while TLS still verifies the
 * certificate for the URL's host name. The answer has the shape of a fetch Response (status, headers, a web
 * stream body, gzip/deflate/br decoded) so request.ts reads it like one. Redirects are the caller's.
 */
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { pinnedLookup, type Resolved } from './addresses';
import { networkCause, stepError, stoppedError, type WebDeadline, type WebResponse } from './request';

/** The body, decoded as the server's Content-Encoding says (identity when it names none we know). */
function decoded(res: http.IncomingMessage): Readable {
  const enc = String(res.headers['content-encoding'] ?? '').trim().toLowerCase();
  const decoder = enc === 'gzip' || enc === 'x-gzip' ? zlib.createGunzip() : enc === 'deflate' ? zlib.createInflate() : enc === 'br' ? zlib.createBrotliDecompress() : null;
  if (!decoder) return res;
  res.on('error', (err) => decoder.destroy(err));
  // the connection goes when the reader stops reading the decoded stream
  decoder.on('close', () => res.destroy());
  return res.pipe(decoder);
}

function headersOf(res: http.IncomingMessage): Headers {
  const h = new Headers();
  for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
    try {
      h.append(res.rawHeaders[i], res.rawHeaders[i + 1]);
    } catch {
      // a header fetch would not accept either: left out
    }
  }
  return h;
}

/**
 * GET url from one of `addresses` (each already judged), under the deadline. Throws ToolError on a network
 * failure, a timeout or the user's stop, in the words getOnce uses.
 */
export function getPinned(tool: string, url: URL, addresses: readonly Resolved[], d: WebDeadline, headers: Record<string, string>): Promise<WebResponse> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const client = url.protocol === 'https:' ? https : http;
  d.armConnect();
  return new Promise((resolve, reject) => {
    const req = client.request(
      {
        host,
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        headers: { ...headers, 'accept-encoding': 'gzip, deflate, br' },
        lookup: pinnedLookup(addresses),
        // one connection per request, never a pooled one made to another address
        agent: false,
        ...(url.protocol === 'https:' && !net.isIP(host) ? { servername: host } : {}),
        signal: d.signal,
      },
      (res) => {
        d.headersArrived();
        const body = decoded(res);
        resolve({
          status: res.statusCode ?? 0,
          statusText: res.statusMessage ?? '',
          headers: headersOf(res),
          body: Readable.toWeb(body) as unknown as WebResponse['body'],
        });
      },
    );
    req.on('error', (err) => {
      if (d.why()) reject(stoppedError(tool, d, url.href));
      else reject(stepError(`${tool} could not reach ${url.host}: ${networkCause(err)}.`, 'Check the URL (host and port), or try again later.'));
    });
    req.end();
  });
}
