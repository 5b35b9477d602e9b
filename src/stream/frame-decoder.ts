// Bytes of one SSE response → frames. A streaming TextDecoder turns arbitrary chunks into text
// (a multi-byte character split across chunks is held back; a leading BOM is stripped, as the
// EventSource spec requires), and eventsource-parser handles CRLF/CR/LF line ends, `data:` fields
// split over several lines (joined with "\n") and comment frames (the service's keepalives).
//
// CR alone is a line end, but a CR at the very end of what arrived may still be followed by an LF,
// so the parser holds it back: a stream whose last frame ends in CR would never dispatch it. end()
// settles that when the stream ends: a trailing CR was a line end (an LF after it is fed, which
// makes the pair one line end and adds nothing). eventsource-parser's reset({consume: true}) does
// not help here: it parses the held-back "\r" as a line of its own. A frame cut in the middle has
// no blank line after it and is still not dispatched, as the EventSource spec wants at end of stream.
import { createParser, type EventSourceParser } from 'eventsource-parser';

export interface Frame {
  /** The `id:` field; it equals the envelope's seq (docs/service-api.md "Stream telemetry events" rule 1). */
  id: string | undefined;
  data: string;
}

export interface FrameDecoder {
  /** Decodes a chunk; complete frames are appended to `out`. */
  feed(chunk: Uint8Array, out: Frame[]): void;
  /** The stream ended: frames that were complete but held back (a trailing CR) are appended to `out`. */
  end(out: Frame[]): void;
  /** Comments seen so far (keepalives). */
  readonly comments: number;
}

/** Frames larger than this end the connection: memory stays bounded whatever the peer sends. */
export const MAX_FRAME_CHARS = 32 * 1024 * 1024;

/**
 * Where frames go between calls. The decoder must not keep the caller's array past a call: the
 * frames' strings are slices of the whole decoded chunk, and with a thousand sessions each one held
 * until its next chunk (tens of milliseconds) outlives a young-generation collection and fills the
 * old generation. Nothing is pushed here: the parser only dispatches inside feed() and end().
 */
const DETACHED: Frame[] = [];

export function createFrameDecoder(onOverflow: () => void): FrameDecoder {
  const decoder = new TextDecoder('utf-8');
  let sink: Frame[] = DETACHED;
  let comments = 0;
  let endsInCR = false;
  // Once a frame overflowed, the parser refuses any further input by throwing; a chunk already read
  // (or the stream's end) may still arrive before the connection is torn down. The decoder goes
  // inert instead: that chunk must not turn "frame too large" (a gap, passed) into a network error
  // (a reconnect to the same oversized frame, forever).
  let overflowed = false;
  const parser: EventSourceParser = createParser({
    onEvent: (ev) => {
      sink.push({ id: ev.id, data: ev.data });
    },
    onComment: () => {
      comments++;
    },
    onError: (err) => {
      if (err.type === 'max-buffer-size-exceeded') {
        overflowed = true;
        onOverflow();
      }
      // Unknown fields and invalid retry values are ignored, as EventSource does.
    },
    maxBufferSize: MAX_FRAME_CHARS,
  });
  return {
    feed(chunk, out) {
      if (overflowed) return;
      const text = decoder.decode(chunk, { stream: true });
      if (text === '') return;
      sink = out;
      endsInCR = text.charCodeAt(text.length - 1) === 13;
      try {
        parser.feed(text);
      } finally {
        sink = DETACHED;
      }
    },
    end(out) {
      if (overflowed) return;
      sink = out;
      const rest = decoder.decode();
      if (rest !== '') {
        endsInCR = rest.charCodeAt(rest.length - 1) === 13;
        parser.feed(rest);
      }
      if (endsInCR) parser.feed('\n');
      endsInCR = false;
      parser.reset();
      sink = DETACHED;
    },
    get comments() {
      return comments;
    },
  };
}
