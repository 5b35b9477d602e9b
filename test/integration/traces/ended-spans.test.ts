// Spans of a session that ended and that the traces endpoint had not acknowledged when the bridge
// stopped (here: a collector without a traces pipeline, so none is): the stopped bridge keeps them
// in the session's stored span state, and the next start, which does not follow the ended session
// again, must still send them (docs/traces.md "After a crash, a stop or a removal"). Once they are
// acknowledged the state is dropped, so a third start sends nothing again.
import { afterEach, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../../../src/devkit/receiver/server.js';
import { FAST, harness, until, type Harness } from '../../helpers/harness.js';

let h: Harness | undefined;
let noTraces: Receiver | undefined;
afterEach(async () => {
  await h?.close();
  await noTraces?.close();
});

for (const workers of [0, 1])
  for (const idle of [false, true])
    it(`sends the spans of a session that ended unacknowledged at the next start, then forgets them (${workers ? 'in a worker' : 'main thread'}${idle ? '; it ended idle: its end came after its last checkpoint' : ''})`, async () => {
      h = await harness();
      noTraces = await startReceiver({ traces: false });
      const session = h.sim.createSession('end-spans');
      session.emit(300);
      if (!idle) session.end();
      const tracesTo = (url: string) => ({
        BRIDGE_SESSIONS: 'end-spans',
        BRIDGE_TRACES: 'true',
        BRIDGE_WORKERS: String(workers),
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${url}/v1/traces`,
      });
      const first = await h.startBridge(FAST, tracesTo(noTraces.url));
      await until(() => h!.receiver.records.length >= 300, 'the records delivered');
      if (idle) {
        // Its last batch is committed before the end comes: the spans the end closes are offered after it.
        await first.spool.flush();
        session.end();
      }
      // The end is recorded once its records are safe; the spans wait for a traces pipeline.
      await until(() => first.supervisor.status().some((s) => s.id === 'end-spans' && s.state === 'ended'), 'the end');
      let row;
      for (let i = 0; i < 500 && row?.lifecycle !== 'ended'; i++) {
        row = (await first.store.sessions()).find((r) => r.spec.id === 'end-spans');
        if (row?.lifecycle !== 'ended') await new Promise((r) => setTimeout(r, 20));
      }
      expect(row).toMatchObject({ lifecycle: 'ended' });
      await first.shutdown();
      expect(h.receiver.spans).toEqual([]);

      const second = await h.startBridge(FAST, tracesTo(h.receiver.url));
      await until(
        () => h!.receiver.spans.some((s) => s.attributes['browser.span.end_reason'] === 'session_end'),
        'the ended session spans sent by the next start',
      );
      const sent = h.receiver.spans.length;
      let kept: string | undefined = '';
      for (let i = 0; i < 500 && kept !== undefined; i++) {
        kept = (await second.store.sessions()).find((r) => r.spec.id === 'end-spans')?.spans;
        if (kept !== undefined) await new Promise((r) => setTimeout(r, 20));
      }
      expect(kept).toBeUndefined();
      await second.shutdown();
      const third = await h.startBridge(FAST, tracesTo(h.receiver.url));
      await third.shutdown();
      expect(h.receiver.spans.length).toBe(sent);
    });
