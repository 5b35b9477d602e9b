// What the subscriber reports of its connection (state changes, scheduled reconnects, a connection
// made) as the session's facts. Pure, and apart from the pipeline so that every kind of report is
// decided in one table: a new kind does not compile until it says which fact it is.
import type { SubscriberEvent } from '../stream/subscriber.js';
import type { Fact } from '../vocabulary/facts.js';

type Report<K extends SubscriberEvent['type']> = Extract<SubscriberEvent, { type: K }>;

const FACT_OF: { [K in SubscriberEvent['type']]: (session: string, ev: Report<K>, at: number) => Fact } = {
  state: (session, ev, at) => ({
    f: 'state_changed',
    session,
    state: ev.state,
    ...(ev.detail !== undefined ? { detail: ev.detail } : {}),
    at,
  }),
  reconnect: (session, ev) => ({
    f: 'reconnect_scheduled',
    session,
    reason: ev.reason,
    delayMs: ev.delayMs,
    attempt: ev.attempt,
    ...(ev.detail !== undefined ? { detail: ev.detail } : {}),
  }),
  connected: (session, _ev, at) => ({ f: 'connected', session, at }),
};

/** The fact a subscriber's report is for `session`; `at` is the wall clock in ms. */
export function subscriberFact(session: string, ev: SubscriberEvent, at: number): Fact {
  return (FACT_OF[ev.type] as (session: string, ev: SubscriberEvent, at: number) => Fact)(session, ev, at);
}
