// The `spool` line of `check`: which spool mode runs, and whether the service's archive answers.
// In `overflow` mode a crash is repaired by the service's replay: its ring buffer, then its archive;
// without an archive, what the ring buffer evicted while the bridge was down becomes a gap record,
// so `check` says so and names the mode that avoids it (docs/design.md "Delivery semantics").
import type { BridgeConfig } from '../config/schema.js';
import type { UpstreamClient } from '../upstream/client.js';
import type { CheckItem } from './checklist.js';

const MODE_TEXT = {
  overflow: 'overflow (records wait in memory; the spool takes what the collector cannot)',
  always: 'always (every record on disk before its checkpoint moves)',
} as const;

/**
 * Probes the archive with one page of one configured session (none configured: not probed). With
 * `serviceFailed` (why the service check failed) it is not asked either: an unreachable service
 * would cost the probe its whole timeout again, to say what the service line already said.
 */
export async function probeSpoolMode(
  client: UpstreamClient,
  config: BridgeConfig,
  serviceFailed?: string,
): Promise<CheckItem> {
  const mode = MODE_TEXT[config.spool.mode];
  if (config.upstream.archive === 'off')
    return archiveNote(config, `mode ${mode}; archive: off (upstream.archive)`, false);
  const first = config.sessions[0];
  if (!first) return { label: 'spool', status: 'ok', detail: `mode ${mode}; archive not probed (no session named)` };
  if (serviceFailed !== undefined)
    return { label: 'spool', status: 'skip', detail: `mode ${mode}; archive not asked: ${serviceFailed}` };
  const page = await client.listEvents(first.id, { limit: 1 }).catch((err: Error) => ({
    kind: 'error' as const,
    status: 0,
    error: { code: 'network', message: err.message },
  }));
  if (page.kind === 'ok') return { label: 'spool', status: 'ok', detail: `mode ${mode}; the archive answers` };
  if (page.status === 404) return archiveNote(config, `mode ${mode}; the archive does not answer (404)`, true);
  return {
    label: 'spool',
    status: 'ok',
    // The service's words too: a bare "(200)" does not say that the page was not a list.
    detail: `mode ${mode}; the archive could not be asked now (${page.status ? `HTTP ${page.status}: ` : ''}${page.error.message})`,
  };
}

function archiveNote(config: BridgeConfig, detail: string, missing: boolean): CheckItem {
  const notes =
    config.spool.mode === 'overflow'
      ? [
          {
            level: 'warn' as const,
            text: `without ${missing ? 'an' : 'reading the'} archive, a crash of the bridge costs a gap record for what the service's ring buffer evicted meanwhile; spool.mode: always avoids that`,
          },
        ]
      : [];
  return { label: 'spool', status: 'ok', detail, notes };
}
