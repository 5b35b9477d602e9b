// When `workers: auto` starts the ingest workers (daemon/worker-scaling.ts): never for a handful of
// quiet sessions (the sidecar), at once for a fleet, and when the main thread stays busy.
import { describe, expect, it } from 'vitest';
import { BUSY_SAMPLES, BUSY_UTILISATION, SESSIONS_ON_MAIN, shouldScaleUp } from '../../../src/daemon/worker-scaling.js';

const busy = Array<number>(BUSY_SAMPLES).fill(BUSY_UTILISATION);

describe('shouldScaleUp', () => {
  it.each([
    ['one quiet session (a sidecar)', 1, [0.02, 0.03], false],
    ['no session, whatever the load', 0, busy, false],
    ['a few sessions, busy once', SESSIONS_ON_MAIN, [0.1, 0.95], false],
    ['a few sessions, busy for the whole window', SESSIONS_ON_MAIN, busy, true],
    ['busy but not long enough to tell', SESSIONS_ON_MAIN, busy.slice(1), false],
    ['the most sessions the main thread keeps, quiet', SESSIONS_ON_MAIN, [0, 0], false],
    ['one session more, quiet', SESSIONS_ON_MAIN + 1, [0, 0], true],
    ['a fleet before any sample', 1000, [], true],
  ] as Array<[string, number, number[], boolean]>)('%s', (_name, sessions, samples, expected) => {
    expect(shouldScaleUp(sessions, samples)).toBe(expected);
  });
});
