// The configured sessions asked about once at start: a name is said with the id to configure, a
// session exporting its telemetry itself is said (same collector or not), a failed answer is a debug
// line only, and no more than a few requests are out at once.
import { describe, expect, it } from 'vitest';
import { probeConfigured } from '../../../src/daemon/configured-probe.js';
import type { GetResult } from '../../../src/upstream/client.js';
import type { Fact } from '../../../src/vocabulary/facts.js';

const COLLECTOR = 'http://collector.internal:4318';

const answers: Record<string, GetResult<unknown>> = {
  'sess-plain': { kind: 'ok', value: { session_id: 'sess-plain' } },
  checkout: { kind: 'ok', value: { session_id: 'sess-9f2', name: 'checkout' } },
  'sess-same': {
    kind: 'ok',
    value: { session_id: 'sess-same', telemetry: { export: { otlp: { enabled: true, destination: COLLECTOR } } } },
  },
  'sess-other': {
    kind: 'ok',
    value: { session_id: 'sess-other', telemetry: { export: { otlp: { enabled: true, destination: 'prod' } } } },
  },
  'sess-off': {
    kind: 'ok',
    value: { session_id: 'sess-off', telemetry: { export: { otlp: { enabled: false, destination: 'prod' } } } },
  },
  'sess-gone': { kind: 'error', status: 404, error: { code: 'not_found', message: 'no such session' } },
};

async function probe(ids: string[], getSession?: (id: string) => Promise<GetResult<unknown>>) {
  const facts: Fact[] = [];
  const debug: string[] = [];
  await probeConfigured({
    client: { getSession: getSession ?? ((id) => Promise.resolve(answers[id]!)) },
    sessions: ids.map((id) => ({ id, attributes: {} })),
    collectorUrl: COLLECTOR,
    emit: (f) => facts.push(f),
    debug: (d) => debug.push(String(d.session)),
  });
  return { facts, debug };
}

describe('probeConfigured', () => {
  it.each<[string, Fact[]]>([
    ['sess-plain', []],
    ['checkout', [{ f: 'session_is_name', session: 'checkout', id: 'sess-9f2' }]],
    ['sess-same', [{ f: 'session_exports_otlp', session: 'sess-same', destination: COLLECTOR, sameCollector: true }]],
    ['sess-other', [{ f: 'session_exports_otlp', session: 'sess-other', destination: 'prod', sameCollector: false }]],
    ['sess-off', []],
    ['sess-gone', []],
  ])('%s', async (id, facts) => {
    expect((await probe([id])).facts).toEqual(facts);
  });

  it('a refused or failed probe is a debug line, and the others are still asked', async () => {
    const { facts, debug } = await probe(['sess-gone', 'boom', 'checkout'], (id) =>
      id === 'boom' ? Promise.reject(new Error('socket hang up')) : Promise.resolve(answers[id]!),
    );
    expect(debug).toEqual(['sess-gone', 'boom']);
    expect(facts).toEqual([{ f: 'session_is_name', session: 'checkout', id: 'sess-9f2' }]);
  });

  it('asks a few at a time, every one once', async () => {
    let out = 0;
    let most = 0;
    const asked: string[] = [];
    await probe(
      Array.from({ length: 30 }, (_, i) => `sess-${i}`),
      async (id) => {
        asked.push(id);
        most = Math.max(most, ++out);
        await new Promise((r) => setImmediate(r));
        out--;
        return { kind: 'ok', value: { session_id: id } };
      },
    );
    expect(most).toBe(4);
    expect(new Set(asked).size).toBe(30);
  });
});
