import { Spool } from '../../src/store/spool.js';
import type { SpoolOptions } from '../../src/store/spool-options.js';
import type { Store } from '../../src/store/store.js';

/**
 * A spool in overflow mode with room to spare and the clock read through Date.now, so tests that fake
 * Date drive its commits and checkpoints; `opts` override the bounds.
 */
export function openOverflowSpool(store: Store, opts: Partial<Omit<SpoolOptions, 'store'>> = {}): Promise<Spool> {
  return Spool.open({
    store,
    mode: 'overflow',
    maxBytes: 1 << 30,
    memoryMaxBytes: 1 << 20,
    commitMaxRecords: 5000,
    commitIntervalMs: 200,
    now: () => Date.now(),
    ...opts,
  });
}
