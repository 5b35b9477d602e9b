// The service's archive misbehaving while its stream is fine: a loopback front passes every request
// to the simulator as it is, except the archive's pages, which it answers with garbage, an endless
// cursor, a silence or a trickle. A gap the archive cannot fill must become a gap record that says
// why, and the session must go on delivering what the stream brings: never wedged, never silent.
// With `upstream.archive_retry: 0` the first failed read records the gap; by default the gap is
// owed and the session waits while the archive is read again, for a bounded time (the last test).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, harness, until, type Harness } from '../../helpers/harness.js';
import { forward } from '../../helpers/forward.js';

let h: Harness | undefined;
let front: Server | undefined;
let timers: NodeJS.Timeout[] = [];
afterEach(async () => {
  for (const t of timers) clearInterval(t);
  timers = [];
  await h?.close();
  h = undefined;
  front?.closeAllConnections();
  await new Promise<void>((r) => (front ? front.close(() => r()) : r()));
  front = undefined;
});

type ArchiveAnswer = (req: IncomingMessage, res: ServerResponse, n: number) => void;

/** A front for the simulator whose archive pages (GET …/telemetry/events) `archive` answers. */
async function startFront(target: string, archive: ArchiveAnswer): Promise<{ url: string; archiveRequests(): number }> {
  const to = new URL(target);
  let n = 0;
  front = createServer((req, res) => {
    if (req.url?.includes('/telemetry/events')) return archive(req, res, n++);
    forward(req, res, to);
  });
  await new Promise<void>((r) => front!.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(front.address() as AddressInfo).port}`, archiveRequests: () => n };
}

const ARCHIVE_TESTS: Array<[string, ArchiveAnswer]> = [
  [
    'an HTML page with 200',
    (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><body>maintenance</body></html>');
    },
  ],
  [
    'a list of things that are not envelopes, with a cursor that never ends',
    (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'x-has-more': 'true', 'x-next-offset': '100' });
      res.end(JSON.stringify(Array.from({ length: 100 }, (_, i) => ({ seq: 'x', i }))));
    },
  ],
  [
    'a head and then silence',
    (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('[');
    },
  ],
  ['no answer at all', () => undefined],
  [
    'a body that trickles a byte at a time, never ending',
    (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('[');
      timers.push(setInterval(() => res.write(' '), 100));
    },
  ],
];

describe('an archive that misbehaves', () => {
  it.each(ARCHIVE_TESTS)(
    '%s: the malformed frame becomes a gap record and the stream goes on',
    async (_name, archive) => {
      h = await harness();
      const f = await startFront(h.sim.url, archive);
      const s = h.sim.createSession('arch');
      s.emit(10);
      const bad = s.injectMalformed('json');
      s.emit(10);
      const bridge = await h.startBridge(
        { ...FAST, upstream: { ...(FAST.upstream as object), connect_timeout: '500ms', archive_retry: '0s' } },
        { BRIDGE_SESSIONS: 'arch', BROWSER_API_URL: f.url },
      );
      await until(() => f.archiveRequests() > 0, 'a repair from the archive');
      // Live events after the repair was tried: the session is not held by the archive.
      s.emit(10);
      await until(() => h!.receiver.records.length >= 31, '30 events and a gap record', 60_000);
      s.end();
      await bridge.supervisor.untilAllEnded();
      const gapsOf = h.receiver.records
        .filter(
          (r) =>
            r.eventName === 'browser.telemetry_gap' && r.attributes['browser.telemetry.gap.reason'] !== 'tail_unknown',
        )
        .map((r) => [
          r.attributes['browser.telemetry.gap.first_seq'],
          r.attributes['browser.telemetry.gap.last_seq'],
          r.attributes['browser.telemetry.gap.reason'],
        ]);
      expect(gapsOf).toEqual([[bad, bad, 'malformed']]);
      expect(h.tally(['arch'])[0]).toMatchObject({ unique: 30, missing: 0 });
    },
    90_000,
  );

  it('an archive that never answers, owed for 2 s: the session waits, reads again, then records the gap and goes on', async () => {
    const hh = await harness();
    h = hh;
    const f = await startFront(hh.sim.url, () => undefined);
    const s = hh.sim.createSession('owe');
    s.emit(10);
    const bad = s.injectMalformed('json');
    s.emit(10);
    const bridge = await hh.startBridge(
      { ...FAST, upstream: { ...(FAST.upstream as object), connect_timeout: '300ms', archive_retry: '2s' } },
      { BRIDGE_SESSIONS: 'owe', BROWSER_API_URL: f.url },
    );
    // Three tries of the first read, then more: the gap was owed and read again.
    await until(() => f.archiveRequests() > 3, 'the archive read again', 30_000);
    s.emit(10);
    await until(() => hh.receiver.records.length >= 31, '30 events and a gap record', 60_000);
    s.end();
    await bridge.supervisor.untilAllEnded();
    const gapsOf = hh.receiver.records
      .filter(
        (r) =>
          r.eventName === 'browser.telemetry_gap' && r.attributes['browser.telemetry.gap.reason'] !== 'tail_unknown',
      )
      .map((r) => r.attributes['browser.telemetry.gap.first_seq']);
    expect(gapsOf).toEqual([bad]);
    expect(hh.tally(['owe'])[0]).toMatchObject({ unique: 30, missing: 0 });
  }, 90_000);
});
