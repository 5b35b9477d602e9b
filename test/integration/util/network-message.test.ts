// What a failed request says, against real servers: an OTLP/HTTP request to an HTTP/2 (gRPC) port
// used to say only llhttp's HPE_INVALID_CONSTANT; now it says what the port probably is.
import { createServer, type Http2Server } from 'node:http2';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpClient } from '../../../src/util/http-client.js';
import { networkMessage } from '../../../src/util/network-message.js';

let server: Http2Server | undefined;
afterEach(() => server?.close());

describe('networkMessage', () => {
  it('an HTTP/1.1 request answered by an HTTP/2 (gRPC) port names the likely cause', async () => {
    server = createServer();
    const port = await new Promise<number>((resolve) =>
      server!.listen(0, '127.0.0.1', () => resolve((server!.address() as { port: number }).port)),
    );
    const client = new HttpClient({ connectTimeoutMs: 2000, headersTimeoutMs: 5000, bodyTimeoutMs: 5000, env: {} });
    const err = await client
      .request(`http://127.0.0.1:${port}/v1/logs`, { method: 'POST', body: Buffer.from('x') })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    client.close();
    expect(networkMessage(err)).toBe(
      "HPE_INVALID_CONSTANT: the server did not answer in HTTP/1.1 (an HTTP/2 or gRPC port, such as OTLP/gRPC's 4317? OTLP/HTTP is usually on 4318)",
    );
  });
});
