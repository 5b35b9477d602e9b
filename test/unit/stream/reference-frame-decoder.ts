// The frame decoder as it was before src/stream/frame-decoder.ts parsed bytes: a streaming
// TextDecoder, then eventsource-parser on the text. Kept as the reference the byte decoder is checked
// against (frame-decoder.model.test.ts) and measured against (bench/frame-decoder-micro.ts).
//
// `settleHeldCR` mends the one place where the old decoder was wrong: a CR at the end of what was
// fed stays unparsed in eventsource-parser until a later text contains a line end, and end() only
// settled it when the very last text ended in CR. So a frame whose blank line was such a CR, followed
// by nothing but an unfinished line (no line end) until the stream ended, was never dispatched (nor
// a comment ending so counted). With the option, a held CR is settled as soon as the next text does
// not begin with LF (feeding "\n" makes it the CRLF it then cannot be any more: one line end), which
// is what the spec (and the byte decoder) do. Without it this is the old decoder exactly.
// eventsource-parser 4 no longer holds the CR back (it dispatches at the CR and skips an LF that
// opens the next text), so with it both settings give the spec's answer.
import { createParser, type EventSourceParser } from 'eventsource-parser';
import type { Frame, FrameDecoder } from '../../../src/stream/frame-decoder.js';

/** The old limit, in UTF-16 characters. */
export const REFERENCE_MAX_FRAME_CHARS = 32 * 1024 * 1024;

export function createReferenceFrameDecoder(onOverflow: () => void, opts: { settleHeldCR: boolean }): FrameDecoder {
  const DETACHED: Frame[] = [];
  // eventsource-parser 4 strips one leading BOM itself: the decoder must keep it, or two would go.
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  let sink: Frame[] = DETACHED;
  let comments = 0;
  let endsInCR = false;
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
    },
    maxBufferSize: REFERENCE_MAX_FRAME_CHARS,
  });
  const settle = (text: string): void => {
    if (opts.settleHeldCR && endsInCR && text.charCodeAt(0) !== 10) parser.feed('\n');
  };
  return {
    feed(chunk, out) {
      if (overflowed) return;
      const text = decoder.decode(chunk, { stream: true });
      if (text === '') return;
      sink = out;
      settle(text);
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
        settle(rest);
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
