// A small seeded PRNG (mulberry32) so that a given seed and session id always generate the same
// event contents; Math.random would make failures impossible to replay.
import { FNV1A_OFFSET_BASIS, fnv1a32 } from '../../../util/fnv1a.js';

export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [min, max], inclusive. */
  int(min: number, max: number): number;
  /** Number in [min, max) rounded to `decimals`. */
  float(min: number, max: number, decimals?: number): number;
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** Lowercase hex string of `length` characters. */
  hex(length: number): string;
}

/** FNV-1a, to derive a per-session seed from the simulator seed and the session id. */
export function hashString(s: string, seed = FNV1A_OFFSET_BASIS): number {
  return fnv1a32(s, seed);
}

export function createRng(seed: number): Rng {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    float: (min, max, decimals = 2) => {
      const f = 10 ** decimals;
      return Math.round((min + next() * (max - min)) * f) / f;
    },
    chance: (p) => next() < p,
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T,
    hex: (length) => {
      let s = '';
      while (s.length < length)
        s += Math.floor(next() * 0x100000000)
          .toString(16)
          .padStart(8, '0');
      return s.slice(0, length);
    },
  };
}
