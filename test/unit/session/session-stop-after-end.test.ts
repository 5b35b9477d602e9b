// A stop that comes while a session's end is being recorded (shutdown, a move or a DELETE racing the
// stream's end). The end captured the final span state already; the stop must append nothing more:
// an ingest worker's outbox forgets the session once the main thread recorded its end, and an
// append after that threw, which ended the worker and every session it read (ingest/worker.ts).
//
// A stop that comes earlier, while the end still reads from the archive what the stream owed (its
// tail), is a stop and not an end: recorded as ended there, the session lost its tail for good and
// closed its spans without their last events.
import { describe, expect, it } from 'vitest';
import { createMapper } from '../../../src/mapping/mapper.js';
import { defaultMappingOptions } from '../../../src/config/mapping-section.js';
import { SessionPipeline } from '../../../src/session/session-pipeline.js';
import { spanTapFactory } from '../../../src/session/span-tap.js';
import type { RecordToAppend } from '../../../src/store/pending-segments.js';
import type { GapItem, StreamItem } from '../../../src/stream/sequenced-stream.js';
import { decodeSpanState } from '../../../src/traces/span-state.js';
import { ArchiveReader } from '../../../src/upstream/archive.js';
import type { UpstreamClient } from '../../../src/upstream/client.js';
import type { Fact } from '../../../src/vocabulary/facts.js';
import { silentLogger } from '../../../src/util/logger.js';
import { PAGE_LOAD, SESSION, envelopes } from '../traces/script.js';

function endingSession(archive?: ArchiveReader) {
  const appends: number[] = [];
  /** The span state each append would write with its checkpoint (undefined: none captured there). */
  const states: Array<string | undefined> = [];
  const offered: Buffer[] = [];
  const facts: Fact[] = [];
  let endsRecorded = 0;
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
        append: (a: RecordToAppend) => {
          appends.push(a.seq);
          states.push(a.spans?.()?.());
        },
        full: false,
        waitForRoom: () => Promise.resolve(),
      },
      encode: (r) => Buffer.from(JSON.stringify(r)),
      emit: (f) => void facts.push(f),
      log: silentLogger(),
      idleTimeoutMs: 5_000,
      backoff: { initialMs: 1, maxMs: 2, authMs: 5 },
      defaultStart: 'oldest',
      archive: archive ?? new ArchiveReader(client, silentLogger(), { mode: 'off' }),
      // The worker's onEnded: it waits until the main thread recorded the end.
      onEnded: () => {
        endsRecorded++;
        return endRecorded;
      },
      spans: spanTapFactory({ offer: (b) => void offered.push(...b) }),
    },
  );
  const items: StreamItem[] = envelopes(PAGE_LOAD).map((envelope) => ({
    kind: 'event',
    envelope,
    sourceId: undefined,
  }));
  return { p, appends, states, offered, facts, items, recordEnd, endsRecorded: () => endsRecorded };
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

describe("a session stopped while its end reads the stream's tail from the archive", () => {
  it('is stopped, not ended: no end recorded, no span closed, its open page captured where it stopped', async () => {
    let reading!: () => void;
    const read = new Promise<void>((resolve) => (reading = resolve));
    // An archive read that lasts until the stop aborts it.
    const archive = new ArchiveReader(
      {
        listEvents: (_id, _q, signal) => {
          reading();
          return new Promise((_resolve, reject) => {
            if (signal?.aborted) reject(new Error('aborted'));
            signal?.addEventListener('abort', () => reject(new Error('aborted')));
          });
        },
      },
      silentLogger(),
      { mode: 'auto', retryDelayMs: 1 },
    );
    const s = endingSession(archive);
    const tail: GapItem = {
      kind: 'gap',
      first: s.items.length + 1,
      last: undefined,
      reason: 'tail_unknown',
      epoch: 0,
      final: true,
    };
    const ending = s.p.ended([...s.items, tail], 'the session ended');
    await read;
    const offered = s.offered.length;
    await s.p.stop();
    s.recordEnd();
    await ending;
    expect(s.endsRecorded()).toBe(0);
    expect(s.facts.filter((f) => f.f === 'session_ended')).toEqual([]);
    // The open page is not closed as `session_end` before its last events: nothing more offered.
    expect(s.offered).toHaveLength(offered);
    // The stop's capture, at the last event applied, holds the page open for the next follow.
    expect(s.appends.at(-1)).toBe(s.items.length);
    expect(decodeSpanState(s.states.at(-1))?.open.docs.length).toBeGreaterThan(0);
  });
});
