// A deliberately simple SSE reader for the simulator tests (independent of the project's parser):
// node:http + a streaming UTF-8 decoder + line splitting that holds back a trailing \r until it
// knows whether \n follows.
import { request } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';

export interface TestFrame {
  id?: string;
  event?: string;
  /** data lines joined with \n, per the SSE rules. */
  data?: string;
  dataLines: number;
}

export interface TestStream {
  status: number;
  headers: IncomingHttpHeaders;
  frames: TestFrame[];
  comments: string[];
  /** Raw body chunks as received. */
  chunks: Buffer[];
  /** Decoded text after the last complete line (a cut frame leaves its head here). */
  readonly pending: string;
  /** Resolves when the response ends; `clean` is false when the socket was cut. */
  done: Promise<{ clean: boolean }>;
  waitFrames(n: number, timeoutMs?: number): Promise<TestFrame[]>;
  waitComments(n: number, timeoutMs?: number): Promise<string[]>;
  close(): void;
  pause(): void;
  resume(): void;
}

export interface OpenOptions {
  token?: string | null;
  lastEventId?: string;
  replay?: string;
}

export function openStream(baseUrl: string, sessionId: string, opts: OpenOptions = {}): Promise<TestStream> {
  const url = new URL(`/browsers/${encodeURIComponent(sessionId)}/telemetry/stream`, baseUrl);
  if (opts.replay !== undefined) url.searchParams.set('replay', opts.replay);
  const headers: Record<string, string> = { Accept: 'text/event-stream' };
  const token = opts.token === undefined ? 'sim-key' : opts.token;
  if (token !== null) headers.Authorization = `Bearer ${token}`;
  if (opts.lastEventId !== undefined) headers['Last-Event-ID'] = opts.lastEventId;

  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      const decoder = new TextDecoder('utf-8');
      let text = '';
      let current: TestFrame = { dataLines: 0 };
      const frames: TestFrame[] = [];
      const comments: string[] = [];
      const chunks: Buffer[] = [];
      const waiters = new Set<() => void>();
      const notify = (): void => waiters.forEach((w) => w());

      const line = (l: string): void => {
        if (l === '') {
          if (current.dataLines > 0 || current.id !== undefined) frames.push(current);
          current = { dataLines: 0 };
          return;
        }
        if (l.startsWith(':')) {
          comments.push(l.slice(1).trim());
          return;
        }
        const i = l.indexOf(':');
        const field = i < 0 ? l : l.slice(0, i);
        let value = i < 0 ? '' : l.slice(i + 1);
        if (value.startsWith(' ')) value = value.slice(1);
        if (field === 'id') current.id = value;
        else if (field === 'event') current.event = value;
        else if (field === 'data') {
          current.data = current.dataLines === 0 ? value : `${current.data ?? ''}\n${value}`;
          current.dataLines++;
        }
      };
      const feed = (s: string): void => {
        text += s;
        for (;;) {
          const m = /\r\n|\r|\n/.exec(text);
          if (!m) break;
          // A lone \r at the very end may be the first half of \r\n: wait for more.
          if (m[0] === '\r' && m.index === text.length - 1) break;
          line(text.slice(0, m.index));
          text = text.slice(m.index + m[0].length);
        }
        notify();
      };

      let clean = false;
      const done = new Promise<{ clean: boolean }>((r) => {
        res.on('data', (c: Buffer) => {
          chunks.push(c);
          feed(decoder.decode(c, { stream: true }));
        });
        res.on('end', () => {
          clean = true;
          feed(decoder.decode());
        });
        res.on('close', () => {
          notify();
          r({ clean: clean && res.complete });
        });
        res.on('error', () => undefined);
      });
      let ended = false;
      void done.then(() => {
        ended = true;
        notify();
      });
      const wait = <T>(ready: () => T | undefined, timeoutMs: number, what: string): Promise<T> =>
        new Promise((ok, ko) => {
          const check = (): void => {
            const v = ready();
            if (v !== undefined) {
              waiters.delete(check);
              clearTimeout(timer);
              ok(v);
            } else if (ended) {
              waiters.delete(check);
              clearTimeout(timer);
              ko(new Error(`stream ended before ${what} (frames ${frames.length})`));
            }
          };
          const timer = setTimeout(() => {
            waiters.delete(check);
            ko(new Error(`timeout waiting for ${what} (frames ${frames.length})`));
          }, timeoutMs);
          waiters.add(check);
          check();
        });

      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        frames,
        comments,
        chunks,
        get pending() {
          return text;
        },
        done,
        waitFrames: (n, t = 5000) =>
          wait(() => (frames.length >= n ? frames.slice(0, n) : undefined), t, `${n} frames`),
        waitComments: (n, t = 5000) =>
          wait(() => (comments.length >= n ? comments.slice(0, n) : undefined), t, `${n} comments`),
        close: () => req.destroy(),
        pause: () => res.pause(),
        resume: () => res.resume(),
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** Reads a whole (non-stream) response body as text. */
export async function bodyText(s: TestStream): Promise<string> {
  await s.done;
  return Buffer.concat(s.chunks).toString('utf8');
}
