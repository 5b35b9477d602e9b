// `tail <id> --from oldest` (or N) of a session that had already ended: its stream answers 404, but
// the service's archive outlives the session, so the events asked for are read from there instead
// of exiting 1 as for a session that never existed.
import type { BridgeConfig } from '../config/schema.js';
import type { GapItem, StreamItem } from '../stream/sequenced-stream.js';
import { repairGap } from '../session/gap-repair.js';
import { ArchiveReader } from '../upstream/archive.js';
import type { UpstreamClient } from '../upstream/client.js';
import { createLogger } from '../util/logger.js';

/**
 * A live gap (events the stream no longer holds, or frames that did not decode) read from the
 * archive before the events after it are shown: `--from oldest` means everything the service still
 * keeps, and the archive keeps far more than the stream's replay buffer. What the archive lacks, or
 * a read that failed (`failed` says why), stays the gap item it was.
 */
export async function repairLiveGap(
  archive: ArchiveReader,
  sessionId: string,
  gap: GapItem,
): Promise<{ items: StreamItem[]; failed?: string }> {
  if (gap.last === undefined || gap.reason === 'frame_too_large') return { items: [gap] };
  const r = await repairGap(archive, sessionId, gap).catch((err: unknown) => ({
    items: [gap],
    readFailed: true as const,
    unavailable: (err as Error).message,
  }));
  return r.readFailed
    ? { items: r.items, failed: r.unavailable ?? 'the archive could not be read' }
    : { items: r.items };
}

/** The archive reader of `tail` (its log is silent: what matters is said as notes). */
export function tailArchiveReader(client: Pick<UpstreamClient, 'listEvents' | 'getSession'>, config: BridgeConfig) {
  return new ArchiveReader(client, createLogger({ level: 'silent' }), { mode: config.upstream.archive });
}

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
  const archive = tailArchiveReader(client, config);
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
