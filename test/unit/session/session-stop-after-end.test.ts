// A stop that comes while a session's end is being recorded (shutdown, a move or a DELETE racing the
// stream's end). The end captured the final span state already; the stop must append nothing more:
// an ingest worker's outbox forgets the session once the main thread recorded its end, and an
// append after that threw, which ended the worker and every session it read (ingest/worker.ts).
import { describe, expect, it } from 'vitest';
import { createMapper } from '../../../src/mapping/mapper.js';
import { defaultMappingOptions } from '../../../src/config/mapping-section.js';
import { SessionPipeline } from '../../../src/session/session-pipeline.js';
import { spanTapFactory } from '../../../src/session/span-tap.js';
import type { RecordToAppend } from '../../../src/store/pending-segments.js';
import type { StreamItem } from '../../../src/stream/sequenced-stream.js';
import { ArchiveReader } from '../../../src/upstream/archive.js';
import type { UpstreamClient } from '../../../src/upstream/client.js';
import { silentLogger } from '../../../src/util/logger.js';
import { PAGE_LOAD, SESSION, envelopes } from '../traces/script.js';

function endingSession() {
  const appends: number[] = [];
  const offered: Buffer[] = [];
  let recordEnd!: () => void;
  const endRecorded = new Promise<void>((resolve) => (recordEnd = resolve));
  const client = {
    invalidateKey() {},
    openStream: () => new Promise(() => undefined),
  } as unknown as UpstreamClient;
  const p = new SessionPipeline(
    { spec: { id: SESSION, attributes: {} }, source: 'config', lifecycle: 'active', checkpoint: 0, epoch: 0 },
    {
      client,
      mapper: createMapper(defaultMappingOptions),
      spool: {
        append: (a: RecordToAppend) => void appends.push(a.seq),
        full: false,
        waitForRoom: () => Promise.resolve(),
      },
      encode: (r) => Buffer.from(JSON.stringify(r)),
      emit: () => undefined,
      log: silentLogger(),
      idleTimeoutMs: 5_000,
      backoff: { initialMs: 1, maxMs: 2, authMs: 5 },
      defaultStart: 'oldest',
      archive: new ArchiveReader(client, silentLogger(), { mode: 'off' }),
      // The worker's onEnded: it waits until the main thread recorded the end.
      onEnded: () => endRecorded,
      spans: spanTapFactory({ offer: (b) => void offered.push(...b) }),
    },
  );
  const items: StreamItem[] = envelopes(PAGE_LOAD).map((envelope) => ({
    kind: 'event',
    envelope,
    sourceId: undefined,
  }));
  return { p, appends, offered, items, recordEnd };
}

describe('a session stopped while its end is recorded', () => {
  for (const removed of [false, true]) {
    it(`${removed ? 'removed' : 'stopped'}: nothing is appended or offered after the end's capture`, async () => {
      const s = endingSession();
      const ending = s.p.ended(s.items, 'the session ended');
      const appended = s.appends.length;
      const offered = s.offered.length;
      expect(appended).toBe(s.items.length + 1); // every event, then the end's capture
      const stopping = s.p.stop(removed);
      s.recordEnd();
      await Promise.all([ending, stopping]);
      expect(s.appends).toHaveLength(appended);
      expect(s.offered).toHaveLength(offered);
    });
  }
});
