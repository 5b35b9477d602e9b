// A row of the embedded store's sessions table as SQLite gives it, and the SessionRow it becomes
// (the shared store's counterpart is pg-sessions.ts toRow).
import type { SessionSpec } from '../config/schema.js';
import type { SessionLifecycle, SessionRow, SessionSource } from './store.js';
import { unpackSpans } from './sqlite-span-states.js';

export interface RawSession {
  id: string;
  spec: string;
  source: SessionSource;
  lifecycle: SessionLifecycle;
  checkpoint: number;
  epoch: number;
  sourceId: string | null;
  /** Compressed (packSpans), or text as a file from before compression holds it. */
  spans: Buffer | string | null;
}

export function toRow(r: RawSession, unreadable: (error: string) => void): SessionRow {
  const row: SessionRow = {
    spec: JSON.parse(r.spec) as SessionSpec,
    source: r.source,
    lifecycle: r.lifecycle,
    checkpoint: r.checkpoint,
    epoch: r.epoch,
  };
  if (r.sourceId !== null) row.sourceId = r.sourceId;
  const spans = r.spans === null ? undefined : unpackSpans(r.spans, unreadable);
  if (spans !== undefined) row.spans = spans;
  return row;
}
