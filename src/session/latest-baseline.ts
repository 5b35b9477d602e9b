// `start: latest` for a session with no position: where "now" is, decided by seq (ts is not
// ordered by seq, so it cannot say which events are history). The archive's newest event is the
// last one before now; the session takes its seq as the checkpoint. Without an archive the first
// connection simply asks for new events, and a reconnect before the first event asks again (the
// events in between cannot be placed without a position, and `latest` says history is skipped).
import type { Logger } from 'pino';
import type { ArchiveReader } from '../upstream/archive.js';
import { sourceIdOf } from '../stream/sequenced-stream.js';

export interface Baseline {
  seq: number;
  sourceId?: string;
  tsMicros: number;
}

/** The newest archived event's position, or undefined when the archive cannot say. */
export async function latestBaseline(
  archive: ArchiveReader,
  sessionId: string,
  log: Logger,
): Promise<Baseline | undefined> {
  if (!archive.usable) return undefined;
  const newest = await archive
    .newest(sessionId)
    .catch((err: unknown) => ({ kind: 'failed' as const, detail: (err as Error).message }));
  if (newest.kind !== 'ok') {
    if (newest.kind === 'failed')
      log.warn(
        { session: sessionId, detail: newest.detail },
        'start: latest could not read the archive for a baseline; following new events only',
      );
    return undefined;
  }
  const env = newest.envelopes[0];
  if (!env) return undefined;
  log.info(
    { session: sessionId, baselineSeq: env.seq },
    'start: latest; history up to the newest archived event is skipped',
  );
  const sourceId = sourceIdOf(env);
  return { seq: env.seq, tsMicros: env.event.ts, ...(sourceId !== undefined ? { sourceId } : {}) };
}
