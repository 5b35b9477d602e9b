// One contract suite, run against every Store implementation (today: SQLite on disk and in memory).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../../src/store/sqlite-store.js';
import type { Store } from '../../../src/store/store.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'store-'));
  dirs.push(d);
  return d;
}

const impls: Array<[string, () => { open(): Store }]> = [
  ['sqlite on disk', () => {
    const dir = tmp();
    return { open: () => new SqliteStore(dir) };
  }],
];

const entry = (sessionId: string, seq: number) => {
  const payload = JSON.stringify({ seq, s: 'ü' });
  return { sessionId, seq, tsMicros: 1_700_000_000_000_000 + seq, payload, bytes: Buffer.byteLength(payload) };
};

for (const [name, make] of impls) {
  describe(`Store contract: ${name}`, () => {
    it('stores sessions and keeps their checkpoint across reopen', () => {
      const f = make();
      let s = f.open();
      s.putSession({ id: 'a', attributes: { team: 'x' } }, 'api');
      s.commit([entry('a', 1), entry('a', 2)], [{ sessionId: 'a', checkpoint: 2, epoch: 0 }]);
      s.close();
      s = f.open();
      expect(s.sessions()).toEqual([{ spec: { id: 'a', attributes: { team: 'x' } }, source: 'api', lifecycle: 'active', checkpoint: 2, epoch: 0 }]);
      expect(s.spoolStats().records).toBe(2);
      s.close();
    });

    it('commits records and checkpoints together, and reads in id order after a cursor', () => {
      const s = make().open();
      s.putSession({ id: 'a', attributes: {} }, 'config');
      s.putSession({ id: 'b', attributes: {} }, 'config');
      s.commit([entry('a', 1), entry('b', 1), entry('a', 2)], [{ sessionId: 'a', checkpoint: 2, epoch: 0 }, { sessionId: 'b', checkpoint: 1, epoch: 0 }]);
      const all = s.readBatch(0, 10);
      expect(all.map((r) => `${r.sessionId}:${r.seq}`)).toEqual(['a:1', 'b:1', 'a:2']);
      expect(s.readBatch(all[0]!.id, 1).map((r) => r.seq)).toEqual([1]);
      expect(s.readBatch(all[0]!.id, 1)[0]!.sessionId).toBe('b');
      s.close();
    });

    it('a failed transaction moves neither records nor checkpoints', () => {
      const s = make().open();
      s.putSession({ id: 'a', attributes: {} }, 'config');
      const bad = { ...entry('a', 3), payload: null as unknown as string };
      expect(() => s.commit([entry('a', 2), bad], [{ sessionId: 'a', checkpoint: 3, epoch: 0 }])).toThrow();
      expect(s.spoolStats().records).toBe(0);
      expect(s.spoolBytes()).toBe(0);
      expect(s.sessions()[0]!.checkpoint).toBe(0);
      s.close();
    });

    it('ack deletes and keeps the byte total exact, also for an id acked twice', () => {
      const s = make().open();
      s.putSession({ id: 'a', attributes: {} }, 'config');
      s.commit([entry('a', 1), entry('a', 2)], []);
      const rows = s.readBatch(0, 10);
      const total = rows.reduce((n, r) => n + r.bytes, 0);
      expect(s.spoolBytes()).toBe(total);
      expect(rows[0]!.bytes).toBe(Buffer.byteLength(rows[0]!.payload));
      s.ack([rows[0]!]);
      s.ack([rows[0]!]);
      expect(s.spoolStats()).toMatchObject({ records: 1, bytes: rows[1]!.bytes });
      s.ack([rows[1]!]);
      expect(s.spoolStats()).toEqual({ records: 0, bytes: 0, oldestTsMicros: null });
      s.close();
    });

    it('lifecycle: ended and removed stick, re-adding makes a session active with its checkpoint', () => {
      const s = make().open();
      s.putSession({ id: 'a', attributes: {} }, 'config');
      s.commit([], [{ sessionId: 'a', checkpoint: 9, epoch: 1 }]);
      s.setLifecycle('a', 'removed');
      expect(s.sessions()[0]!.lifecycle).toBe('removed');
      const row = s.putSession({ id: 'a', attributes: { x: 1 } }, 'api');
      expect(row).toMatchObject({ lifecycle: 'active', checkpoint: 9, epoch: 1, source: 'api' });
      s.close();
    });

    it('reports the oldest undelivered event time', () => {
      const s = make().open();
      s.putSession({ id: 'a', attributes: {} }, 'config');
      s.commit([entry('a', 5), entry('a', 6)], []);
      expect(s.spoolStats().oldestTsMicros).toBe(1_700_000_000_000_005);
      s.close();
    });
  });
}

describe('SqliteStore state directory lock', () => {
  it('refuses a second store on the same directory until the first is closed', () => {
    const dir = tmp();
    const first = new SqliteStore(dir);
    expect(() => new SqliteStore(dir)).toThrow(/in use by another bridge process/);
    first.close();
    const second = new SqliteStore(dir);
    second.close();
  });
});
