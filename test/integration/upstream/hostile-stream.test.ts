// A stream whose frames lie: seqs and ids far beyond what the session produced, an id that is not
// a number, a frame whose data is JSON but no envelope. A loopback server written here plays the
// service (stream once, then 404: the session ended; no archive). What the bridge must keep: every
// good event delivered, and no gap record that claims more missing events than the stream could
// have skipped.
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

const envelope = (seq: number | string): string =>
  JSON.stringify({
    seq,
    event: {
      ts: Date.now() * 1000,
      type: 'api_call',
      category: 'control',
      source: { kind: 'kernel_api', metadata: { telemetry_session_id: 'tsid-1' } },
      data: {},
    },
  });
const frame = (id: string, data: string): string => `id: ${id}\ndata: ${data}\n\n`;

/** Serves `body` as the one stream of session `hs`; every later request is 404 (ended), the archive too. */
async function serve(body: string): Promise<string> {
  service = createServer(oneStream(body));
  await new Promise<void>((r) => service!.listen(0, '127.0.0.1', () => r()));
  return `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
}

async function run(body: string) {
  const url = await serve(body);
  const bridge = await h!.startBridge(
    { ...FAST, upstream: { ...(FAST.upstream as object), archive: 'off' } },
    { BRIDGE_SESSIONS: 'hs', BROWSER_API_URL: url },
  );
  await bridge.supervisor.untilAllEnded();
  await bridge.shutdown(Date.now() + 5000);
  const events = h!.receiver.records
    .filter((r) => r.eventName !== 'browser.telemetry_gap')
    .map((r) => Number(r.attributes['browser.telemetry.seq']));
  const gaps = h!.receiver.records
    .filter((r) => r.eventName === 'browser.telemetry_gap')
    .map((r) => ({
      first: Number(r.attributes['browser.telemetry.gap.first_seq']),
      last: r.attributes['browser.telemetry.gap.last_seq'],
      reason: r.attributes['browser.telemetry.gap.reason'],
    }));
  return { events, gaps, status: bridge.supervisor.status()[0]! };
}

describe('a stream whose frames lie', () => {
  it('an undecodable frame whose id is far beyond the next seq: the later events are delivered, and no gap claims its id', async () => {
    h = await harness();
    const { events, gaps, status } = await run(
      frame('1', envelope(1)) +
        frame('2', envelope(2)) +
        frame('9007199254740000', '{not json') +
        frame('3', envelope(3)) +
        frame('4', envelope(4)),
    );
    expect(events).toEqual([1, 2, 3, 4]);
    // The frame is counted as malformed; its id, behind which seq 3 and 4 came, placed nothing.
    expect(status.malformedFrames).toBe(1);
    expect(gaps.filter((g) => g.reason !== 'tail_unknown')).toEqual([]);
    expect(status.missingEvents).toBeLessThan(10);
  });

  it('a good envelope whose seq jumps to 9007199254740000: malformed, no gap up to it and no restart after it', async () => {
    h = await harness();
    const { events, gaps, status } = await run(
      frame('1', envelope(1)) +
        frame('2', envelope(2)) +
        frame('9007199254740000', envelope(9007199254740000)) +
        frame('3', envelope(3)) +
        frame('4', envelope(4)),
    );
    expect(events).toEqual([1, 2, 3, 4]);
    expect(status.malformedFrames).toBe(1);
    expect(gaps.filter((g) => g.reason !== 'tail_unknown')).toEqual([]);
  });

  it('seq and id of 2^53 + 1, and an id that is not a number: malformed frames, every good event delivered', async () => {
    h = await harness();
    const { events, status } = await run(
      frame('1', envelope(1)) +
        // A number JSON cannot hold exactly (it parses as 2^53), and the same as a string.
        frame('9007199254740993', envelope(1).replace('"seq":1,', '"seq":9007199254740993,')) +
        frame('9007199254740993', envelope('9007199254740993')) +
        frame('2', envelope(2)) +
        frame('abc', envelope(3)) +
        frame('3', JSON.stringify({ hello: 'world' })) +
        frame('4', envelope(4)),
    );
    expect(events).toEqual([1, 2, 4]);
    expect(status.malformedFrames).toBe(4);
  });

  it.each([5_000, 100_000])(
    'an event whose data nests %i levels deep: delivered with the deep part cut, and the events after it too',
    async (depth) => {
      h = await harness();
      const deep = '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
      const { events } = await run(
        frame('1', envelope(1)) +
          frame('2', envelope(2).replace('"data":{}', `"data":{"deep":${deep}}`)) +
          frame('3', envelope(3)),
      );
      // The receiver decodes with protobuf's default recursion limit (100 messages), as collectors
      // built on protobuf's C++ or Java runtime do: a record nested deeper was refused and dropped.
      expect(events).toEqual([1, 2, 3]);
      expect(h.receiver.requests.every((r) => r.status === 200)).toBe(true);
    },
  );
});
