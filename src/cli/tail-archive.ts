// `tail <id> --from oldest` (or N) of a session that had already ended: its stream answers 404, but
// the service's archive outlives the session, so the events asked for are read from there instead
// of exiting 1 as for a session that never existed.
import type { BridgeConfig } from '../config/schema.js';
import type { StreamItem } from '../stream/sequenced-stream.js';
import { ArchiveReader } from '../upstream/archive.js';
import type { UpstreamClient } from '../upstream/client.js';
import { createLogger } from '../util/logger.js';

/**
 * Hands `print` the archived events of `sessionId` from seq `from` on, oldest first; resolves with
 * how many, or undefined when the archive has none of them (no archive, an unknown session, a read
 * that failed: the caller explains the 404 as before).
 */
export async function readEndedSession(
  client: Pick<UpstreamClient, 'listEvents' | 'getSession'>,
  config: BridgeConfig,
  sessionId: string,
  from: number,
  print: (items: StreamItem[]) => unknown,
): Promise<number | undefined> {
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
  return res.kind === 'ok' && read > 0 ? read : undefined;
}
