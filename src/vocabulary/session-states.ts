// The words of one followed session's state: its subscriber's state machine (stream/subscriber.ts),
// why it reconnects, where it came from, and what GET /v1/sessions shows of it. Every label value
// here is also a Prometheus label value (observe/metrics.ts creates each series at zero).

/** `unknown`: the service does not know the session at all (a mistyped id), unlike `ended`. */
export const SUBSCRIBER_STATES = [
  'idle',
  'connecting',
  'streaming',
  'backoff',
  'unauthorized',
  'forbidden',
  'ended',
  'unknown',
  'stopped',
] as const;
export type SubscriberState = (typeof SUBSCRIBER_STATES)[number];

export const RECONNECT_REASONS = [
  'closed',
  'idle',
  'network',
  'server_error',
  'rate_limited',
  'unauthorized',
  'forbidden',
  'bad_content_type',
  'frame_too_large',
  'http_error',
] as const;
export type ReconnectReason = (typeof RECONNECT_REASONS)[number];

/** Where a followed session came from: the configuration, the control API, or the service's session list (discovery). */
export type SessionSource = 'config' | 'api' | 'discovery';

/** The gap a session waits on while its archive cannot be read (GET /v1/sessions `owedGap`). */
export interface OwedGap {
  firstSeq: number;
  /** Absent for the tail of a session that ended unseen (everything after `firstSeq − 1`). */
  lastSeq?: number;
  /** Why the archive read failed, as the service or the network said. */
  detail: string;
  since: string;
  until: string;
}

/** What GET /v1/sessions shows for one session (docs/operations.md, "/v1/sessions"). */
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
  /**
   * A gap the archive could not be read for, while it is owed (session/owed-gap.ts): the session's
   * stream waits, and the gap is recorded as lost at `until` unless the archive answers first.
   */
  owedGap?: OwedGap;
  lastEventAt?: string;
  connectedSince?: string;
}
