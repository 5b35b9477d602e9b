// A loopback front before the test receiver: it reads each request whole and answers it itself
// (a refusal, a partial success), or hands it to the receiver and passes the receiver's answer on.
// Tests use it to give a real collector the misbehaviours no collector has on demand.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FrontAnswer {
  status: number;
  contentType: string;
  body: string | Buffer;
  /** More response headers (a content-encoding from a proxy). */
  headers?: Record<string, string>;
}

/**
 * What the front does with request `n` (from 0) and its body; `forward` hands it to the receiver
 * (at the same path) and resolves to the receiver's answer.
 */
export type FrontHandler = (
  n: number,
  body: Buffer,
  forward: () => Promise<FrontAnswer>,
) => Promise<FrontAnswer> | FrontAnswer;

/** Starts the front on 127.0.0.1; `url` is its origin (append the signal's path). */
export async function collectorFront(
  receiverUrl: string,
  handle: FrontHandler,
): Promise<{ server: Server; url: string }> {
  let n = 0;
  const server = createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = Buffer.concat(chunks);
      const forward = async (): Promise<FrontAnswer> => {
        const got = await fetch(`${receiverUrl}${req.url}`, {
          method: 'POST',
          headers: { 'content-type': String(req.headers['content-type']) },
          body,
        });
        return {
          status: got.status,
          contentType: got.headers.get('content-type') ?? '',
          body: Buffer.from(await got.arrayBuffer()),
        };
      };
      const answer = await handle(n++, body, forward);
      res.writeHead(answer.status, { ...answer.headers, 'content-type': answer.contentType });
      res.end(answer.body);
    })();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}
