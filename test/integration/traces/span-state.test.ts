// The span state stored with a checkpoint carries the spans the collector has not acknowledged, and
// only those (docs/traces.md "After a crash"): once every span is acknowledged, the next checkpoint
// written carries none, whether the session is read on the main thread or in a worker.
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, harness, until, type Harness } from '../../helpers/harness.js';

let h: Harness | undefined;
afterEach(async () => h?.close());

describe('span state with the checkpoint', () => {
  for (const workers of [0, 1])
    it(`carries no span the collector acknowledged (${workers ? 'in a worker' : 'main thread'})`, async () => {
      h = await harness();
      const receiver = h.receiver;
      // Console is opted in: a session's default capture leaves it out, and emit() with a type the
      // session does not capture emits nothing, so the checkpoint would never move again.
      const session = h.sim.createSession('st1', { categories: ['console'] });
      session.emit(400);
      // The state at every batch (traces.state_interval 0): this pins what a state carries, not how
      // often it is captured (span-tap-crash.property.test.ts does).
      const bridge = await h.startBridge(
        { ...FAST, traces: { state_interval: '0s' } },
        {
          BRIDGE_SESSIONS: 'st1',
          BRIDGE_TRACES: 'true',
          BRIDGE_WORKERS: String(workers),
        },
      );
      await until(() => receiver.records.length >= 400 && receiver.spans.length > 0, 'the session read');
      // One console line at a time (it finishes no span) moves the checkpoint, and the state is
      // written with it: once the collector acknowledged every span, that state carries none.
      let unsent = -1;
      const delivered = (seq: number) => receiver.records.some((r) => r.attributes['browser.telemetry.seq'] === seq);
      // Spans go out on their own requests: give them time (a loaded machine answers late), not a count
      // of tries (a try may take no time at all).
      const deadline = Date.now() + 15_000;
      while (unsent !== 0 && Date.now() < deadline) {
        if (unsent !== -1) await new Promise((r) => setTimeout(r, 50));
        session.emit(1, { types: ['console_log'] });
        const seq = session.lastSeq;
        expect(seq).toBeGreaterThan(400);
        await until(() => delivered(seq), `event ${seq} delivered`);
        await bridge.spool.flush();
        const row = (await bridge.store.sessions()).find((r) => r.spec.id === 'st1');
        // No state yet until a checkpoint that carries one is written.
        unsent = row?.spans === undefined ? -2 : (JSON.parse(row.spans) as { unsent: string[] }).unsent.length;
      }
      expect(unsent).toBe(0);
      await bridge.shutdown();
    });
});
