// `check`'s discovery line: walks the service's session list with the configured selector, as the
// daemon will, and says how many live sessions it matches now, or why the list cannot be read
// (404: a service without the list; the daemon would still follow its configured sessions).
import type { DiscoveryConfig } from '../config/schema.js';
import { walkList, type ListClient } from '../discovery/list-sessions.js';
import type { CheckItem } from './checklist.js';

/** The selector in words, without anything secret (tags and query are the operator's own). */
export function describeSelector(d: DiscoveryConfig): string {
  const parts = [
    ...Object.entries(d.tags).map(([k, v]) => `${k}=${v}`),
    ...(d.query !== undefined ? [`query "${d.query}"`] : []),
    ...(d.region !== undefined ? [`region ${d.region}`] : []),
  ];
  return parts.length > 0 ? parts.join(', ') : 'every session of the project';
}

export async function probeDiscovery(client: ListClient, d: DiscoveryConfig): Promise<CheckItem> {
  const r = await walkList(client, d, undefined, async () => undefined);
  const sel = describeSelector(d);
  if (r.kind === 'ok') {
    const n = r.matched;
    return {
      label: 'discovery',
      status: 'ok',
      detail: `${sel}: ${n} live session${n === 1 ? '' : 's'} match now (${r.pages} page${r.pages === 1 ? '' : 's'}); new ones are found every ${d.intervalMs / 1000} s`,
    };
  }
  if (r.status === 404) {
    return {
      label: 'discovery',
      status: 'fail',
      detail:
        'the service has no session list (GET /browsers answered 404): discovery cannot find sessions; configured and PUT sessions would still be followed',
    };
  }
  return { label: 'discovery', status: 'fail', detail: `cannot list sessions (${sel}): ${r.detail}` };
}
