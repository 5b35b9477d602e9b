// Event times in units the service should not send: `ts` is Unix microseconds
// (docs/service-api.md "Envelope"), but a service version, a proxy re-encoding int64 as text, or a
// bug may send seconds, milliseconds, nanoseconds, an RFC 3339 text, or nonsense. A loopback server
// plays the service (one stream, then 404: the session ended; no archive). What the bridge must
// keep: every event delivered as an event (an odd time is no reason to lose one), each at a time
// near now, and every time it did not take as microseconds named on the record with the value sent.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, harness, type Harness } from '../../helpers/harness.js';
import { oneStream } from '../../helpers/one-stream.js';

let h: Harness | undefined;
let service: Server | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  service?.closeAllConnections();
  await new Promise<void>((r) => (service ? service.close(() => r()) : r()));
  service = undefined;
});

const nowMs = Date.now();
/** A whole second an hour ago, written as RFC 3339 text in +01:00 with microseconds (near now, whatever the day). */
const offsetBaseMs = Math.floor(nowMs / 1000) * 1000 - 3_600_000;
const OFFSET_TEXT = `${new Date(offsetBaseMs + 3_600_000).toISOString().slice(0, 19)}.123456+01:00`;
/** seq → the `ts` the frame carries, and how the bridge must read it (undefined: as microseconds). */
const CASES: Array<[unknown, string | undefined]> = [
  [nowMs * 1000, undefined],
  [nowMs, 'milliseconds'],
  [Math.floor(nowMs / 1000), 'seconds'],
  [nowMs / 1000, 'seconds'],
  [nowMs * 1e6, 'nanoseconds'],
  [String(nowMs * 1000), 'microseconds'],
  [`${String(nowMs)}000000`, 'nanoseconds'],
  [new Date(nowMs).toISOString(), 'rfc3339'],
  [OFFSET_TEXT, 'rfc3339'],
  [-5, 'observed_time'],
  [0, 'observed_time'],
  [1e30, 'observed_time'],
  ['NaN', 'observed_time'],
  ['Infinity', 'observed_time'],
  [null, 'observed_time'],
  [{ value: 1 }, 'observed_time'],
  [true, 'observed_time'],
  ['99999-01-01T00:00:00Z', 'observed_time'],
  [253402300800000000, 'observed_time'],
];

const frame = (seq: number, ts: unknown): string =>
  `id: ${seq}\ndata: ${JSON.stringify({
    seq,
    event: {
      ts,
      type: 'api_call',
      category: 'control',
      source: { kind: 'kernel_api', metadata: { telemetry_session_id: 'tsid-1' } },
      data: {},
    },
  })}\n\n`;

describe('event times in unexpected units', () => {
  it('delivers every event at a plausible time, naming how an odd ts was read', async () => {
    service = createServer(oneStream(CASES.map(([ts], i) => frame(i + 1, ts)).join('')));
    await new Promise<void>((r) => service!.listen(0, '127.0.0.1', () => r()));
    const url = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
    h = await harness();
    const bridge = await h.startBridge(
      { ...FAST, upstream: { ...(FAST.upstream as object), archive: 'off' } },
      { BRIDGE_SESSIONS: 'ts1', BROWSER_API_URL: url },
    );
    await bridge.supervisor.untilAllEnded();
    await bridge.shutdown(Date.now() + 5000);

    const records = h.receiver.records;
    expect(records.filter((r) => r.eventName === 'browser.telemetry_gap')).toEqual([]);
    const bySeq = new Map(records.map((r) => [Number(r.attributes['browser.telemetry.seq']), r]));
    expect([...bySeq.keys()].sort((a, b) => a - b)).toEqual(CASES.map((_, i) => i + 1));
    const day = 86_400_000_000_000n;
    const now = BigInt(Date.now()) * 1_000_000n;
    CASES.forEach(([ts, readAs], i) => {
      const r = bySeq.get(i + 1)!;
      expect(r.timeUnixNano, `seq ${i + 1} (ts ${JSON.stringify(ts)})`).toBeGreaterThan(now - day);
      expect(r.timeUnixNano, `seq ${i + 1} (ts ${JSON.stringify(ts)})`).toBeLessThan(now + day);
      expect(r.attributes['browser.event.ts_read_as'], `seq ${i + 1}`).toBe(readAs);
      expect(r.attributes['browser.event.ts_original'], `seq ${i + 1}`).toBe(
        readAs === undefined ? undefined : JSON.stringify(ts),
      );
    });
    // Read as sent where the unit was clear: to the microsecond.
    expect(bySeq.get(2)!.timeUnixNano).toBe(BigInt(nowMs) * 1_000_000n);
    expect(bySeq.get(7)!.timeUnixNano).toBe(BigInt(nowMs) * 1_000_000n);
    expect(bySeq.get(9)!.timeUnixNano).toBe(BigInt(offsetBaseMs + 123) * 1_000_000n + 456_000n);
  });
});
