/**
 * web_fetch and local addresses. The policy resolves the URL's host and judges every address (addresses.ts):
 * a host at a local address is refused in auto mode and asked about in the others, the reason naming the
 * addresses (the approval bar shows it), and the verdict carries them. Each request then resolves again, checks
 * again and connects only to the addresses it checked (pinned-get.ts): a local address is reached only when the
 * verdict the call runs under names it, that is when a person approved this very call for this host at it. A
 * name that resolved to a public address when judged and to a local one when fetched (DNS rebinding), or a
 * redirect within the host to a local address not approved, is refused.
 */
import type { PermissionMode, PolicyDecision, ToolContext } from '../../contract/types';
import { ToolError } from '../../contract/types';
import { describeLocal, localAmong, resolveHost, type Resolved } from './addresses';

/** The verdict for fetching `raw`: "ask" in every mode that asks (auto runs it) unless its host is local. */
export async function fetchPolicy(raw: string, mode: PermissionMode): Promise<PolicyDecision> {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return { action: 'ask', reason: 'fetches a page from the web' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { action: 'ask', reason: 'fetches a page from the web' };
  let addresses: Resolved[];
  try {
    addresses = await resolveHost(url.hostname);
  } catch {
    // the fetch itself says the name does not resolve; nothing is reached
    return { action: 'ask', reason: `fetches a page from ${url.host} (its address could not be looked up)` };
  }
  const local = localAmong(addresses);
  if (local.length === 0) return { action: 'ask', reason: `fetches a page from ${url.host} on the web (${addresses.map((a) => a.address).join(', ')})` };
  const where = `${url.host} is at ${describeLocal(local)}, a local address: a service on this machine or its network, not the web`;
  if (mode === 'auto') {
    return { action: 'deny', reason: `${where}; web_fetch does not reach local addresses in auto mode`, localAddresses: local.map((l) => l.address) };
  }
  // never saved as an "always" rule: an approval covers this call, this host, these addresses
  return { action: 'ask', opaque: true, reason: where, localAddresses: local.map((l) => l.address) };
}

/**
 * Resolve one request's host and check its addresses against the verdict the call runs under; the addresses
 * to connect to. Throws ToolError (with the next step) when it would reach a local address not approved.
 */
export async function checkedAddresses(tool: string, url: URL, ctx: Pick<ToolContext, 'mode' | 'verdict'>): Promise<Resolved[]> {
  let addresses: Resolved[];
  try {
    addresses = await resolveHost(url.hostname);
  } catch {
    const step = 'Check the host name in the URL, or try again later.';
    throw new ToolError(`${tool} could not reach ${url.host}: the host name could not be resolved.\n${step}`, step);
  }
  const local = localAmong(addresses);
  const approved = new Set(ctx.verdict?.localAddresses ?? []);
  const unapproved = local.filter((l) => !approved.has(l.address));
  if (unapproved.length === 0) return addresses;
  const step =
    ctx.mode === 'auto'
      ? 'Local addresses are not fetched in auto mode; do not retry, and ask the user if the page is needed.'
      : 'If this address is meant, call web_fetch again with this URL so the user can approve it; otherwise do not retry.';
  throw new ToolError(
    `${tool} did not fetch ${url.href}: ${url.host} is now at ${describeLocal(unapproved)}, a local address this call was not approved to reach, so no connection was made.\n${step}`,
    step,
  );
}
