// Model-based test of the SQLite store's span states (store/sqlite-span-states.ts) against a map of
// session → state: fast-check draws checkpoint writes with and without a state, a finished session's
// state dropped, reopens, and an older bridge (which knows no phases, and never runs beside this one:
// the state lock) writing the file in between. After every step each session reads back the state
// the model holds, and after every open each row sits in its session's capture phase.
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { packSpans } from '../../../src/store/sqlite-span-states.js';
import { openSqliteStore, type SqliteStore } from '../../../src/store/sqlite-store.js';
import { capturePhase } from '../../../src/traces/capture-phase.js';

const IDS = ['a', 'b', 'c', 'd', 'e', 'f'] as const;
const id = fc.constantFrom(...IDS);
const op = fc.oneof(
  fc.record({ kind: fc.constant('write' as const), id, state: fc.string({ maxLength: 40 }) }),
  fc.record({ kind: fc.constant('without' as const), id }),
  fc.record({ kind: fc.constant('finish' as const), id }),
  fc.constant({ kind: 'reopen' as const }),
  fc.record({ kind: fc.constant('older' as const), id, state: fc.string({ maxLength: 40 }) }),
);

/** The older bridge's write of a state, in its own words (no phase column). */
function olderWrite(dir: string, sessionId: string, state: string): void {
  const db = new Database(join(dir, 'bridge.db'));
  db.prepare(
    'INSERT INTO span_states (session_id, state) VALUES (?, ?) ON CONFLICT (session_id) DO UPDATE SET state = excluded.state WHERE state IS NOT excluded.state',
  ).run(sessionId, packSpans(state));
  db.close();
}

function phasesInOrder(dir: string): void {
  const db = new Database(join(dir, 'bridge.db'), { readonly: true });
  const rows = db.prepare('SELECT session_id AS id, phase FROM span_states').all() as Array<{
    id: string;
    phase: number;
  }>;
  db.close();
  for (const r of rows) expect(r.phase).toBe(capturePhase(r.id));
}

it('every session reads back its last state through writes, drops, reopens and an older bridge between runs', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(op, { maxLength: 20 }), async (ops) => {
      const dir = mkdtempSync(join(tmpdir(), 'bridge-span-model-'));
      const model = new Map<string, string>();
      let checkpoint = 0;
      let store: SqliteStore = await openSqliteStore(dir);
      try {
        for (const sessionId of IDS) await store.putSession({ id: sessionId, attributes: {} }, 'config');
        for (const o of ops) {
          if (o.kind === 'write' || o.kind === 'without') {
            // A checkpoint of an active session (a finished one is followed again first, as a PUT does).
            await store.setLifecycle(o.id, 'active');
            const spans = o.kind === 'write' ? { spans: () => o.state } : {};
            await store.commit([], [{ sessionId: o.id, checkpoint: ++checkpoint, epoch: 0, ...spans }]);
            if (o.kind === 'write') model.set(o.id, o.state);
            else model.delete(o.id);
          } else if (o.kind === 'finish') {
            await store.setLifecycle(o.id, 'ended');
            await store.dropSpanState(o.id);
            model.delete(o.id);
          } else {
            await store.close();
            if (o.kind === 'older') {
              olderWrite(dir, o.id, o.state);
              model.set(o.id, o.state);
            }
            store = await openSqliteStore(dir);
            phasesInOrder(dir);
          }
          const read = new Map((await store.sessions()).map((r) => [r.spec.id, r.spans]));
          for (const sessionId of IDS) expect(read.get(sessionId)).toBe(model.get(sessionId));
        }
      } finally {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      }
    }),
    { numRuns: 30 },
  );
});
