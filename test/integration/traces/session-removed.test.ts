// A session removed for good (DELETE /v1/sessions/{id}, a reload without it) is never read again:
// its open spans are flushed at once with their marker, and the stored state that would reopen them
// is cleared (docs/traces.md "After a crash, a stop or a removal").
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, harness, sleep, until, type Harness } from '../../helpers/harness.js';

let h: Harness | undefined;
afterEach(async () => h?.close());

describe('a session removed with open spans', () => {
  for (const workers of [0, 1])
    it(`flushes them marked session_removed and keeps no span state for it (${workers ? 'in a worker' : 'main thread'})`, async () => {
      h = await harness();
      const session = h.sim.createSession('rm1');
      session.emit(300);
      const bridge = await h.startBridge(FAST, {
        BRIDGE_SESSIONS: 'rm1',
        BRIDGE_TRACES: 'true',
        BRIDGE_WORKERS: String(workers),
      });
      expect(bridge.ingest?.size ?? 0).toBe(workers);
      const receiver = h.receiver;
      await until(() => receiver.records.length >= 300, 'the session read');
      expect(await bridge.supervisor.remove('rm1')).toBe(true);
      await until(
        () => receiver.spans.some((s) => s.attributes['browser.span.end_reason'] === 'session_removed'),
        'the open spans flushed',
      );
      // Removed, not ended: nothing is marked as a session end (spans finished before the removal may
      // still arrive after it, with their own ends).
      expect(receiver.spans.filter((s) => s.attributes['browser.span.end_reason'] === 'session_end')).toEqual([]);
      // The removal is recorded once its records are safe; from then on no span state is stored for it.
      let row;
      for (let i = 0; i < 500 && row?.lifecycle !== 'removed'; i++) {
        row = (await bridge.store.sessions()).find((r) => r.spec.id === 'rm1');
        if (row?.lifecycle !== 'removed') await sleep(20);
      }
      expect(row).toMatchObject({ lifecycle: 'removed' });
      expect(row?.spans).toBeUndefined();
      await bridge.shutdown();
    });
});
