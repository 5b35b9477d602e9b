// Bytes of one SSE response → frames. A streaming TextDecoder turns arbitrary chunks into text
// (a multi-byte character split across chunks is held back; a leading BOM is stripped, as the
// EventSource spec requires), and eventsource-parser handles CRLF/CR/LF line ends, `data:` fields
// split over several lines (joined with "\n") and comment frames (the service's keepalives).
import { createParser, type EventSourceParser } from 'eventsource-parser';

export interface Frame {
  /** The `id:` field; the spec says it equals the envelope's seq. */
  id: string | undefined;
  data: string;
}

export interface FrameDecoder {
  /** Decodes a chunk; complete frames are appended to `out`. */
  feed(chunk: Uint8Array, out: Frame[]): void;
  /** Comments seen so far (keepalives). */
  readonly comments: number;
}

/** Frames larger than this end the connection: memory stays bounded whatever the peer sends. */
export const MAX_FRAME_CHARS = 32 * 1024 * 1024;

export function createFrameDecoder(onOverflow: () => void): FrameDecoder {
  const decoder = new TextDecoder('utf-8');
  let sink: Frame[] = [];
  let comments = 0;
  const parser: EventSourceParser = createParser({
    onEvent: (ev) => {
      sink.push({ id: ev.id, data: ev.data });
    },
    onComment: () => {
      comments++;
    },
    onError: (err) => {
      if (err.type === 'max-buffer-size-exceeded') onOverflow();
      // Unknown fields and invalid retry values are ignored, as EventSource does.
    },
    maxBufferSize: MAX_FRAME_CHARS,
  });
  return {
    feed(chunk, out) {
      sink = out;
      parser.feed(decoder.decode(chunk, { stream: true }));
    },
    get comments() {
      return comments;
    },
  };
}
