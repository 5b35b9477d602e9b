// Spans through a kill -9 of the real daemon (docs/traces.md "After a crash"): a session streams
// page loads with traces on, the daemon is killed in the middle of them once its checkpoint carries
// span state, and a new daemon reads on until the session ends. The collector must then hold the
// spans of a run without the crash: the same span ids under the same traces and parents, none
// missing, and a span received twice the same both times.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { ReceivedSpan } from '../../../src/devkit/receiver/decode-traces.js';
import { exited, harness, sleep, spawnDaemon, until, type Harness } from '../../helpers/harness.js';

const ID = 'spans-k9';
const EVENTS = 1500;
const CHUNK = 30;

const harnesses: Harness[] = [];
afterEach(async () => {
  for (const h of harnesses.splice(0)) await h.close();
});

/** The stored span state of the session, as a killed daemon left it (undefined before the first write). */
function storedSpanState(stateDir: string): string | undefined {
  const file = join(stateDir, 'bridge.db');
  if (!existsSync(file)) return undefined;
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'span_states'").get();
    if (table === undefined) return undefined;
    const row = db.prepare('SELECT state AS s FROM span_states WHERE session_id = ?').get(ID) as
      { s: Buffer | string } | undefined;
    // Stored compressed (store/sqlite-span-states.ts).
    return row === undefined ? undefined : typeof row.s === 'string' ? row.s : inflateRawSync(row.s).toString('utf8');
  } finally {
    db.close();
  }
}

const structure = (s: ReceivedSpan): string => `${s.traceId}/${s.spanId}/${s.parentSpanId ?? '-'}`;
/**
 * What a span says apart from when: the two runs stream the same events at other instants. A page
 * open at the kill and not restored would lose what its events before the checkpoint said (its
 * url, frame, events), and differ here.
 */
const shape = (s: ReceivedSpan): string =>
  JSON.stringify({ ...s, resource: undefined }, (k, v: unknown) =>
    k.endsWith('TimeUnixNano') ? undefined : typeof v === 'bigint' ? v.toString() : v,
  );
/**
 * The span itself, for comparing two copies: not the resource, which names the process that sent it
 * (`service.instance.id`), as it does for records.
 */
const content = ({ resource: _process, ...span }: ReceivedSpan): string =>
  JSON.stringify(span, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));

/** A span open when the daemon was killed, as the stored state had it. */
interface OpenAtKill {
  spanId: string;
  startMicros: number;
}

/**
 * Streams EVENTS events of one session with traces on; with `stop`, the first daemon gets that
 * signal mid-stream (SIGKILL: a crash; SIGTERM: a clean shutdown) and a second one reads on.
 */
async function run(stop?: 'SIGKILL' | 'SIGTERM'): Promise<{ spans: ReceivedSpan[]; openAtKill: OpenAtKill[] }> {
  const h = await harness({ bufferSize: 100_000 });
  harnesses.push(h);
  const env = h.env({ BRIDGE_SESSIONS: ID, BRIDGE_CONFIG: '', BRIDGE_TRACES: 'true' });
  // emit() draws every event from the session's seeded generator, whatever the timing: both runs
  // stream the same events (produce() reuses recent events' data, as timing falls).
  const session = h.sim.createSession(ID);
  const feeding = (async () => {
    for (let n = 0; n < EVENTS; n += CHUNK) {
      session.emit(CHUNK);
      await sleep(30);
    }
  })();
  // Distinct records: the daemon after a stop sends again what was delivered after the last
  // checkpoint, and with those copies counted the session ended while the last daemon was still
  // reading it (its tail then came by the 404 and the archive, not as the test means).
  const delivered = () =>
    new Set(
      h.receiver.records
        .filter((r) => r.attributes['browser.session.id'] === ID)
        .map((r) => r.attributes['log.record.uid']),
    ).size;
  let openAtKill: OpenAtKill[] = [];
  if (stop) {
    const first = spawnDaemon(env);
    // Mid-stream, and only once a checkpoint carries span state: a kill before that is a plain restart.
    await until(
      () => storedSpanState(h.stateDir) !== undefined && h.receiver.spans.length > 0,
      'a checkpoint written with span state',
      30_000,
    );
    await sleep(Math.floor(Math.random() * 300));
    first.kill(stop);
    expect(await exited(first), first.output()).toBe(stop === 'SIGKILL' ? null : 0);
    const state = JSON.parse(storedSpanState(h.stateDir)!) as { open: { docs: OpenAtKill[]; requests: OpenAtKill[] } };
    openAtKill = [...state.open.docs, ...state.open.requests];
  }
  const last = spawnDaemon(env, ['run', '--until-ended']);
  await feeding;
  await until(() => delivered() >= EVENTS, 'the last daemon to catch up', 60_000);
  session.end();
  expect(await exited(last), last.output()).toBe(0);
  return { spans: [...h.receiver.spans], openAtKill };
}

let reference: ReturnType<typeof run> | undefined;

describe('spans through a stop in the middle of navigations', () => {
  for (const [signal, what] of [
    ['SIGKILL', 'a daemon killed'],
    ['SIGTERM', 'a daemon shut down'],
  ] as const)
    it(`${what} in the middle of navigations leaves exactly the spans of a run without the stop`, async () => {
      reference ??= run();
      const { spans: expected } = await reference;
      const crashed = await run(signal);
      expect(expected.length).toBeGreaterThan(10);
      // Pages were open at the stop: the next daemon completed them from where they began, not
      // from the first event it read after the checkpoint.
      expect(crashed.openAtKill.length).toBeGreaterThan(0);
      for (const open of crashed.openAtKill) {
        const done = crashed.spans.filter((s) => s.spanId === open.spanId);
        expect(done.length).toBeGreaterThan(0);
        for (const s of done) expect(s.startTimeUnixNano).toBe(BigInt(open.startMicros) * 1000n);
      }
      expect(new Set(crashed.spans.map(structure))).toEqual(new Set(expected.map(structure)));
      const shapes = (spans: ReceivedSpan[]) => new Map(spans.map((s) => [s.spanId, shape(s)]));
      expect(shapes(crashed.spans)).toEqual(shapes(expected));
      // A span received twice (acknowledged after the last checkpoint write, or finished after it and
      // built again from the replayed events) is the same span both times.
      const byId = new Map<string, string>();
      for (const s of crashed.spans) {
        const seen = byId.get(s.spanId);
        if (seen !== undefined) expect(content(s)).toBe(seen);
        byId.set(s.spanId, content(s));
      }
    }, 180_000);
});
