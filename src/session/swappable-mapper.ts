// A Mapper whose options can be replaced while the pipeline runs (configuration reload).
//
// Every session holds a reference to this one object, so a reload swaps what it delegates to instead
// of touching the sessions. map() is synchronous: a swap can only happen between two events, never
// during one, so nothing in flight is dropped or half-mapped. Records already mapped keep the
// options they were mapped with; the new options apply from the next event on.
import type { Envelope } from '../upstream/envelope.js';
import type { BridgeLogRecord, SessionContext } from '../vocabulary/log-record.js';
import type { Mapper } from '../mapping/mapper.js';
import type { MappingOptions } from '../config/mapping-section.js';

export class SwappableMapper implements Mapper {
  private current: Mapper;
  private currentOptions: MappingOptions;
  private listeners: Array<(options: MappingOptions) => void> = [];

  /** `create` builds a mapper from options (with the bridge's stats); it is called again on every swap. */
  constructor(
    private readonly create: (options: MappingOptions) => Mapper,
    options: MappingOptions,
  ) {
    this.current = create(options);
    this.currentOptions = options;
  }

  map(envelope: Envelope, ctx: SessionContext, observedMicros: number): BridgeLogRecord | null {
    return this.current.map(envelope, ctx, observedMicros);
  }

  get options(): MappingOptions {
    return this.currentOptions;
  }

  /**
   * Builds a mapper for `options` and switches to it. A factory that throws (e.g. an unusable
   * screenshot directory) leaves the current mapper in place and the error goes to the caller.
   */
  swap(options: MappingOptions): void {
    const next = this.create(options);
    this.current = next;
    this.currentOptions = options;
    for (const l of this.listeners) l(options);
  }

  /** Calls `listener` after every successful swap (ingest workers map with their own copy). */
  onSwap(listener: (options: MappingOptions) => void): void {
    this.listeners.push(listener);
  }
}
