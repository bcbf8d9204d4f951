import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * The system-call filter every sandboxed command runs under (bubblewrap's --seccomp FD: a classic BPF
 * program, loaded after the sandbox is built and just before the command starts; bwrap also sets
 * no_new_privs, so no setuid program regains a capability). What it refuses, on x86_64 and aarch64:
 * - sockets of any family but IPv4, IPv6 and netlink: a unix socket could reach the host's services through a
 *   socket file in the workspace, /run or an abstract name (docker, a database, the session bus); vsock and
 *   the rest reach past the network namespace. socketpair stays, for stream and seqpacket pairs (pipes, a
 *   child's IPC channel): a datagram pair could send to the host's datagram sockets;
 * - new namespaces (clone and unshare with a CLONE_NEW* flag, setns; clone3, whose flags a filter cannot read,
 *   answers ENOSYS, so libc falls back to clone): a user namespace would hand the command capabilities again;
 * - mounting (mount, umount2, pivot_root, chroot and the new mount API), kernel keyrings, bpf,
 *   perf_event_open, userfaultfd, io_uring, modules, kexec, reboot, swap, acct, quotactl, syslog,
 *   open_by_handle_at, and TIOCSTI/TIOCLINUX (typing into a terminal).
 * Everything refused fails with an errno (EPERM; EAFNOSUPPORT for a socket family), never a kill, so
 * programs can fall back. Another architecture's system calls (i386 on x86_64: checked with its own numbers;
 * x32, arm32 on aarch64: refused) cannot slip past it.
 */

const EPERM = 1;
const ENOSYS = 38;
const EAFNOSUPPORT = 97;

const RET_ALLOW = 0x7fff0000;
const retErrno = (errno: number) => 0x00050000 | errno;

const AUDIT_ARCH_X86_64 = 0xc000003e;
const AUDIT_ARCH_I386 = 0x40000003;
const AUDIT_ARCH_AARCH64 = 0xc00000b7;
const X32_SYSCALL_BIT = 0x40000000;

const AF_INET = 2;
const AF_INET6 = 10;
const AF_NETLINK = 16;
const SOCK_STREAM = 1;
const SOCK_SEQPACKET = 5;
/** CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET */
const CLONE_NEW_ANY = 0x7e020000;
/** CLONE_NEWTIME: only unshare and clone3 take it (in clone's flags the bit is part of the exit signal) */
const CLONE_NEWTIME = 0x80;
const TIOCSTI = 0x5412;
const TIOCLINUX = 0x541c;
/** socketcall(2)'s call numbers (i386) */
const SYS_SOCKET = 1;
const SYS_SOCKETPAIR = 8;

/** One architecture's system-call numbers for what the filter looks at. */
interface Table {
  socket: number;
  socketpair: number;
  clone: number;
  clone3: number;
  unshare: number;
  ioctl: number;
  /** socketcall (i386 only): its arguments are in memory, so socket and socketpair through it are refused */
  socketcall?: number;
  /** refused with EPERM */
  denied: readonly number[];
  /** refused with ENOSYS (a caller falls back) */
  absent: readonly number[];
}

// the new mount API (open_tree … fspick) and mount_setattr share their numbers across architectures
const NEW_MOUNT_API = [428, 429, 430, 431, 432, 433, 442];
const IO_URING = [425, 426, 427];

const X86_64: Table = {
  socket: 41, socketpair: 53, clone: 56, clone3: 435, unshare: 272, ioctl: 16,
  // setns mount umount2 pivot_root chroot keyctl add_key request_key bpf perf_event_open userfaultfd
  // kexec_load kexec_file_load init_module finit_module delete_module reboot swapon swapoff acct quotactl syslog
  // open_by_handle_at iopl ioperm
  denied: [308, 165, 166, 155, 161, 250, 248, 249, 321, 298, 323, 246, 320, 175, 313, 176, 169, 167, 168, 163, 179, 103, 304, 172, 173, ...NEW_MOUNT_API],
  absent: IO_URING,
};

const I386: Table = {
  socket: 359, socketpair: 360, clone: 120, clone3: 435, unshare: 310, ioctl: 54, socketcall: 102,
  // setns mount umount umount2 pivot_root chroot keyctl add_key request_key bpf perf_event_open userfaultfd
  // kexec_load init_module finit_module delete_module reboot swapon swapoff acct quotactl syslog
  // open_by_handle_at iopl ioperm
  denied: [346, 21, 22, 52, 217, 61, 288, 286, 287, 357, 336, 374, 283, 128, 350, 129, 88, 87, 115, 51, 131, 103, 342, 110, 101, ...NEW_MOUNT_API],
  absent: IO_URING,
};

const AARCH64: Table = {
  socket: 198, socketpair: 199, clone: 220, clone3: 435, unshare: 97, ioctl: 29,
  // setns mount umount2 pivot_root chroot keyctl add_key request_key bpf perf_event_open userfaultfd
  // kexec_load kexec_file_load init_module finit_module delete_module reboot swapon swapoff acct quotactl syslog
  // open_by_handle_at
  denied: [268, 40, 39, 41, 51, 219, 217, 218, 280, 241, 282, 104, 294, 105, 273, 106, 142, 224, 225, 89, 60, 116, 265, ...NEW_MOUNT_API],
  absent: IO_URING,
};

// classic BPF opcodes
const LD_W_ABS = 0x20;
const ALU_AND_K = 0x54;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const JSET_K = 0x45;
const RET_K = 0x06;
// offsets into struct seccomp_data (little-endian: an argument's low 32 bits come first)
const NR = 0;
const ARCH = 4;
const arg = (i: number) => 16 + 8 * i;

type Target = string | number;
type Insn =
  | { op: 'ld'; k: number }
  | { op: 'and'; k: number }
  | { op: 'jeq' | 'jge' | 'jset'; k: number; t: Target; f?: Target }
  | { op: 'ret'; k: number }
  | { op: 'label'; name: string };

/** A tiny assembler: named labels instead of counted jumps (each jump goes forward, at most 255 instructions). */
class Program {
  private readonly insns: Insn[] = [];
  ld(k: number) { this.insns.push({ op: 'ld', k }); }
  and(k: number) { this.insns.push({ op: 'and', k }); }
  /** if the accumulator equals k go to t (else to f, or on) */
  jeq(k: number, t: Target, f?: Target) { this.insns.push({ op: 'jeq', k, t, f }); }
  jge(k: number, t: Target, f?: Target) { this.insns.push({ op: 'jge', k, t, f }); }
  jset(k: number, t: Target, f?: Target) { this.insns.push({ op: 'jset', k, t, f }); }
  ret(k: number) { this.insns.push({ op: 'ret', k }); }
  label(name: string) { this.insns.push({ op: 'label', name }); }

  bytes(): Buffer {
    const at = new Map<string, number>();
    const real: Exclude<Insn, { op: 'label' }>[] = [];
    for (const i of this.insns) {
      if (i.op === 'label') at.set(i.name, real.length);
      else real.push(i);
    }
    const out = Buffer.alloc(real.length * 8);
    real.forEach((i, n) => {
      const offset = (t: Target | undefined): number => {
        if (t === undefined) return 0;
        const to = typeof t === 'number' ? t : at.get(t);
        if (to === undefined) throw new Error(`seccomp: no label ${String(t)}`);
        const d = to - n - 1;
        if (d < 0 || d > 255) throw new Error(`seccomp: jump to ${String(t)} out of range (${d})`);
        return d;
      };
      const code = { ld: LD_W_ABS, and: ALU_AND_K, jeq: JEQ_K, jge: JGE_K, jset: JSET_K, ret: RET_K }[i.op];
      out.writeUInt16LE(code, n * 8);
      if (i.op === 'jeq' || i.op === 'jge' || i.op === 'jset') {
        out.writeUInt8(offset(i.t), n * 8 + 2);
        out.writeUInt8(offset(i.f), n * 8 + 3);
      }
      out.writeUInt32LE(i.k >>> 0, n * 8 + 4);
    });
    return out;
  }
}

/** The checks for one architecture's numbers, under labels prefixed with `p`. */
function archBlock(prog: Program, p: string, t: Table, x32: boolean): void {
  prog.ld(NR);
  if (x32) prog.jge(X32_SYSCALL_BIT, `${p}enosys`);
  prog.jeq(t.socket, `${p}socket`);
  prog.jeq(t.socketpair, `${p}socketpair`);
  prog.jeq(t.clone, `${p}clone`);
  prog.jeq(t.unshare, `${p}unshare`);
  prog.jeq(t.ioctl, `${p}ioctl`);
  prog.jeq(t.clone3, `${p}enosys`);
  if (t.socketcall !== undefined) prog.jeq(t.socketcall, `${p}socketcall`);
  for (const nr of t.absent) prog.jeq(nr, `${p}enosys`);
  for (const nr of t.denied) prog.jeq(nr, `${p}eperm`);
  prog.ret(RET_ALLOW);

  prog.label(`${p}socket`);
  prog.ld(arg(0));
  prog.jeq(AF_INET, `${p}allow`);
  prog.jeq(AF_INET6, `${p}allow`);
  prog.jeq(AF_NETLINK, `${p}allow`);
  prog.ret(retErrno(EAFNOSUPPORT));

  prog.label(`${p}socketpair`);
  prog.ld(arg(1));
  // the type without SOCK_NONBLOCK and SOCK_CLOEXEC
  prog.and(0xf);
  prog.jeq(SOCK_STREAM, `${p}allow`);
  prog.jeq(SOCK_SEQPACKET, `${p}allow`);
  prog.ret(retErrno(EAFNOSUPPORT));

  prog.label(`${p}clone`);
  prog.ld(arg(0));
  prog.jset(CLONE_NEW_ANY, `${p}eperm`, `${p}allow`);

  prog.label(`${p}unshare`);
  prog.ld(arg(0));
  prog.jset(CLONE_NEW_ANY | CLONE_NEWTIME, `${p}eperm`, `${p}allow`);

  prog.label(`${p}ioctl`);
  prog.ld(arg(1));
  prog.jeq(TIOCSTI, `${p}eperm`);
  prog.jeq(TIOCLINUX, `${p}eperm`);
  prog.ret(RET_ALLOW);

  if (t.socketcall !== undefined) {
    prog.label(`${p}socketcall`);
    prog.ld(arg(0));
    prog.jeq(SYS_SOCKET, `${p}eafnosupport`);
    prog.jeq(SYS_SOCKETPAIR, `${p}eafnosupport`, `${p}allow`);
    prog.label(`${p}eafnosupport`);
    prog.ret(retErrno(EAFNOSUPPORT));
  }

  prog.label(`${p}allow`);
  prog.ret(RET_ALLOW);
  prog.label(`${p}eperm`);
  prog.ret(retErrno(EPERM));
  prog.label(`${p}enosys`);
  prog.ret(retErrno(ENOSYS));
}

/** The filter for an architecture as Node names it ('x64', 'arm64'); undefined for any other (no filter there). */
export function seccompProgram(arch: string = process.arch): Buffer | undefined {
  const prog = new Program();
  prog.ld(ARCH);
  if (arch === 'x64') {
    prog.jeq(AUDIT_ARCH_X86_64, 'native');
    prog.jeq(AUDIT_ARCH_I386, 'i386_');
    prog.ret(retErrno(ENOSYS));
    prog.label('native');
    archBlock(prog, 'x64_', X86_64, true);
    prog.label('i386_');
    archBlock(prog, 'i386_', I386, false);
  } else if (arch === 'arm64') {
    prog.jeq(AUDIT_ARCH_AARCH64, 'native');
    prog.ret(retErrno(ENOSYS));
    prog.label('native');
    archBlock(prog, 'a64_', AARCH64, false);
  } else {
    return undefined;
  }
  return prog.bytes();
}

const KEY = Symbol.for('clamp.seccompFile');
type Files = Map<string, string>;
function files(): Files {
  const g = globalThis as unknown as Record<symbol, Files | undefined>;
  return (g[KEY] ??= new Map());
}

/**
 * The file holding the filter, written once per process into `dir`/sandbox (a folder the sandbox hides: Clamp's
 * data dir); undefined on an architecture without a filter. Throws when it cannot be written.
 */
export function seccompFile(dir: string): string | undefined {
  const known = files().get(dir);
  if (known && fs.existsSync(known)) return known;
  const prog = seccompProgram();
  if (!prog) return undefined;
  const folder = path.join(dir, 'sandbox');
  fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
  const file = path.join(folder, `seccomp-${process.arch}-${crypto.createHash('sha256').update(prog).digest('hex').slice(0, 12)}.bpf`);
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, prog, { mode: 0o600 });
  fs.renameSync(tmp, file);
  files().set(dir, file);
  return file;
}

/**
 * A fresh read-only descriptor of the filter for bwrap's --seccomp (it reads to the end and closes its copy, so
 * each sandbox needs its own); undefined on an architecture without a filter. Throws when it cannot be written.
 */
export function openSeccompFd(dir: string): number | undefined {
  const file = seccompFile(dir);
  return file === undefined ? undefined : fs.openSync(file, 'r');
}
