/**
 * Host patterns: what the sandbox's proxy lets a command reach (the settings page's allowed hosts,
 * CLAMP_SANDBOX_ALLOW_HOSTS, and the hosts a person allowed for one session). A pattern is a host name
 * (`packages.example.org`), a name with every name below it (`*.example.org`, or `.example.org`), or an IP
 * address; `:port` after any of them allows that port only. Names are compared as the proxy sees them:
 * lower case, without a final dot, internationalised names in their ASCII form.
 */

export interface HostPattern {
  /** the name or address, normalised; for a wildcard, the part after `*.` */
  host: string;
  /** `*.host`: every name below host (not host itself) */
  wildcard: boolean;
  /** only this port (absent: any) */
  port?: number;
  /** the pattern as written back: `*.example.org:443` */
  text: string;
}

const IPV4 = /^\d+\.\d+\.\d+\.\d+$/;

/**
 * A host name or address as the proxy compares it, or undefined when it is neither: parsed as a URL's host is
 * (so `127.1`, `0x7f000001` and `2130706433` are all 127.0.0.1, and an IPv6 address has one spelling), lower case,
 * internationalised names in their ASCII form, without a final dot or brackets.
 */
export function normalHost(raw: string): string | undefined {
  let h = raw.trim();
  if (!h || /[\s/@?#\\%]/.test(h)) return undefined;
  if (h.includes(':') && !h.startsWith('[')) h = `[${h}]`;
  let parsed: string;
  try {
    parsed = new URL(`http://${h}/`).hostname;
  } catch {
    return undefined;
  }
  if (parsed.startsWith('[')) return parsed.slice(1, -1);
  if (parsed.endsWith('.')) parsed = parsed.slice(0, -1);
  if (!parsed || parsed.length > 253 || !/^[a-z0-9._-]+$/.test(parsed) || parsed.split('.').some((l) => !l)) return undefined;
  return parsed;
}

/** One pattern, or an error that says what a pattern looks like. */
export function parseHostPattern(raw: string): HostPattern | { error: string } {
  const text = raw.trim();
  const bad = { error: `"${text}" is not a host pattern: write a host name (packages.example.org), *.name for every name below it, or an IP address, optionally with :port` };
  if (!text || /[\s/@?#]/.test(text)) return bad;
  let rest = text;
  let portText: string | undefined;
  if (rest.startsWith('[')) {
    const end = rest.indexOf(']');
    const after = end < 0 ? undefined : rest.slice(end + 1);
    if (after === undefined || (after !== '' && !after.startsWith(':'))) return bad;
    [rest, portText] = [rest.slice(1, end), after ? after.slice(1) : undefined];
  } else if (rest.split(':').length === 2) {
    [rest, portText] = rest.split(':') as [string, string];
  }
  let port: number | undefined;
  if (portText !== undefined) {
    port = /^\d{1,5}$/.test(portText) ? Number(portText) : 0;
    if (port < 1 || port > 65535) return bad;
  }
  let wildcard = false;
  if (rest.startsWith('*.')) [wildcard, rest] = [true, rest.slice(2)];
  else if (rest.startsWith('.')) [wildcard, rest] = [true, rest.slice(1)];
  const host = normalHost(rest);
  if (!host || (wildcard && (host.includes(':') || IPV4.test(host) || !host.includes('.')))) return bad;
  const shown = host.includes(':') ? `[${host}]` : host;
  return { host, wildcard, ...(port ? { port } : {}), text: `${wildcard ? '*.' : ''}${shown}${port ? `:${port}` : ''}` };
}

/** The valid patterns of a list, and the errors of the others. */
export function parseHostPatterns(list: readonly string[]): { patterns: HostPattern[]; errors: string[] } {
  const patterns: HostPattern[] = [];
  const errors: string[] = [];
  for (const raw of list) {
    if (!raw.trim()) continue;
    const p = parseHostPattern(raw);
    if ('error' in p) errors.push(p.error);
    else if (!patterns.some((q) => q.text === p.text)) patterns.push(p);
  }
  return { patterns, errors };
}

/** Whether a pattern covers host (normalised) and port. */
export function hostMatches(p: HostPattern, host: string, port: number): boolean {
  if (p.port !== undefined && p.port !== port) return false;
  return p.wildcard ? host.endsWith(`.${p.host}`) : host === p.host;
}

/** The first pattern of a list covering host and port, or undefined. */
export function allowedBy(patterns: readonly HostPattern[], host: string, port: number): HostPattern | undefined {
  const h = normalHost(host);
  return h === undefined ? undefined : patterns.find((p) => hostMatches(p, h, port));
}
