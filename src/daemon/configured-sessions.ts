// What to follow at start: what the configuration lists now plus what the control API (or
// discovery) added in earlier runs. The configuration is the truth for its own sessions: one it no
// longer lists is not followed (a DELETE of a listed session lasts until the next restart;
// unlisting it is permanent), one it lists again is followed again from its checkpoint. Ended
// sessions stay ended. With the shared store the configuration's sessions are the cluster's: a
// replica that starts with a file lacking one another replica's file (or reload) added removes it
// for every replica, so the start says which it removed.
import type { SessionSpec } from '../config/schema.js';
import type { SessionRow, Store } from '../store/store.js';

/** What start follows: every stored session by id. */
export interface Reconciled {
  stored: Map<string, SessionRow>;
  /** Active sessions an earlier configuration listed and this one does not: removed now. */
  unlisted: string[];
}

/** Records the configured sessions in the store and returns every stored session, by id. */
export async function reconcileConfigured(store: Store, configured: readonly SessionSpec[]): Promise<Reconciled> {
  const stored = new Map((await store.sessions()).map((r) => [r.spec.id, r]));
  const listed = new Set(configured.map((s) => s.id));
  const unlisted: string[] = [];
  for (const row of stored.values()) {
    if (row.source === 'config' && !listed.has(row.spec.id) && row.lifecycle === 'active') {
      // Its span state stays: its open spans are closed from it (session/finished-session-spans.ts).
      await store.setLifecycle(row.spec.id, 'removed');
      row.lifecycle = 'removed';
      unlisted.push(row.spec.id);
    }
  }
  for (const spec of configured) {
    const row = stored.get(spec.id);
    if (row?.lifecycle === 'ended') continue;
    stored.set(spec.id, await store.putSession(spec, row?.source ?? 'config'));
  }
  return { stored, unlisted };
}
