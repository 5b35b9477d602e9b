// Traces on: how a session that is stopped leaves its spans (docs/traces.md "After a crash, a stop
// or a removal"). Stopped to be followed again, its open spans stay open in its stored state;
// removed for good, they are closed (session_removed) and the state is written once more with them
// and nothing open, even when this run read nothing of it (an idle session).
import { describe, expect, it } from 'vitest';
import { createMapper } from '../../../src/mapping/mapper.js';
import { defaultMappingOptions } from '../../../src/config/mapping-section.js';
import { SessionPipeline } from '../../../src/session/session-pipeline.js';
import { spanTapFactory } from '../../../src/session/span-tap.js';
import type { RecordToAppend } from '../../../src/store/pending-segments.js';
import { ArchiveReader } from '../../../src/upstream/archive.js';
import type { UpstreamClient } from '../../../src/upstream/client.js';
import { decodeSpanState } from '../../../src/traces/span-state.js';
import { decodeTracesRequest } from '../../../src/devkit/receiver/decode-traces.js';
import { createRequestBuilder, joinBody } from '../../../src/wire/otlp-request.js';
import { silentLogger } from '../../../src/util/logger.js';
import { PAGE_LOAD, SESSION, envelopes, mapped } from '../traces/script.js';

const rs = { resource: {}, scope: { name: 't', version: '1' } };

/** A stored state with the scripted page still open and nothing owed. */
function storedState(): string {
  // Acknowledged at once: the state owes none of the spans finished before it.
  const sink = {
    offer: (spans: readonly Buffer[], owner?: { settled(s: Buffer): void }) => spans.forEach((b) => owner?.settled(b)),
  };
  const tap = spanTapFactory(sink, { captureEveryMs: 0 })(SESSION);
  for (const env of envelopes(PAGE_LOAD)) tap.observe(env, mapped(env));
  return tap.checkpoint()!();
}

function idleSession() {
  const offered: Buffer[] = [];
  const appends: Array<{ seq: number; record: boolean; state: string | undefined }> = [];
  const client = {
    invalidateKey() {},
    openStream: () => new Promise(() => undefined),
  } as unknown as UpstreamClient;
  const p = new SessionPipeline(
    {
      spec: { id: SESSION, attributes: {} },
      source: 'api',
      lifecycle: 'active',
      checkpoint: 42,
      epoch: 0,
      spans: storedState(),
    },
    {
      client,
      mapper: createMapper(defaultMappingOptions),
      spool: {
        append: (a: RecordToAppend) =>
          void appends.push({ seq: a.seq, record: a.record !== null, state: a.spans?.()?.() }),
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
      onEnded: async () => undefined,
      spans: spanTapFactory({ offer: (b) => void offered.push(...b) }),
    },
  );
  return { p, offered, appends };
}

const endReasons = (spans: readonly Buffer[]): unknown[] =>
  decodeTracesRequest(joinBody(createRequestBuilder('http/protobuf', rs, 'traces').build(spans)), 'protobuf').map(
    (s) => s.attributes['browser.span.end_reason'],
  );

describe('an idle session stopped with open spans', () => {
  it('stopped to be followed again: they stay open, nothing is written', async () => {
    const s = idleSession();
    await s.p.stop();
    expect(s.offered).toEqual([]);
    expect(s.appends).toEqual([]);
  });

  it('removed for good: closed as session_removed and stored with nothing open at its checkpoint', async () => {
    const s = idleSession();
    await s.p.stop(true);
    expect(endReasons(s.offered)).toEqual(['session_removed']);
    expect(s.appends).toHaveLength(1);
    expect(s.appends[0]).toMatchObject({ seq: 42, record: false });
    const state = decodeSpanState(s.appends[0]!.state);
    expect(state?.open.docs).toEqual([]);
    expect(state?.unsent).toEqual(s.offered);
  });
});
