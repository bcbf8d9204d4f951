import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { escape, escapes, type Host } from './harness';
import { startClampAs } from './server';
import { orphanedHelpers } from '../../lib/exec/net-tools';

/**
 * The sandbox's network (issue 25, item 2): a sandboxed command's only way out is Clamp's proxy, which never
 * connects to this machine, and nothing Clamp started for it outlives Clamp. Each case runs a script the judge
 * sees as an ordinary command (`bash ./x.sh`) in default settings, as root and as uid 65534, and then looks
 * at the host: the loopback listener's hits, Clamp's own server, the helpers left running.
 */

/** This machine's addresses that are not loopback (a service bound to 0.0.0.0 answers there too). */
const OTHER_ADDRESSES = Object.values(os.networkInterfaces())
  .flat()
  .filter((a) => a && !a.internal && !a.address.startsWith('fe80'))
  .map((a) => (a!.family === 'IPv6' ? `[${a!.address}]` : a!.address));

/** Every way a script can think of to reach host:port on this machine: direct, and through the proxy by every spelling. */
function probes(port: number): string {
  const spellings = ['127.0.0.1', '127.1', '0x7f000001', '2130706433', '0.0.0.0', 'localhost', '[::1]', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]', ...OTHER_ADDRESSES];
  return [
    `exec 3<>/dev/tcp/127.0.0.1/${port} && echo "tcp:reached" ; exec 3>&-`,
    `echo hit > /dev/udp/127.0.0.1/${port}`,
    ...spellings.flatMap((h) => [
      `curl -s -m 4 --noproxy '*' http://${h}:${port}/ && echo " direct:${h}:reached"`,
      `curl -s -m 4 --noproxy '' -x "$HTTP_PROXY" http://${h}:${port}/ ; echo " plain:${h}"`,
      `curl -s -m 4 --noproxy '' -x "$HTTP_PROXY" -p http://${h}:${port}/ ; echo " connect:${h}"`,
    ]),
    // a proxy variable of its own, and the proxy's port from any address
    `env | grep -i _proxy= | head -3`,
    `getent hosts example.com && echo "dns:resolved"`,
  ].join('\n');
}

async function runScript(host: Host, name: string, body: string, env: Record<string, string> = {}) {
  fs.writeFileSync(path.join(host.workspace, name), body, { mode: 0o755 });
  if (host.uid !== 0) fs.chownSync(path.join(host.workspace, name), host.uid, host.uid);
  return host.tool('run_command', { command: `bash ./${name}`, timeout_ms: 120_000 }, { mode: 'auto', env });
}

escapes('the sandbox\'s network', () => {
  escape(
    {
      tries: 'reach the loopback listener directly (bash /dev/tcp and /dev/udp, curl without the proxy) and through the proxy (plain HTTP and CONNECT) by every spelling of this machine (127.1, 0x7f000001, 2130706433, 0.0.0.0, localhost, [::1], [::ffff:127.0.0.1], its other addresses), with the person allowing localhost, 127.0.0.1 and [::1]; resolve a name',
      checks: 'no hit on the loopback listener; no name resolved; no helper left running once the tool CLI exited',
      timeoutMs: 180_000,
    },
    async (host) => {
      const r = await runScript(host, 'probe.sh', `{\n${probes(host.port)}\n} > probe.out 2>&1`, { CLAMP_SANDBOX_ALLOW_HOSTS: 'localhost,127.0.0.1,[::1],0.0.0.0' });
      const out = fs.readFileSync(path.join(host.workspace, 'probe.out'), 'utf8');
      expect(host.hits(), `${r.output}\n${out}`).toBe(0);
      expect(out).not.toMatch(/reached|dns:resolved|^hit$/m);
      expect(orphanedHelpers()).toEqual([]);
    },
  );

  escape(
    {
      tries: 'a command the model runs in default settings through the real server probes Clamp\'s own port and the loopback listener, directly and through the proxy by every spelling of this machine',
      checks: 'no probe is answered by Clamp\'s server (every answer is the proxy\'s refusal or none), no hit on the loopback listener, and no helper left running once the server stopped',
      timeoutMs: 300_000,
    },
    async (host) => {
      const scriptFile = path.join(host.root, 'script.json');
      fs.writeFileSync(scriptFile, JSON.stringify([{ toolCalls: [{ name: 'run_command', args: { command: 'bash ./probe.sh > probe.out 2>&1', timeout_ms: 240_000 }, id: 'probe' }] }, { text: 'done' }]));
      const clamp = await startClampAs(host, { CLAMP_MODEL: `scripted:${scriptFile}`, CLAMP_MODE: 'auto' });
      try {
        const port = Number(new URL(clamp.base).port);
        fs.writeFileSync(path.join(host.workspace, 'probe.sh'), `${probes(port)}\n${probes(host.port)}\n`);
        if (host.uid !== 0) fs.chownSync(path.join(host.workspace, 'probe.sh'), host.uid, host.uid);
        const created = await clamp.api('/api/sessions', { json: {} });
        expect(created.status, clamp.output()).toBe(201);
        const { session } = (await created.json()) as { session: { id: string } };
        const turn = await (await clamp.api('/api/chat', { json: { sessionId: session.id, message: { id: 'u1', text: 'probe' } } })).text();
        expect(turn).toContain('probe');
        const out = fs.existsSync(path.join(host.workspace, 'probe.out')) ? fs.readFileSync(path.join(host.workspace, 'probe.out'), 'utf8') : `no probe.out: ${turn.slice(0, 3000)}`;
        expect(out).not.toMatch(/^no probe.out/);
        // Clamp's server answers an unknown path or a missing token with its own words; the proxy's refusal names itself
        expect(out).not.toMatch(/reached|dns:resolved|Unauthorized|Not Found|clamp_token|<html/i);
        expect(host.hits()).toBe(0);
      } finally {
        await clamp.stop();
      }
      for (let i = 0; i < 20 && orphanedHelpers().length; i++) await new Promise((r) => setTimeout(r, 100));
      expect(orphanedHelpers()).toEqual([]);
    },
  );
});
