// The record encoder caches each key's encoded field for the life of the process. Those bytes must
// be their own: a small copy from Node's shared pool keeps the pool's whole slab alive (64 KiB on
// Node 24), so a cache that gains a key now and then, between other allocations, kept a slab each
// time (a sidecar's heap grew by 330 KB a minute that way).
import { queryObjects } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { createRecordEncoder } from '../../../src/wire/encode-record.js';
import { ProtoWriter } from '../../../src/wire/proto-writer.js';

/** ArrayBuffer memory after a full collection (queryObjects collects first). */
function arrayBufferBytes(): number {
  queryObjects(ArrayBuffer, { format: 'count' });
  return process.memoryUsage().arrayBuffers;
}

describe("the record encoder's key cache", () => {
  it("keeps 200 new keys' fields, met between other allocations, in a few KB rather than a pool slab each", () => {
    const encode = createRecordEncoder();
    const before = arrayBufferBytes();
    for (let i = 0; i < 200; i++) {
      // Records and other short-lived buffers come from the pool between two new keys.
      encode({
        tsMicros: 1,
        observedMicros: 1,
        eventName: 'browser.x',
        severityNumber: 9,
        severityText: 'INFO',
        body: { [`key-cache-memory-${i}`]: 'v' },
        attributes: {},
      });
      Buffer.allocUnsafe(Buffer.poolSize / 2 - 8).fill(0);
    }
    const grown = arrayBufferBytes() - before;
    expect(grown).toBeLessThan(64 * 1024);
  });

  it('copyAlone() owns its memory; copy() may share a pool slab', () => {
    const w = new ProtoWriter(64);
    w.string(1, 'url');
    expect(w.copyAlone().buffer.byteLength).toBe(5);
    expect(w.copyAlone()).toEqual(w.copy());
  });
});
