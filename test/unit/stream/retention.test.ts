// What a session keeps between two chunks of its stream. With a thousand live sessions a chunk
// arrives for each every few tens of milliseconds; whatever the stream keeps of the previous chunk
// until then outlives a young-generation collection and is promoted, and the old generation fills
// with garbage. So: after a chunk is delivered, nothing of it may stay reachable from the stream.
import { PassThrough } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { createFrameDecoder, type Frame } from '../../../src/stream/frame-decoder.js';
import { SequencedStream, type StreamItem } from '../../../src/stream/sequenced-stream.js';
import { Subscriber, type StreamSink } from '../../../src/stream/subscriber.js';
import type { OpenStreamResult } from '../../../src/upstream/client.js';
import { readableBody } from '../../../src/upstream/stream-body.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** True when nothing keeps `ref`'s target alive (a WeakRef holds its target until the job ends). */
async function collected(ref: WeakRef<object>): Promise<boolean> {
  await new Promise((r) => setTimeout(r, 0));
  gc();
  return ref.deref() === undefined;
}

const frame = (seq: number) =>
  `id: ${seq}\ndata: ${JSON.stringify({ seq, event: { ts: seq, type: 'console_log', category: 'console', source: {}, data: { text: 'x'.repeat(200) } } })}\n\n`;

describe('between two chunks', () => {
  it('the frame decoder keeps nothing of the array it filled', async () => {
    const d = createFrameDecoder(() => {});
    let out: Frame[] | undefined = [];
    d.feed(Buffer.from(frame(1)), out);
    expect(out).toHaveLength(1);
    const ref = new WeakRef(out);
    out = undefined;
    expect(await collected(ref)).toBe(true);
  });

  it('the frame decoder keeps nothing of a chunk whose frame is unfinished, or whose frame it holds', async () => {
    const d = createFrameDecoder(() => {});
    const out: Frame[] = [];
    // A complete data line of the unfinished frame and an unfinished line; then a frame ended by a CR
    // at the chunk's end, handed out with the next chunk.
    for (const text of [
      `id: 1\ndata: ${'a'.repeat(300)}\ndata: ${'b'.repeat(100)}`,
      `id: 2\rdata: ${'c'.repeat(300)}\r\r`,
    ]) {
      let chunk: Uint8Array | undefined = new TextEncoder().encode(text);
      const ref = new WeakRef(chunk.buffer);
      d.feed(chunk, out);
      chunk = undefined;
      expect(await collected(ref)).toBe(true);
      d.feed(new TextEncoder().encode('\n\n'), out);
    }
    expect(out).toEqual([
      { id: '1', data: `${'a'.repeat(300)}\n${'b'.repeat(100)}` },
      { id: '2', data: 'c'.repeat(300) },
    ]);
  });

  let stop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await stop?.();
    stop = undefined;
  });

  it('the subscriber keeps nothing of a delivered chunk while it waits for the next', async () => {
    const body = new PassThrough();
    const client = {
      invalidateKey() {},
      openStream: async (_id: string, _pos: unknown, signal: AbortSignal): Promise<OpenStreamResult> => {
        // As the HTTP client's body does (util/http-client.ts): an abort ends the read.
        signal.addEventListener('abort', () => body.destroy(new Error('aborted')));
        return { kind: 'stream', body: readableBody(body) };
      },
    };
    // The frames the subscriber hands to its stream.
    let seen: WeakRef<object>[] = [];
    const stream = new (class extends SequencedStream {
      override push(f: Frame, out: StreamItem[]): void {
        seen.push(new WeakRef(f));
        super.push(f, out);
      }
    })({ lastSeq: 0, epoch: 0 }, 'oldest');
    let events = 0;
    const sink: StreamSink = {
      push(items: StreamItem[]) {
        events += items.filter((i) => i.kind === 'event').length;
      },
      ended: async () => {},
      report() {},
    };
    const sub = new Subscriber('s', client, stream, sink, {
      idleTimeoutMs: 60_000,
      backoff: { initialMs: 1, maxMs: 2, authMs: 5 },
      start: 'oldest',
    });
    stop = () => sub.stop();
    sub.start();
    body.write(frame(1) + frame(2));
    await new Promise((r) => setTimeout(r, 20));
    expect(events).toBe(2);
    const refs = seen;
    seen = [];
    expect(refs).toHaveLength(2);
    // The stream is still open and waiting for its next chunk.
    for (const ref of refs) expect(await collected(ref)).toBe(true);
  });
});
