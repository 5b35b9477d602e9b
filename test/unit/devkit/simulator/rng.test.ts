// The simulator derives each session's events from its seed and the session id: the same seed must
// give the same events in every version, or a failure found with a seed cannot be replayed.
import { expect, it } from 'vitest';
import { hashString } from '../../../../src/devkit/simulator/events/rng.js';

it.each<[string, number | undefined, number]>([
  ['', undefined, 2166136261],
  ['a', undefined, 3826002220],
  ['session-42', undefined, 2907850068],
  ['café', undefined, 856211068],
  ['emoji-😀', undefined, 802847573],
  ['', 42, 42],
  ['s1', 42, 1172088350],
  ['f3b1c2d4-0000-4a5b-9c8d-123456789abc', 42, 3885472752],
  ['会话-7', 42, 4210241435],
  ['a', 0xdeadbeef, 428013962],
  ['session-42', 0xdeadbeef, 2594960766],
])('hashString(%j, %s) is %i, as in every version before', (text, seed, hash) => {
  expect(hashString(text, seed)).toBe(hash);
});
