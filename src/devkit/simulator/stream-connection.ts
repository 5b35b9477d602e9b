// One open telemetry stream (docs/service-api.md "Stream telemetry events").
//
// State machine:
//   open ──(caught up)──▶ open, idle: a keepalive comment every keepaliveMs without writes (rule 2)
//   open ──(a write returned false)──▶ draining ──('drain' of the socket or the response)──▶ open,
//         continue from the cursor
//   open ──(session ended)──▶ cut: what was unsent is written with its last frame cut in half, then
//         the socket is reset — the real service's connection dies with the VM, it is never closed
//         cleanly, so a client cannot tell from the stream that it saw everything
//   open ──(service restart: the source's epoch changed)──▶ reset at once (seq goes back to 1 for
//         the next connection, never on this one)
//   open ──(cutAfterFrames reached)──▶ cut: part of one frame written, then the socket destroyed
//   any ──(socket closed by either side, or simulator closed)──▶ closed
//
// The connection keeps a cursor (the last seq written) instead of a queue: frames are read from the
// session's replay buffer (views of its frame log) when the socket can take them. A consumer that
// stops reading therefore costs no memory here; if it falls behind further than the buffer holds, the evicted seqs are
// skipped, and the consumer sees a gap (docs/service-api.md "Stream telemetry events" rule 4), just as with the real service.
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { ReplayBuffer } from './replay-buffer.js';
import { writeHttpChunk } from './http-chunk.js';
import { applyTextFaults, keepaliveFrame } from './sse-format.js';
import type { Faults } from './types.js';

/** The session as a connection sees it. */
export interface StreamSource {
  readonly buffer: ReplayBuffer;
  readonly epoch: number;
  readonly ended: boolean;
  detach(conn: StreamConnection): void;
}

export interface ConnectionDeps {
  faults(): Faults;
  keepaliveMs: number;
  onClose(): void;
}

// One write per batch; a batch stops at whichever limit comes first, so a slow consumer holds at
// most one batch in the socket's buffer.
const MAX_BATCH_FRAMES = 256;
const MAX_BATCH_BYTES = 64 * 1024;

export class StreamConnection {
  private state: 'open' | 'draining' | 'closed' = 'open';
  private cursor: number;
  private epoch: number;
  private framesSent = 0;
  private released = false;
  private readonly keepalive: NodeJS.Timeout;

  constructor(
    private readonly res: ServerResponse,
    private readonly source: StreamSource,
    /** Frames with seq > startAfter are sent. */
    startAfter: number,
    private readonly deps: ConnectionDeps,
  ) {
    this.cursor = startAfter;
    this.epoch = source.epoch;
    this.keepalive = setTimeout(() => this.onIdle(), deps.keepaliveMs);
    this.keepalive.unref();
    res.on('drain', this.onDrain);
    // Frames written to the socket directly (writeFrames) drain there, not on the response.
    res.socket?.on('drain', this.onDrain);
    res.on('close', () => this.onClosed());
  }

  private readonly onDrain = (): void => {
    if (this.state !== 'draining') return;
    this.state = 'open';
    this.pump();
  };

  /** Writes whatever the buffer holds beyond the cursor; called on connect and after each batch. */
  pump(): void {
    if (this.state !== 'open') return;
    const { buffer } = this.source;
    if (this.epoch !== this.source.epoch || this.source.ended) {
      // The process behind this connection is gone (restart) or the session is over.
      this.endAbruptly();
      return;
    }
    for (;;) {
      // Evicted while this consumer was behind: skip to the oldest retained (a gap, rule 8).
      const from = Math.max(this.cursor + 1, buffer.oldestSeq);
      const last = buffer.lastSeq;
      if (from > last) break;
      const faults = this.deps.faults();
      let to = Math.min(last, from + MAX_BATCH_FRAMES - 1);
      let cutSeq = 0;
      const cutAfter = faults.cutAfterFrames;
      if (cutAfter !== undefined && cutAfter > 0 && this.framesSent + (to - from + 1) > cutAfter) {
        cutSeq = from + Math.max(0, cutAfter - this.framesSent);
        to = cutSeq - 1;
      }
      const plain = !faults.crlf && !faults.crOnly && !faults.splitData;
      const parts: Buffer[] = [];
      let bytes = 0;
      let seq = from;
      if (plain && cutSeq === 0 && to === from && this.chunksDirect(faults)) {
        // One frame (the live rate's usual batch: a 50 ms tick at 20 events/s): its stored HTTP
        // chunk as it is, one write without a copy. A batch of several stays one chunk (below), so
        // the bytes on the wire are what they were.
        buffer.chunks(from, from, MAX_BATCH_BYTES, parts);
        this.framesSent++;
        this.cursor = from;
        this.keepalive.refresh();
        if (!(this.res.socket as Socket).write(parts[0] as Buffer)) {
          this.state = 'draining';
          return;
        }
        continue;
      }
      if (plain) {
        seq = buffer.spans(from, to, MAX_BATCH_BYTES, parts) + 1;
        for (const part of parts) bytes += part.length;
      } else
        for (; seq <= to && bytes < MAX_BATCH_BYTES; seq++) {
          const part = Buffer.from(applyTextFaults((buffer.get(seq) as Buffer).toString(), faults));
          parts.push(part);
          bytes += part.length;
        }
      this.framesSent += seq - from;
      this.cursor = seq - 1;
      if (cutSeq > 0 && seq > to) {
        const frame = applyTextFaults((buffer.get(cutSeq) as Buffer).toString(), faults);
        parts.push(Buffer.from(frame.slice(0, Math.max(1, frame.length >> 1))));
        this.cut(Buffer.concat(parts), faults);
        return;
      }
      if (!this.writeFrames(parts, bytes, faults)) {
        this.state = 'draining';
        return;
      }
    }
  }

  /** The session ended or the service restarted: the connection dies (see the state machine). */
  sessionEnded(): void {
    this.endAbruptly();
  }

  private endAbruptly(): void {
    if (this.state === 'closed') return;
    const { buffer } = this.source;
    const from = Math.max(this.cursor + 1, buffer.oldestSeq);
    const last = this.epoch === this.source.epoch ? buffer.lastSeq : 0;
    const faults = this.deps.faults();
    let text = '';
    if (from <= last) {
      for (let seq = from; seq < last && text.length < MAX_BATCH_BYTES; seq++)
        text += applyTextFaults((buffer.get(seq) as Buffer).toString(), faults);
      const frame = applyTextFaults((buffer.get(last) as Buffer).toString(), faults);
      text += frame.slice(0, Math.max(1, frame.length >> 1));
    }
    // What was written reaches the client, then the reset; a reader that does not read gets the
    // reset anyway, a moment later.
    this.cut(text, faults);
    setTimeout(() => this.res.destroy(), 1000).unref();
  }

  /** Drops the connection without a clean end (simulator shutdown). */
  destroy(): void {
    this.res.destroy();
    this.onClosed();
  }

  /**
   * Whether frames may go straight to the socket as HTTP chunks (http-chunk.ts: the live rate's
   * 20,000 frames/s cost more in res.write's machinery than in the frames): only where res.write
   * would put the same bytes on the wire, a chunked response whose headers are out (the service API
   * flushes them before the first frame), and no chunk-size fault to apply.
   */
  private chunksDirect(faults: Faults): boolean {
    const chunkSize = faults.chunkSize;
    return (
      this.res.socket !== null &&
      this.res.headersSent &&
      this.res.chunkedEncoding &&
      (chunkSize === undefined || chunkSize <= 0)
    );
  }

  /** A batch of frames as one HTTP chunk, straight to the socket where it may go. */
  private writeFrames(parts: Buffer[], bytes: number, faults: Faults): boolean {
    if (!this.chunksDirect(faults))
      return this.write(parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts, bytes), faults);
    this.keepalive.refresh();
    return writeHttpChunk(this.res.socket as Socket, parts, bytes);
  }

  private write(data: string | Buffer, faults: Faults, done?: () => void): boolean {
    this.keepalive.refresh();
    const size = faults.chunkSize;
    if (size === undefined || size <= 0 || data.length === 0)
      return done ? this.res.write(data, done) : this.res.write(data);
    // Tiny chunks split anywhere: inside a multi-byte UTF-8 sequence, between \r and \n. Each write
    // is its own HTTP chunk, so the client really receives the pieces separately.
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    let ok = true;
    for (let i = 0; i < bytes.length; i += size) {
      const piece = bytes.subarray(i, i + size);
      ok = done && i + size >= bytes.length ? this.res.write(piece, done) : this.res.write(piece);
    }
    return ok;
  }

  /** Writes `data` (ending inside a frame) and destroys the socket once it has been flushed. */
  private cut(data: string | Buffer, faults: Faults): void {
    this.state = 'closed';
    this.write(data, faults, () => this.res.destroy());
  }

  private onIdle(): void {
    if (this.state === 'closed') return;
    if (this.state === 'open') {
      const faults = this.deps.faults();
      if (!this.write(keepaliveFrame(faults), faults)) this.state = 'draining';
    }
    this.keepalive.refresh();
  }

  /** Runs once, whichever way the connection ended ('close' always follows end and destroy). */
  private onClosed(): void {
    if (this.released) return;
    this.released = true;
    this.state = 'closed';
    clearTimeout(this.keepalive);
    this.res.socket?.off('drain', this.onDrain);
    this.source.detach(this);
    this.deps.onClose();
  }
}
