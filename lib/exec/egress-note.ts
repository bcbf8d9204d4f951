import { BUDGET } from '../contract/budget';
import { formatCount } from '../contract/text';
import type { ProxyEvent } from './egress-proxy';

/**
 * What a command's result says about the sandbox's proxy: every host it refused, by name, with the next step
 * (allow_hosts, which the person approves for the session), and the hosts it could not reach.
 */

function list(items: readonly string[], max: number): string {
  const shown = items.slice(0, max);
  const more = items.length - shown.length;
  return `${shown.join(', ')}${more > 0 ? ` and ${formatCount(more)} more` : ''}`;
}

/** The note for a run's proxy events, or undefined when there were none. */
export function egressNote(events: readonly ProxyEvent[], maxListed: number = BUDGET.SANDBOX_REFUSED_HOSTS_MAX_LISTED): string | undefined {
  const seen = new Map<string, ProxyEvent>();
  for (const e of events) if (!seen.has(`${e.reason} ${e.host}`)) seen.set(`${e.reason} ${e.host}`, e);
  const of = (reason: ProxyEvent['reason']) => [...seen.values()].filter((e) => e.reason === reason);
  const parts: string[] = [];
  const refused = of('not-allowed').map((e) => e.host);
  if (refused.length) {
    const hosts = refused.slice(0, maxListed);
    parts.push(
      `The sandbox's proxy refused ${list(refused, maxListed)}: not on the allowed hosts. ` +
        `If the task needs ${refused.length === 1 ? 'it' : 'them'}, call run_command again with the same command, allow_hosts: ${JSON.stringify(hosts)} and a sandbox_reason saying why; ` +
        'the person is asked to allow them for this session. Do not try to get around the proxy.',
    );
  }
  for (const e of of('local').slice(0, maxListed)) parts.push(`The sandbox's proxy refused ${e.host}: ${e.detail}.`);
  for (const e of of('unreachable').slice(0, maxListed)) parts.push(`The sandbox's proxy could not reach ${e.host}: ${e.detail}.`);
  const bad = of('bad-request');
  if (bad.length) parts.push(`The sandbox's proxy could not read ${formatCount(bad.length)} request${bad.length === 1 ? '' : 's'} (${bad[0]!.detail}).`);
  return parts.length ? parts.join(' ') : undefined;
}
