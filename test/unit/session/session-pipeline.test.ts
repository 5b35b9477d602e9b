// SessionPipeline against fakes: a scripted service (stream answers and an in-memory archive), a
// spool that records appends, a fixed clock. The mapper and metrics are the real ones.
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createMapper } from '../../../src/mapping/mapper.js';
import { defaultMappingOptions } from '../../../src/config/mapping-section.js';
import type { BridgeLogRecord } from '../../../src/vocabulary/log-record.js';
import { SessionPipeline } from '../../../src/session/session-pipeline.js';
import { createMetrics } from '../../../src/observe/metrics.js';
import { createFactSink } from '../../../src/observe/facts.js';
import { ArchiveReader } from '../../../src/upstream/archive.js';
import type {
  ArchivePageQuery,
  ArchivePageResult,
  OpenStreamResult,
  StreamPosition,
} from '../../../src/upstream/client.js';
import { silentLogger } from '../../../src/util/logger.js';
import { readableBody } from '../../../src/upstream/stream-body.js';

type Answer = { frames: number[] | string; sid?: string; end: 'clean' | 'reset' } | { status: number };

const env = (seq: number, sid = 'A') => ({
  seq,
  event: {
    ts: 1_700_000_000_000_000 + seq,
    type: 'api_call',
    category: 'control',
    source: { kind: 'kernel_api', metadata: { telemetry_session_id: sid } },
    data: { n: seq },
  },
});
const sse = (seqs: number[], sid = 'A') =>
  seqs.map((s) => `id: ${s}\ndata: ${JSON.stringify(env(s, sid))}\n\n`).join('');

function service(answers: Answer[], archive: Array<ReturnType<typeof env>> | 'none') {
  const positions: StreamPosition[] = [];
  let archiveCalls = 0;
  return {
    positions,
    get archiveCalls() {
      return archiveCalls;
    },
    client: {
      invalidateKey() {},
      async openStream(_id: string, pos: StreamPosition): Promise<OpenStreamResult> {
        positions.push(pos);
        const a = answers.shift() ?? { status: 404 };
        if ('status' in a) return { kind: 'error', status: a.status, error: { code: 'x', message: 'scripted' } };
        const text = typeof a.frames === 'string' ? a.frames : sse(a.frames, a.sid);
        const body = Readable.from(
          (async function* () {
            yield Buffer.from(text);
            if (a.end === 'reset') throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
          })(),
        );
        return { kind: 'stream', body: readableBody(body) };
      },
      async listEvents(_id: string, q: ArchivePageQuery): Promise<ArchivePageResult> {
        archiveCalls++;
        if (archive === 'none')
          return { kind: 'error', status: 404, error: { code: 'not_found', message: 'no route' } };
        const list = q.order === 'desc' ? [...archive].reverse() : archive;
        const from = q.offset ? Number(q.offset) : 0;
        const items = list.slice(from, from + q.limit);
        const more = from + q.limit < list.length;
        return { kind: 'ok', items, hasMore: more, ...(more ? { nextOffset: String(from + q.limit) } : {}) };
      },
    },
  };
}

function pipeline(
  svc: ReturnType<typeof service>,
  opts: { start?: 'oldest' | 'latest'; checkpoint?: number; archive?: 'auto' | 'off' } = {},
) {
  const appends: Array<{ seq: number; epoch: number; sourceId: string | undefined; record: BridgeLogRecord | null }> =
    [];
  let ended = 0;
  const metrics = createMetrics({ defaultMetrics: false });
  const p = new SessionPipeline(
    {
      spec: { id: 's', attributes: {}, ...(opts.start ? { start: opts.start } : {}) },
      source: 'config',
      lifecycle: 'active',
      checkpoint: opts.checkpoint ?? 0,
      epoch: 0,
    },
    {
      client: svc.client,
      mapper: createMapper(defaultMappingOptions),
      spool: {
        // The pipeline refills one append object per event: its fields are copied out at once.
        append: ({ seq, epoch, record: bytes, sourceId }) =>
          void appends.push({
            seq,
            epoch,
            sourceId,
            record: bytes ? (JSON.parse(bytes.toString()) as BridgeLogRecord) : null,
          }),
        get full() {
          return false;
        },
        waitForRoom: () => Promise.resolve(),
      },
      encode: (r) => Buffer.from(JSON.stringify(r)),
      emit: createFactSink(metrics, silentLogger()),
      log: silentLogger(),
      idleTimeoutMs: 5_000,
      backoff: { initialMs: 1, maxMs: 2, authMs: 5 },
      defaultStart: 'oldest',
      archive: new ArchiveReader(svc.client, silentLogger(), { mode: opts.archive ?? 'auto', retryDelayMs: 1 }),
      onEnded: async () => void ended++,
      now: () => 1_800_000_000_000, // a fixed clock: observed times are exact
    },
  );
  const done = new Promise<void>((resolve) => {
    const t = setInterval(() => {
      if (ended > 0) {
        clearInterval(t);
        resolve();
      }
    }, 2);
  });
  return {
    p,
    appends,
    metrics,
    done,
    uids: () =>
      appends.map((a) => (a.record ? String(a.record.attributes['log.record.uid']) : `(checkpoint ${a.seq})`)),
  };
}

describe('SessionPipeline', () => {
  it('spools events in seq order with the observed time from the injected clock, and ends on 404', async () => {
    const svc = service([{ frames: [1, 2, 3], end: 'clean' }], []);
    const t = pipeline(svc);
    t.p.start();
    await t.done;
    expect(t.uids()).toEqual(['s:1', 's:2', 's:3']);
    expect(t.appends.every((a) => a.record?.observedMicros === 1_800_000_000_000_000)).toBe(true);
    expect(t.p.status()).toMatchObject({ state: 'ended', received: 3, lastReceivedSeq: 3, gaps: 0 });
    expect(svc.positions[0]).toEqual({ replayAll: true });
    expect(svc.positions[1]).toEqual({ lastEventId: 3, replayAll: false });
  });

  it('repairs a gap from the archive before the event that revealed it', async () => {
    const svc = service(
      [{ frames: [1, 2, 5], end: 'clean' }],
      [1, 2, 3, 4, 5].map((s) => env(s)),
    );
    const t = pipeline(svc);
    t.p.start();
    await t.done;
    expect(t.uids()).toEqual(['s:1', 's:2', 's:3', 's:4', 's:5']);
    expect(t.p.status()).toMatchObject({ repaired: 2, gaps: 0 });
  });

  it('without an archive a gap is an exact record with its reason, and the route is asked once', async () => {
    const svc = service([{ frames: [1, 3, 6], end: 'clean' }], 'none');
    const t = pipeline(svc);
    t.p.start();
    await t.done;
    expect(t.uids()).toEqual(['s:1', 's:gap:2-2', 's:3', 's:gap:4-5', 's:6']);
    expect(t.appends[1]!.record!.attributes['browser.telemetry.gap.reason']).toBe('evicted');
    expect(svc.archiveCalls).toBe(1);
  });

  it('a session that ends after a reset has its tail read from the archive', async () => {
    const svc = service(
      [{ frames: [1, 2], end: 'reset' }, { status: 502 }, { status: 404 }],
      [1, 2, 3, 4].map((s) => env(s)),
    );
    const t = pipeline(svc);
    t.p.start();
    await t.done;
    expect(t.uids()).toEqual(['s:1', 's:2', 's:3', 's:4']);
  });

  it('a session that ends after a reset with no archive says its tail is unknown', async () => {
    const svc = service([{ frames: [1, 2], end: 'reset' }, { status: 410 }], 'none');
    const t = pipeline(svc);
    t.p.start();
    await t.done;
    expect(t.uids()).toEqual(['s:1', 's:2', 's:gap:3-']);
    expect(await t.metrics.registry.metricText('bridge_tails_unknown_total')).toMatch(/ 1$/m);
  });

  it('a replay from 1 under a new telemetry_session_id is a new epoch with its own uids', async () => {
    const svc = service(
      [
        { frames: [1, 2, 3], end: 'reset' },
        { frames: [1, 2], sid: 'B', end: 'clean' },
      ],
      [1, 2, 3].map((s) => env(s)).concat([1, 2].map((s) => env(s, 'B'))),
    );
    const t = pipeline(svc);
    t.p.start();
    await t.done;
    expect(t.uids()).toEqual(['s:1', 's:2', 's:3', 's:e1:1', 's:e1:2']);
    expect(t.appends.map((a) => a.epoch)).toEqual([0, 0, 0, 1, 1]);
    expect(t.p.status()).toMatchObject({ epoch: 1, duplicates: 0 });
  });

  it('the tail of an epoch read from the archive after the next epoch began is spooled under its own source id', async () => {
    // A checkpoint committed between the repaired tail and the new epoch must say (A's seq, epoch 0, A),
    // never A's seq under B's source: a restart would then take B's replay for duplicates.
    const svc = service(
      [
        { frames: [1, 2], end: 'reset' },
        { frames: [1, 2], sid: 'B', end: 'clean' },
      ],
      [1, 2, 3, 4].map((s) => env(s)).concat([1, 2].map((s) => env(s, 'B'))),
    );
    const t = pipeline(svc);
    t.p.start();
    await t.done;
    expect(t.uids()).toEqual(['s:1', 's:2', 's:3', 's:4', 's:e1:1', 's:e1:2']);
    expect(t.appends.map((a) => [a.epoch, a.sourceId])).toEqual([
      [0, 'A'],
      [0, 'A'],
      [0, 'A'],
      [0, 'A'],
      [1, 'B'],
      [1, 'B'],
    ]);
  });

  it('start: latest takes the archive newest seq as the baseline and persists it before streaming', async () => {
    const svc = service(
      [{ frames: [8, 9], end: 'clean' }],
      [1, 2, 3, 4, 5, 6, 7].map((s) => env(s)),
    );
    const t = pipeline(svc, { start: 'latest' });
    t.p.start();
    await t.done;
    expect(t.uids()).toEqual(['(checkpoint 7)', 's:8', 's:9']);
    expect(svc.positions[0]).toEqual({ lastEventId: 7, replayAll: false });
  });
});
