import net from 'node:net';
import os from 'node:os';

/**
 * Addresses the sandbox's proxy never connects to, whatever host name led there: this machine's own
 * (loopback, the unspecified address, every address of its interfaces — Clamp's server and the person's
 * local services listen there), link-local ones (cloud metadata endpoints), multicast and broadcast.
 * Checked on the address a name resolved to, so a name the person allowed cannot be pointed at them.
 */

const FIXED = new net.BlockList();
FIXED.addSubnet('0.0.0.0', 8, 'ipv4');
FIXED.addSubnet('127.0.0.0', 8, 'ipv4');
FIXED.addSubnet('169.254.0.0', 16, 'ipv4');
FIXED.addSubnet('224.0.0.0', 4, 'ipv4');
FIXED.addSubnet('240.0.0.0', 4, 'ipv4');
FIXED.addAddress('::', 'ipv6');
FIXED.addAddress('::1', 'ipv6');
FIXED.addSubnet('fe80::', 10, 'ipv6');
FIXED.addSubnet('ff00::', 8, 'ipv6');
// a cloud's metadata endpoint on IPv6
FIXED.addAddress('fd00:ec2::254', 'ipv6');

/** The IPv4 address an IPv6 one carries (mapped ::ffff:a.b.c.d, or the deprecated compatible ::a.b.c.d), or undefined. */
function embeddedV4(addr: string): string | undefined {
  const m = /^::(?:ffff:)?(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/i.exec(addr);
  if (!m) return undefined;
  if (m[1]) return m[1];
  const hi = parseInt(m[2]!, 16);
  const lo = parseInt(m[3]!, 16);
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
}

function interfaceAddresses(): Set<string> {
  const out = new Set<string>();
  for (const list of Object.values(os.networkInterfaces())) for (const a of list ?? []) out.add(a.address.toLowerCase().replace(/%.*$/, ''));
  return out;
}

/** Why an address is one the proxy never reaches ("this machine's loopback" …), or undefined when it may. */
export function localAddressReason(address: string): string | undefined {
  const addr = address.toLowerCase().replace(/%.*$/, '');
  const family = net.isIP(addr);
  if (family === 0) return 'not an IP address';
  const v4 = family === 6 ? embeddedV4(addr) : addr;
  if (v4 && v4 !== addr) return localAddressReason(v4);
  if (FIXED.check(addr, family === 4 ? 'ipv4' : 'ipv6')) {
    if (addr.startsWith('127.') || addr === '::1') return 'this machine\'s loopback';
    if (addr.startsWith('169.254.') || addr.startsWith('fe80:') || addr === 'fd00:ec2::254') return 'a link-local address (where cloud metadata lives)';
    return 'an address no connection goes to (unspecified, multicast or reserved)';
  }
  if (interfaceAddresses().has(addr)) return 'an address of this machine';
  return undefined;
}
