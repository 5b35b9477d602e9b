// The messages between the main thread and an ingest worker (worker.ts), and the packed form of a
// batch of spool appends: the seam is the same one as in one thread (Spool.append), only batched.
//
// A batch is two transferable buffers, never an array of objects: `meta` holds six numbers per
// append (session handle, seq, epoch, event time, byte length or -1 for a checkpoint-only append,
// index into `sourceIds`, or -1 when the session's source id is none or unchanged since the last
// one sent) and `bytes` the encoded records back to back. Handles are numbers
// the main thread gives each session when it hands it to a worker, so no session id is copied per
// record. Structured cloning of the small control messages is fine: they are rare. With traces on,
// a batch also carries, per session it touched, the spans finished (encoded) and the span builder's
// open state after the session's last append in the batch (ingest/span-mirror.ts takes them).
import type { BridgeConfig, SessionSpec } from '../config/schema.js';
import type { MappingOptions } from '../config/mapping-section.js';
import type { AttributeValue } from '../vocabulary/log-record.js';
import type { SessionRow } from '../store/store.js';
import type { SessionStatus } from '../session/session-status.js';
import type { Fact } from '../vocabulary/facts.js';

export const META_FIELDS = 6;

/** What a worker is started with. */
export interface WorkerInit {
  config: BridgeConfig;
  log: { level: string; pretty: boolean; bindings: Record<string, unknown> };
  /** Bytes of batches posted but not yet taken by the spool, at most: beyond, the worker's streams pause. */
  inFlightBytes: number;
  /** How often the worker's facts are sent to the main thread (sessions' status every fourth time, see worker.ts). */
  reportEveryMs: number;
}

/**
 * One session's spans in a batch: the open state (JSON) after its last append, if it appended and
 * the state was captured there (at most every few seconds), and the spans finished.
 */
export interface BatchSpans {
  h: number;
  open?: string;
  finished: Uint8Array[];
}

export type ToWorker =
  | { t: 'follow'; h: number; row: SessionRow }
  | { t: 'stop'; h: number; req: number; removed: boolean }
  | { t: 'spec'; h: number; spec: SessionSpec }
  | { t: 'enrich'; h: number; attrs: Record<string, AttributeValue> }
  | { t: 'mapping'; options: MappingOptions }
  | { t: 'ack'; bytes: number }
  | { t: 'reply'; req: number };

export type FromWorker =
  | { t: 'ready' }
  | { t: 'batch'; meta: Float64Array; bytes: Uint8Array; sourceIds: string[]; size: number; spans?: BatchSpans[] }
  | { t: 'ended'; h: number; req: number }
  | { t: 'stopped'; req: number; status: SessionStatus | undefined }
  | { t: 'report'; statuses: Array<[number, SessionStatus]>; facts: Fact[] };
