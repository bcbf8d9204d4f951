import fs from 'node:fs';
import net from 'node:net';

/**
 * What /proc tells about a network namespace from outside it: the TCP sockets listening in it (read through
 * any process inside, /proc/<pid>/net/tcp and tcp6), and which process holds a socket (its fd links).
 */

export interface Listener {
  /** the address it listens on: 127.0.0.1, 0.0.0.0, ::, ::1 … */
  address: string;
  port: number;
  /** the socket's inode (its fd links read socket:[inode]) */
  inode: string;
}

const LISTEN = '0A';

function v4(hex: string): string {
  const n = parseInt(hex, 16);
  // /proc prints the address as the host's 32-bit word: little-endian here
  return [n & 255, (n >>> 8) & 255, (n >>> 16) & 255, n >>> 24].join('.');
}

function v6(hex: string): string {
  const words: string[] = [];
  for (let i = 0; i < 32; i += 8) {
    const w = hex.slice(i, i + 8);
    // each 32-bit word is in host (little-endian) order
    const bytes = w.match(/../g)!.reverse().join('');
    words.push(bytes.slice(0, 4), bytes.slice(4, 8));
  }
  const text = words.map((w) => parseInt(w, 16).toString(16)).join(':');
  // one spelling for an address: what net's own parser gives back
  const sock = new net.SocketAddress({ address: text, family: 'ipv6' });
  return sock.address;
}

/** The listening TCP sockets of the namespace `pid` is in (empty when it is gone). Never throws. */
export function listeners(pid: number): Listener[] {
  const out: Listener[] = [];
  for (const [file, six] of [['tcp', false], ['tcp6', true]] as const) {
    let text = '';
    try {
      text = fs.readFileSync(`/proc/${pid}/net/${file}`, 'latin1');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10 || f[3] !== LISTEN) continue;
      const [addrHex, portHex] = f[1]!.split(':') as [string, string];
      out.push({ address: six ? v6(addrHex) : v4(addrHex), port: parseInt(portHex, 16), inode: f[9]! });
    }
  }
  return out;
}

/** Whether a socket listening on 127.0.0.1 or ::1 (`address`) and `port` exists in the namespace of `pid`. */
export function listening(pid: number | 'self', address: string, port: number): boolean {
  return listeners(pid === 'self' ? process.pid : pid).some((l) => l.port === port && l.address === address);
}

/** The namespace a process is in (`net:[4026…]`), or undefined when it is gone. */
export function namespaceOf(pid: number | 'self', kind: 'net' | 'user'): string | undefined {
  try {
    return fs.readlinkSync(`/proc/${pid}/ns/${kind}`);
  } catch {
    return undefined;
  }
}

/**
 * For each socket inode, a process in the network namespace `netns` holding it. Reads every process's ns link and
 * then the fd links of those in that namespace only; a process it may not look into is skipped. Never throws.
 */
export function socketHolders(inodes: ReadonlySet<string>, netns: string): Map<string, number> {
  const found = new Map<string, number>();
  let pids: string[] = [];
  try {
    pids = fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p));
  } catch {
    return found;
  }
  for (const p of pids) {
    if (found.size === inodes.size) break;
    if (namespaceOf(Number(p), 'net') !== netns) continue;
    let fds: string[] = [];
    try {
      fds = fs.readdirSync(`/proc/${p}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      let link = '';
      try {
        link = fs.readlinkSync(`/proc/${p}/fd/${fd}`);
      } catch {
        continue;
      }
      const m = /^socket:\[(\d+)\]$/.exec(link);
      if (m && inodes.has(m[1]!) && !found.has(m[1]!)) found.set(m[1]!, Number(p));
    }
  }
  return found;
}
