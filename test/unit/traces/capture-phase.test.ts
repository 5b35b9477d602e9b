// A session's phase decides where its span state's row sits in the store and when every thread
// captures it: stored rows and other processes keep the phase an older version gave, so it is
// pinned (non-ASCII ids hash by UTF-16 unit, as JavaScript holds them).
import { expect, it } from 'vitest';
import { CAPTURE_PHASES, capturePhase } from '../../../src/traces/capture-phase.js';

it.each([
  ['', 1],
  ['a', 0],
  ['s1', 4],
  ['session-42', 3],
  ['f3b1c2d4-0000-4a5b-9c8d-123456789abc', 4],
  ['café', 3],
  ['会话-7', 0],
  ['emoji-😀', 3],
])('the phase of %j is %i, as in every version before', (id, phase) => {
  expect(phase).toBeLessThan(CAPTURE_PHASES);
  expect(capturePhase(id)).toBe(phase);
});
