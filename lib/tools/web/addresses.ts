/**
 * Which addresses are the public web, for web_fetch. Loopback, private and link-local networks (the cloud
 * metadata service at 169.254.169.254 included), carrier-grade NAT, "this network", multicast, reserved and
 * documentation ranges, and the addresses of this machine's own interfaces are not: a page there is a service on
 * this machine or its network, which a model must not reach unasked. IPv6 forms that carry an IPv4 address
 * (IPv4-mapped ::ffff:a.b.c.d, NAT64 64:ff9b::/96, 6to4 2002::/16) are judged by the address they carry, and
 * every IPv6 address outside global unicast (2000::/3) is local. A name is judged by every address it resolves
 * to; odd spellings of an address (127.1, 0x7f000001, 2130706433) reach here already read by the URL parser.
 */
import dns from 'node:dns';
import net from 'node:net';
import os from 'node:os';

/** An address a name resolved to, as node:dns gives it. */
export interface Resolved {
  address: string;
  family: 4 | 6;
}

/** IPv4 ranges that are not the public web: [network, prefix length, what it is]. */
const V4_LOCAL: readonly [string, number, string][] = [
  ['0.0.0.0', 8, '"this network", 0.0.0.0/8'],
  ['10.0.0.0', 8, 'private, 10.0.0.0/8'],
  ['100.64.0.0', 10, 'carrier-grade NAT, 100.64.0.0/10'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.169.254', 32, 'link-local: the cloud metadata service'],
  ['169.254.0.0', 16, 'link-local, 169.254.0.0/16'],
  ['172.16.0.0', 12, 'private, 172.16.0.0/12'],
  ['192.0.0.0', 24, 'IETF protocol assignments, 192.0.0.0/24'],
  ['192.0.2.0', 24, 'documentation, 192.0.2.0/24'],
  ['192.88.99.0', 24, '6to4 relay anycast, 192.88.99.0/24'],
  ['192.168.0.0', 16, 'private, 192.168.0.0/16'],
  ['198.18.0.0', 15, 'benchmarking, 198.18.0.0/15'],
  ['198.51.100.0', 24, 'documentation, 198.51.100.0/24'],
  ['203.0.113.0', 24, 'documentation, 203.0.113.0/24'],
  ['224.0.0.0', 4, 'multicast, 224.0.0.0/4'],
  ['240.0.0.0', 4, 'reserved, 240.0.0.0/4 (broadcast included)'],
];

/** IPv6 ranges inside 2000::/3 that are not the public web (everything outside 2000::/3 is not either). */
const V6_LOCAL: readonly [string, number, string][] = [
  ['2001::', 23, 'IETF protocol assignments, 2001::/23 (Teredo included)'],
  ['2001:db8::', 32, 'documentation, 2001:db8::/32'],
  ['3fff::', 20, 'documentation, 3fff::/20'],
];

function v4ToNumber(s: string): number | null {
  const parts = s.split('.');
  if (parts.length !== 4) return null;
  let n = 0;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || Number(p) > 255) return null;
    n = n * 256 + Number(p);
  }
  return n;
}

function numberToV4(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

/** An IPv6 address (a trailing dotted IPv4 part and a %zone allowed) as a 128-bit number; null when it is not one. */
export function v6ToBigInt(input: string): bigint | null {
  let s = input.replace(/%.*$/, '');
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (dotted) {
    const v4 = v4ToNumber(dotted[1]);
    if (v4 === null) return null;
    s = `${s.slice(0, -dotted[1].length)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(':') : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const gap = 8 - head.length - tail.length;
  if (halves.length === 1 ? gap !== 0 : gap < 1) return null;
  let v = 0n;
  for (const g of [...head, ...Array<string>(halves.length === 2 ? gap : 0).fill('0'), ...tail]) {
    if (!/^[0-9a-f]{1,4}$/i.test(g)) return null;
    v = (v << 16n) | BigInt(parseInt(g, 16));
  }
  return v;
}

const inV4 = (n: number, net4: string, bits: number) => bits === 0 || n >>> (32 - bits) === v4ToNumber(net4)! >>> (32 - bits);
const inV6 = (v: bigint, net6: string, bits: number) => v >> BigInt(128 - bits) === v6ToBigInt(net6)! >> BigInt(128 - bits);

function classifyV4(n: number): string | null {
  for (const [net4, bits, what] of V4_LOCAL) if (inV4(n, net4, bits)) return what;
  return null;
}

function classifyV6(v: bigint): string | null {
  const low32 = Number(v & 0xffffffffn);
  const carried = (kind: string, n: number) => {
    const what = classifyV4(n);
    return what ? `${kind} ${numberToV4(n)}: ${what}` : null;
  };
  if (v === 0n) return 'unspecified, ::';
  if (v === 1n) return 'loopback';
  if (inV6(v, '::ffff:0:0', 96)) return carried('IPv4-mapped', low32);
  if (inV6(v, '64:ff9b::', 96)) return carried('NAT64 of', low32);
  if (inV6(v, '2002::', 16)) return carried('6to4 of', Number((v >> 80n) & 0xffffffffn));
  if (inV6(v, '64:ff9b:1::', 48)) return 'local-use NAT64, 64:ff9b:1::/48';
  if (inV6(v, 'fc00::', 7)) return 'unique local, fc00::/7';
  if (inV6(v, 'fe80::', 10)) return 'link-local, fe80::/10';
  if (inV6(v, 'ff00::', 8)) return 'multicast, ff00::/8';
  if (!inV6(v, '2000::', 3)) return 'not a global unicast address (outside 2000::/3)';
  for (const [net6, bits, what] of V6_LOCAL) if (inV6(v, net6, bits)) return what;
  return null;
}

/** The addresses of this machine's own interfaces (a service on this machine answers there too). */
function ownAddresses(): Set<string> {
  const own = new Set<string>();
  for (const list of Object.values(os.networkInterfaces())) for (const a of list ?? []) own.add(a.address.replace(/%.*$/, ''));
  return own;
}

/** What a local address is ("loopback", "private, 10.0.0.0/8" …), or null when it is on the public web. */
export function localKind(address: string): string | null {
  const bare = address.replace(/^\[|\]$/g, '');
  const family = net.isIP(bare.replace(/%.*$/, ''));
  let what: string | null;
  if (family === 4) what = classifyV4(v4ToNumber(bare)!);
  else if (family === 6) what = classifyV6(v6ToBigInt(bare)!);
  else return 'not an IP address';
  if (what) return what;
  return ownAddresses().has(bare.replace(/%.*$/, '')) ? 'an address of this machine' : null;
}

/** Every address a URL's host name stands for: the address itself for an IP literal, else what the resolver says. */
export async function resolveHost(hostname: string): Promise<Resolved[]> {
  const bare = hostname.replace(/^\[|\]$/g, '');
  const family = net.isIP(bare);
  if (family) return [{ address: bare, family: family as 4 | 6 }];
  const all = await dns.promises.lookup(bare, { all: true, verbatim: true });
  return all.map((a) => ({ address: a.address, family: a.family as 4 | 6 }));
}

/** The local ones among resolved addresses, each with what it is. */
export function localAmong(addresses: readonly Resolved[]): { address: string; kind: string }[] {
  return addresses.flatMap((a) => {
    const kind = localKind(a.address);
    return kind ? [{ address: a.address, kind }] : [];
  });
}

/** "127.0.0.1 (loopback), ::1 (loopback)": local addresses for a reason or an error. */
export function describeLocal(local: readonly { address: string; kind: string }[]): string {
  return local.map((l) => `${l.address} (${l.kind})`).join(', ');
}

/**
 * A `lookup` for node:net that answers only with addresses already checked, so the connection goes to what was
 * judged and a resolver that changes its answer in between (DNS rebinding) is never asked again.
 */
export function pinnedLookup(addresses: readonly Resolved[]): net.LookupFunction {
  return (_hostname, options, callback) => {
    const wanted = typeof options === 'object' && options ? options : {};
    const family = 'family' in wanted ? wanted.family : undefined;
    const fitting = addresses.filter((a) => !family || family === a.family || family === (a.family === 4 ? 'IPv4' : 'IPv6'));
    const list = fitting.length ? fitting : addresses;
    if ('all' in wanted && wanted.all) (callback as unknown as (e: null, all: Resolved[]) => void)(null, list.slice());
    else callback(null, list[0].address, list[0].family);
  };
}
