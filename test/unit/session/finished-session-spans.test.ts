// The spans an ended or removed session still owes, sent from its stored state at the next start
// (or when a session waiting for room is removed): those finished and unacknowledged, and those
// still open, closed exactly as the session's own tap would have closed them at that checkpoint;
// the caller is told when it is done with each row (the shared store's claim is then let go).
import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { sendFinishedSessionSpans } from '../../../src/session/finished-session-spans.js';
import { spanTapFactory, type SpanSink } from '../../../src/session/span-tap.js';
import type { SessionLifecycle, SessionRow } from '../../../src/store/store.js';
import { decodeTracesRequest } from '../../../src/devkit/receiver/decode-traces.js';
import { createRequestBuilder, joinBody } from '../../../src/wire/otlp-request.js';
import { PAGE_LOAD, SESSION, envelopes, mapped } from '../traces/script.js';

const log = pino({ level: 'silent' });
const rs = { resource: {}, scope: { name: 't', version: '1' } };

/** A stored state as a tap writes it: the scripted page still open, its three requests unsent. */
function storedState(): string {
  const tap = spanTapFactory({ offer: () => undefined }, { captureEveryMs: 0 })(SESSION);
  for (const env of envelopes(PAGE_LOAD)) tap.observe(env, mapped(env));
  return tap.checkpoint()!();
}

/** What a tap restored from `stored` offers, then offers when its session ends for `reason`. */
function tapOffers(stored: string, reason: 'session_end' | 'session_removed'): Buffer[] {
  const offered: Buffer[] = [];
  const tap = spanTapFactory({ offer: (b) => offered.push(...b) })(SESSION, stored);
  tap.end(reason);
  return offered;
}

function run(lifecycle: SessionLifecycle, spans: string | undefined) {
  const offered: Buffer[] = [];
  const owners: Array<{ settled(span: Buffer): void }> = [];
  const sink: SpanSink = {
    offer: (b, owner) => {
      offered.push(...b);
      if (owner) owners.push(owner);
    },
  };
  const dropped: string[] = [];
  const done: string[] = [];
  const row: SessionRow = {
    spec: { id: SESSION, attributes: {} },
    source: 'config',
    lifecycle,
    checkpoint: 9,
    epoch: 0,
  };
  if (spans !== undefined) row.spans = spans;
  const n = sendFinishedSessionSpans([row], {
    sink,
    store: { dropSpanState: async (id) => void dropped.push(id) },
    log,
    done: (id) => done.push(id),
  });
  return { n, offered, owners, dropped, done };
}

const endReasons = (spans: readonly Buffer[]): unknown[] =>
  decodeTracesRequest(joinBody(createRequestBuilder('http/protobuf', rs, 'traces').build(spans)), 'protobuf').map(
    (s) => s.attributes['browser.span.end_reason'],
  );

describe('the spans a finished session owes', () => {
  for (const [lifecycle, reason] of [
    ['removed', 'session_removed'],
    ['ended', 'session_end'],
  ] as const)
    it(`${lifecycle}: the unsent spans and the open ones closed as its tap would (${reason}), then the state dropped`, async () => {
      const stored = storedState();
      const { n, offered, owners, dropped, done } = run(lifecycle, stored);
      // Byte for byte what a tap restored from the state and ended there sends.
      expect(offered).toEqual(tapOffers(stored, reason));
      expect(n).toBe(4);
      expect(endReasons(offered)).toEqual([undefined, undefined, undefined, reason]);
      for (const span of offered.slice(0, -1)) owners[0]!.settled(span);
      await Promise.resolve();
      expect(dropped).toEqual([]);
      owners[0]!.settled(offered.at(-1)!);
      await Promise.resolve();
      expect(dropped).toEqual([SESSION]);
      // Done with the row only once its state is dropped (the shared store then stops holding it).
      await new Promise((r) => setImmediate(r));
      expect(done).toEqual([SESSION]);
    });

  it('the same state sends the same bytes again (a stop before they were sent)', () => {
    const stored = storedState();
    expect(run('removed', stored).offered).toEqual(run('removed', stored).offered);
  });

  const nothingOwed = spanTapFactory({ offer: () => undefined }, { captureEveryMs: 0 })(SESSION).checkpoint()!();
  for (const [what, lifecycle, spans, dropped] of [
    ['an active session: its own tap sends them', 'active', 'stored', []],
    ['no state', 'removed', undefined, []],
    ['a state that owes nothing is dropped', 'removed', nothingOwed, [SESSION]],
    ['an unreadable state is dropped', 'removed', '{not json', [SESSION]],
  ] as const)
    it(`offers nothing: ${what}`, async () => {
      const r = run(lifecycle, spans === 'stored' ? storedState() : spans);
      await Promise.resolve();
      expect(r.n).toBe(0);
      expect(r.offered).toEqual([]);
      expect(r.dropped).toEqual(dropped);
      // Done with the row all the same: nothing of it is left to send.
      await new Promise((res) => setImmediate(res));
      expect(r.done).toEqual([SESSION]);
    });
});
