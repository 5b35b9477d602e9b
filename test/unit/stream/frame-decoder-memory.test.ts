// The frame limit bounds what an unfinished frame holds, not only its bytes. A stream of short
// `data:` lines that never ends its frame used to keep one Buffer per line (~120 bytes of heap for a
// 5-byte line, counted as 0-1 byte against the limit): 8 MiB of such lines per connection took a
// bridge from 397 MB to 1,229 MB of RSS. Measured here on the heap, after a full collection.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { createFrameDecoder, MAX_FRAME_BYTES, PIECE_OVERHEAD, type Frame } from '../../../src/stream/frame-decoder.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const held = (): number => {
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};

describe('what an unfinished frame holds', () => {
  it('4 MiB of 5-byte data lines in 64 KiB chunks hold about their bytes, not a Buffer each', () => {
    let overflows = 0;
    const d = createFrameDecoder(() => overflows++);
    const out: Frame[] = [];
    const chunk = Buffer.from('data\n'.repeat(Math.floor(65536 / 5)));
    const chunks = Math.ceil((4 * 1024 * 1024) / chunk.length);
    const before = held();
    for (let i = 0; i < chunks; i++) d.feed(chunk, out);
    const growth = held() - before;
    // ~840,000 lines: one Buffer each would be ~100 MB; their "\n"-joined copies are under 1 MB.
    expect(growth).toBeLessThan(16 * 1024 * 1024);
    expect(overflows).toBe(0);
    // And the frame is still the one the lines make.
    d.feed(Buffer.from('\n'), out);
    expect(out).toHaveLength(1);
    expect(out[0]!.data).toBe('\n'.repeat(chunks * (chunk.length / 5) - 1));
  });

  it('one short data line per chunk is counted as the Buffer it takes: the limit comes after at most MAX_FRAME_BYTES / PIECE_OVERHEAD lines', () => {
    let overflows = 0;
    const d = createFrameDecoder(() => overflows++);
    const out: Frame[] = [];
    const line = Buffer.from('data: x\n');
    let fed = 0;
    const most = Math.ceil(MAX_FRAME_BYTES / PIECE_OVERHEAD);
    while (overflows === 0 && fed <= most) {
      d.feed(line, out);
      fed++;
    }
    expect(overflows).toBe(1);
    expect(fed).toBeLessThanOrEqual(most);
    expect(out).toEqual([]);
  });
});
