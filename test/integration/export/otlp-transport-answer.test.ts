// A 2xx that is not an OTLP answer: a catch-all route at a wrong path (here an HTML page) answers 200
// to anything. The transport still reports success (the records are acknowledged, as the endpoint
// said) but reports the answer as a fact (a warning and bridge_export_unrecognized_answers_total),
// and `check` fails such an endpoint. Real sockets on loopback.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { probeCollector } from '../../../src/cli/check-probes.js';
import { buildConfig } from '../../../src/config/load-config.js';
import { encodeExportResponse } from '../../../src/devkit/receiver/response.js';
import type { Fact } from '../../../src/vocabulary/facts.js';
import { logsTransportTo } from '../../helpers/logs-transport.js';

const HTML = '<!doctype html><html><head><title>Welcome</title></head><body>It works!</body></html>';

let server: Server | undefined;
afterEach(async () => {
  if (server) await new Promise((r) => server!.close(r));
  server = undefined;
});

/** Answers every POST with `status`, `type` and `body`, whatever the path. */
async function answering(status: number, type: string | undefined, body: Uint8Array | string): Promise<string> {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(status, type ? { 'content-type': type } : {});
      res.end(body);
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('a 2xx answer that is not OTLP', () => {
  it('is still success, and reported each time with a running count', async () => {
    const facts: Fact[] = [];
    const t = logsTransportTo(await answering(200, 'text/html; charset=utf-8', HTML), facts);
    for (let i = 0; i < 2; i++)
      expect(await t.send([], 'application/x-protobuf')).toEqual({ kind: 'success', rejected: 0 });
    await t.close();
    expect(facts).toEqual(
      [1, 2].map((count) => ({
        f: 'export_answer_unrecognized',
        endpoint: expect.stringContaining('/v1/logs') as unknown,
        status: 200,
        contentType: 'text/html; charset=utf-8',
        bytes: HTML.length,
        count,
      })),
    );
  });

  it.each<[string, number, string | undefined, Uint8Array | string]>([
    ['an empty 200', 200, undefined, ''],
    ['an empty protobuf response', 200, 'application/x-protobuf', encodeExportResponse('protobuf').body],
    ['a partial success', 200, 'application/x-protobuf', encodeExportResponse('protobuf', 1, 'one').body],
    ['{} in JSON', 200, 'application/json', '{}'],
    ['a 202 without a body', 202, undefined, ''],
  ])('%s is a collector answer: nothing reported', async (_name, status, type, body) => {
    const facts: Fact[] = [];
    const t = logsTransportTo(await answering(status, type, body), facts);
    expect((await t.send([], 'application/x-protobuf')).kind).toBe('success');
    await t.close();
    expect(facts).toEqual([]);
  });

  it('check fails such an endpoint, and passes a collector', async () => {
    const env = { BROWSER_API_URL: 'http://127.0.0.1:9', BROWSER_API_KEY: 'k' };
    const html = await answering(200, 'text/html', HTML);
    const item = await probeCollector(buildConfig({}, { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: html }).exporter);
    expect(item.status).toBe('fail');
    expect(item.detail).toMatch(/with text\/html that is not an OTLP response .*: this is not an OTLP logs endpoint/);
    await new Promise((r) => server!.close(r));

    const collector = await answering(200, 'application/x-protobuf', '');
    const ok = await probeCollector(buildConfig({}, { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: collector }).exporter);
    expect(ok.status).toBe('ok');
  });
});
