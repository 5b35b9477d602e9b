// `tail <id> --from oldest` (or N) of a session that had already ended: its stream answers 404, but
// the service's archive outlives the session, so the events asked for are read from there instead
// of exiting 1 as for a session that never existed.
import type { BridgeConfig } from '../config/schema.js';
import type { StreamItem } from '../stream/sequenced-stream.js';
import { ArchiveReader } from '../upstream/archive.js';
import type { UpstreamClient } from '../upstream/client.js';
import { createLogger } from '../util/logger.js';

/**
 * What reading an ended session from the archive came to: how many events were printed, and, when
 * the archive could not be read (5xx, timeouts: its three tries spent), why. A failed read is not
 * "the archive has no event": the events are likely there, the person should try again later.
 */
export interface EndedRead {
  read: number;
  failed?: string;
}

/**
 * Hands `print` the archived events of `sessionId` from seq `from` on, oldest first; resolves with
 * how many (and why the read stopped, when it failed), or undefined when the archive has none of
 * them (no archive, an unknown session: the caller explains the 404 as before).
 */
export async function readEndedSession(
  client: Pick<UpstreamClient, 'listEvents' | 'getSession'>,
  config: BridgeConfig,
  sessionId: string,
  from: number,
  print: (items: StreamItem[]) => unknown,
): Promise<EndedRead | undefined> {
  const archive = new ArchiveReader(client, createLogger({ level: 'silent' }), { mode: config.upstream.archive });
  let read = 0;
  const res = await archive.scan(sessionId, {
    sinceMicros: 0,
    onPage: (envelopes) => {
      const items: StreamItem[] = envelopes
        .filter((e) => e.seq >= from)
        .map((envelope) => ({ kind: 'event', envelope, sourceId: undefined }));
      read += items.length;
      if (items.length > 0) print(items);
      return true;
    },
  });
  if (res.kind === 'failed') return { read, failed: res.detail };
  return res.kind === 'ok' && read > 0 ? { read } : undefined;
}
