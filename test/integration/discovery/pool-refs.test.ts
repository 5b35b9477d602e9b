// Pools the service's session list names that no request can ask for (`..`, `/`, `?`, control
// characters, over 256 characters), against the simulator over real sockets. Before, discovery
// handed them to the pool resolver, whose client refused the path and which retried the lookup for
// ever as a "network error". Now the list's parser refuses them where they enter: the session is
// followed without pool attributes, its status says why, the warning is logged once, and the
// sessions beside it are untouched. A listed session whose own id cannot be requested is never
// followed, and said once too (it was skipped without a word).
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { startBridge, type Bridge } from '../../../src/daemon/bridge.js';
import { makePool } from '../../../src/devkit/simulator/index.js';
import { FAST, harness, sleep, until, type Harness } from '../../helpers/harness.js';

let h: Harness | undefined;
let b: Bridge | undefined;
afterEach(async () => {
  await b?.shutdown(Date.now());
  await h?.close();
  b = h = undefined;
});

const DISCOVER = { BRIDGE_DISCOVER: 'true', BRIDGE_DISCOVER_TAGS: 'team=a', BRIDGE_DISCOVER_INTERVAL: '200ms' };
const LONG = 'p'.repeat(300);

describe('a pool reference from the session list that cannot be requested', () => {
  it('is refused once as that session’s error, never looked up, and the other sessions go on', async () => {
    h = await harness();
    h.sim.addPool(makePool({ id: 'pool_ok', name: 'scrapers', region: 'eu-west' }));
    h.sim.addPool(makePool({ id: '..', name: '..' }));
    h.sim.addPool(makePool({ id: 'a/b', name: 'x?y' }));
    h.sim.addPool(makePool({ id: '\u001b[31mred', name: LONG }));
    const tags = { team: 'a' };
    h.sim.createSession('good', { pool: 'scrapers', tags });
    h.sim.createSession('dots', { pool: '..', tags });
    h.sim.createSession('slash', { pool: 'a/b', tags });
    h.sim.createSession('ctl', { pool: LONG, tags });
    // Sessions whose own id no request can carry: never followed, said once each.
    h.sim.createSession('bad?id', { tags });
    h.sim.createSession(`s${'x'.repeat(199)}`, { tags });

    const lines: Array<Record<string, unknown>> = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, cb) {
        for (const l of chunk.toString().split('\n').filter(Boolean))
          lines.push(JSON.parse(l) as Record<string, unknown>);
        cb();
      },
    });
    b = await startBridge(h.config(FAST, DISCOVER), pino({ level: 'info' }, sink));
    const ids = ['good', 'dots', 'slash', 'ctl'];
    await until(() => ids.every((id) => b!.supervisor.session(id) !== undefined), 'all four sessions followed');

    await until(() => b!.pools.poolStatus().some((p) => p.state === 'resolved'), 'the good pool resolved');
    // Every session is read and delivered, the refused ones included.
    for (const id of ids) h.sim.session(id)!.emit(10);
    const of = (id: string) => h!.receiver.records.filter((r) => r.attributes['browser.session.id'] === id);
    await until(() => ids.every((id) => of(id).length >= 10), 'records of all four sessions');
    expect(of('good').every((r) => r.attributes['browser.pool.id'] === 'pool_ok')).toBe(true);
    for (const id of ['dots', 'slash', 'ctl'])
      expect(of(id).some((r) => 'browser.pool.id' in r.attributes)).toBe(false);

    // Several more polls list the same sessions: still nothing looked up, still said once.
    await sleep(1000);
    await until(() => b!.pools.poolStatus().every((p) => p.state !== 'pending'), 'the pool lookup');
    expect(b.pools.poolStatus()).toMatchObject([{ ref: 'pool_ok', state: 'resolved' }]);
    expect(b.pools.poolStatus()).toHaveLength(1);

    const error = (id: string): string | undefined => b!.supervisor.status().find((s) => s.id === id)?.lastError;
    expect(error('good')).toBeUndefined();
    expect(error('dots')).toBe(
      'pool id ".." cannot be requested: it is dots only, which a URL reads as a path step; pool name ".." cannot be requested: it is dots only, which a URL reads as a path step; its records go without pool attributes',
    );
    expect(error('slash')).toBe(
      'pool id "a/b" cannot be requested: it contains "/"; pool name "x?y" cannot be requested: it contains "?"; its records go without pool attributes',
    );
    // Printable and cut: the escape character is not passed on, the long name not written whole.
    expect(error('ctl')).toBe(
      `pool id "\ufffd[31mred" cannot be requested: it contains a control character (U+001B); pool name "${'p'.repeat(64)}… (300 characters)" cannot be requested: it is longer than 256 characters (300); its records go without pool attributes`,
    );

    const warned = lines.filter((l) => String(l.msg).startsWith('discovered session'));
    expect(warned.map((l) => l.session).sort()).toEqual(['ctl', 'dots', 'slash']);
    expect(warned.every((l) => l.level === 40)).toBe(true);
    expect(lines.some((l) => String(l.msg).startsWith('pool lookup failed'))).toBe(false);
    expect(b.metrics.poolRefsRefused.get()).toBe(3);

    const refusedIds = lines.filter((l) => String(l.msg).startsWith('discovery: session id'));
    expect(refusedIds.map((l) => l.msg).sort()).toEqual([
      'discovery: session id "bad?id" cannot be requested: it contains "?" (ids are letters, digits, ".", "_", "~" and "-"); not followed',
      `discovery: session id "s${'x'.repeat(63)}… (200 characters)" cannot be requested: it is longer than 128 characters (200); not followed`,
    ]);
    expect(b.metrics.listedSessionsRefused.get()).toBe(2);
    expect(b.supervisor.followedCount).toBe(4);
  });
});
