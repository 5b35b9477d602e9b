// The subscriber's reports become the session's facts (session/subscriber-facts.ts): one table, so
// each kind of report says which fact it is.
import { describe, expect, it } from 'vitest';
import { subscriberFact } from '../../../src/session/subscriber-facts.js';
import type { SubscriberEvent } from '../../../src/stream/subscriber.js';
import type { Fact } from '../../../src/vocabulary/facts.js';

const AT = 1_800_000_000_000;

describe('subscriberFact', () => {
  it.each<[string, SubscriberEvent, Fact]>([
    [
      'a state change',
      { type: 'state', state: 'streaming' },
      { f: 'state_changed', session: 's1', state: 'streaming', at: AT },
    ],
    [
      'a state change with its detail',
      { type: 'state', state: 'unauthorized', detail: 'HTTP 401' },
      { f: 'state_changed', session: 's1', state: 'unauthorized', detail: 'HTTP 401', at: AT },
    ],
    [
      'a reconnect scheduled (no time: the delay says when)',
      { type: 'reconnect', reason: 'network', delayMs: 250, attempt: 2 },
      { f: 'reconnect_scheduled', session: 's1', reason: 'network', delayMs: 250, attempt: 2 },
    ],
    [
      'a reconnect with its detail',
      { type: 'reconnect', reason: 'closed', delayMs: 0, attempt: 1, detail: 'EOF' },
      { f: 'reconnect_scheduled', session: 's1', reason: 'closed', delayMs: 0, attempt: 1, detail: 'EOF' },
    ],
    ['a connection made', { type: 'connected' }, { f: 'connected', session: 's1', at: AT }],
  ])('%s', (_name, report, fact) => {
    expect(subscriberFact('s1', report, AT)).toEqual(fact);
  });
});
