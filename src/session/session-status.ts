// What GET /v1/sessions shows for one session (docs/operations.md, "/v1/sessions").
import type { SessionSource } from '../store/store.js';
import type { ReconnectReason, SubscriberState } from '../stream/subscriber.js';

/** What GET /v1/sessions shows for one session. */
export interface SessionStatus {
  id: string;
  source: SessionSource;
  pool?: string;
  state: SubscriberState;
  lastReceivedSeq: number;
  lastDeliveredSeq: number;
  epoch: number;
  received: number;
  filtered: number;
  duplicates: number;
  gaps: number;
  missingEvents: number;
  malformedFrames: number;
  /** Events the stream did not deliver that were read from the service's archive. */
  repaired: number;
  reconnects: Partial<Record<ReconnectReason, number>>;
  lastError?: string;
  lastEventAt?: string;
  connectedSince?: string;
}
