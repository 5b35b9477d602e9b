// `start: latest` takes the stream's current end as a session's first position, with no record
// behind it. That position must survive a kill -9 like any checkpoint: a daemon that loses it takes
// a new baseline when it starts again, past the events in between, and those are lost without a gap
// record saying so. The checkpoint writer batches the positions acknowledgements move (up to a
// minute), but writes a first position at its next commit (store/ledger.ts `firsts`). A run's first
// write goes at once, so a session listed from the start may ride on it; the sessions a PUT or a
// reload adds later are the ones that need `firsts` (without it, those two cases fail: lb gets nothing).
import type { ChildProcess } from 'node:child_process';
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../helpers/free-port.js';
import { exited, harness, sleep, spawnDaemon, until, type Harness } from '../../helpers/harness.js';

let h: Harness | undefined;
let daemon: ChildProcess | undefined;
afterEach(async () => {
  if (daemon && daemon.exitCode === null && daemon.signalCode === null) {
    daemon.kill('SIGKILL');
    await exited(daemon);
  }
  daemon = undefined;
  await h?.close();
  h = undefined;
});

const TOKEN = 'baseline-test-token';

/** The seqs of a session's event records the receiver holds, gap records left out, in order. */
function seqsOf(id: string): number[] {
  return h!.receiver.records
    .filter((r) => r.attributes['browser.session.id'] === id && r.eventName !== 'browser.telemetry_gap')
    .map((r) => Number(r.attributes['browser.telemetry.seq']))
    .sort((a, b) => a - b);
}

async function control(url: string, method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
}

async function streaming(url: string, id: string): Promise<void> {
  const end = Date.now() + 20_000;
  for (;;) {
    const res = await control(url, 'GET', `/v1/sessions/${id}`).catch(() => undefined);
    if (res?.status === 200 && ((await res.json()) as { state?: string }).state === 'streaming') return;
    if (Date.now() > end) throw new Error(`timed out waiting for ${id} to stream`);
    await sleep(50);
  }
}

describe('a start: latest baseline and kill -9', () => {
  it.each<[string, 'config' | 'put' | 'reload']>([
    ['a session the configuration lists, killed before its first event', 'config'],
    ['a session PUT while another streams, killed before its first event', 'put'],
    ['a session a reload adds while another streams, killed before its first event', 'reload'],
  ])('%s: the events after the baseline are delivered by the next daemon', async (_name, how) => {
    h = await harness();
    // Another session streams throughout, so the run's first checkpoint write is behind the
    // baseline's (a run's first write goes at once).
    const busy = h.sim.createSession('busy');
    busy.produce(20);
    const s = h.sim.createSession('lb');
    s.emit(10); // history: `latest` skips it
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    // The reload case lists its sessions in a file (a reload reads the file, not the environment).
    const file = join(h.stateDir, 'bridge.yaml');
    const save = (sessions: string[]): void => {
      writeFileSync(`${file}.tmp`, `sessions: [${sessions.join(', ')}]\n`);
      renameSync(`${file}.tmp`, file);
    };
    if (how === 'reload') save(['busy']);
    const env = h.env({
      ...(how === 'reload' ? {} : { BRIDGE_SESSIONS: how === 'config' ? 'busy,lb' : 'busy' }),
      BRIDGE_START: 'latest',
      BRIDGE_LISTEN: `127.0.0.1:${port}`,
      BRIDGE_CONTROL_TOKEN: TOKEN,
      BRIDGE_CONFIG: how === 'reload' ? file : '',
    });
    daemon = spawnDaemon(env);
    await streaming(url, 'busy');
    await until(() => seqsOf('busy').length > 0, 'the busy session delivered');
    if (how === 'put') {
      // The run's first write is done by now: the busy session's first acknowledgement.
      await sleep(1000);
      const res = await control(url, 'PUT', '/v1/sessions/lb', { start: 'latest' });
      expect(res.status).toBe(201);
    }
    if (how === 'reload') {
      await sleep(1000); // as for the PUT: the run's first write is done
      save(['busy', 'lb']);
      daemon.kill('SIGHUP');
    }
    await streaming(url, 'lb');
    // A few commit intervals (200 ms): the baseline's write is due at the next one.
    await sleep(1000);
    daemon.kill('SIGKILL');
    expect(await exited(daemon)).toBe(null);

    s.emit(5); // after the baseline, while no bridge runs: seqs 11-15
    daemon = spawnDaemon(env);
    await until(() => seqsOf('lb').length >= 5, 'the 5 events emitted while the daemon was down', 20_000).catch(
      (err: unknown) => {
        throw new Error(
          `${String(err)}; lb delivered ${JSON.stringify(seqsOf('lb'))}\n${(daemon as ReturnType<typeof spawnDaemon>).output()}`,
        );
      },
    );
    expect(seqsOf('lb')).toEqual([11, 12, 13, 14, 15]);
    busy.produce(0);
  });
});
