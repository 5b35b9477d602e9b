// The receiver's HTTP behaviour with hand-made requests: status codes, answers in the request's
// encoding, failure injection, size limits and the lifecycle.
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ReceivedLogRecord } from '../../../../src/devkit/receiver/decode.js';
import { otlpSchema } from '../../../../src/devkit/receiver/otlp-schema.js';
import { startReceiver, type Receiver } from '../../../../src/devkit/receiver/server.js';

const PROTOBUF = 'application/x-protobuf';
const JSON_TYPE = 'application/json';

function jsonRequest(eventNames: string[]): string {
  return JSON.stringify({
    resourceLogs: [
      { scopeLogs: [{ scope: { name: 's' }, logRecords: eventNames.map((eventName) => ({ eventName })) }] },
    ],
  });
}

function protobufRequest(eventNames: string[]): Uint8Array {
  const type = otlpSchema().exportLogsRequest;
  return type.encode(type.fromObject(JSON.parse(jsonRequest(eventNames)) as Record<string, unknown>)).finish();
}

function decodeStatus(body: ArrayBuffer): unknown {
  const type = otlpSchema().status;
  return type.toObject(type.decode(new Uint8Array(body)));
}

describe('receiver HTTP surface', () => {
  let receiver: Receiver;

  beforeEach(async () => {
    receiver = await startReceiver();
  });

  afterEach(async () => {
    await receiver.close();
  });

  const post = (body: string | Uint8Array, headers: Record<string, string>, path = '/v1/logs'): Promise<Response> =>
    fetch(`${receiver.url}${path}`, { method: 'POST', headers, body });

  it('accepts OTLP/JSON with a charset parameter and answers {} as JSON', async () => {
    const res = await post(jsonRequest(['a', 'b']), { 'content-type': 'application/json; charset=utf-8' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(JSON_TYPE);
    expect(await res.json()).toStrictEqual({});
    expect(receiver.records.map((r) => r.eventName)).toStrictEqual(['a', 'b']);
    expect(receiver.requests[0]).toMatchObject({
      contentType: 'application/json; charset=utf-8',
      records: 2,
      status: 200,
    });
  });

  it('answers a protobuf request with an empty protobuf ExportLogsServiceResponse', async () => {
    const body = protobufRequest(['a']);
    const res = await post(body, { 'content-type': PROTOBUF });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(PROTOBUF);
    expect((await res.arrayBuffer()).byteLength).toBe(0);
    expect(receiver.requests[0]).toMatchObject({ bytes: body.byteLength, records: 1 });
  });

  it('404 for other paths, 405 for other methods, 415 for other content types and encodings', async () => {
    expect((await post(jsonRequest(['a']), { 'content-type': JSON_TYPE }, '/v1/metrics')).status).toBe(404);
    const get = await fetch(receiver.logsUrl);
    expect([get.status, get.headers.get('allow')]).toStrictEqual([405, 'POST']);
    const text = await post('hello', { 'content-type': 'text/plain' });
    expect(text.status).toBe(415);
    expect(await text.text()).toContain('use application/x-protobuf or application/json');
    expect((await post(jsonRequest(['a']), { 'content-type': JSON_TYPE, 'content-encoding': 'br' })).status).toBe(415);
    expect(receiver.records).toHaveLength(0);
    expect(receiver.requests.map((r) => r.status)).toStrictEqual([404, 405, 415, 415]);
  });

  it('400 with a google.rpc.Status in the request encoding for an undecodable body', async () => {
    const proto = await post(new Uint8Array([0x0a, 0x64, 0x01]), { 'content-type': PROTOBUF });
    expect(proto.status).toBe(400);
    expect(decodeStatus(await proto.arrayBuffer())).toMatchObject({
      code: 3,
      message: expect.stringMatching(/^invalid protobuf/) as unknown,
    });

    const badTime = '{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"timeUnixNano":"later"}]}]}]}';
    const json = await post(badTime, { 'content-type': JSON_TYPE });
    expect(json.status).toBe(400);
    expect(await json.json()).toStrictEqual({
      code: 3,
      message: 'resourceLogs[0].scopeLogs[0].logRecords[0]: timeUnixNano must be an integer, got "later"',
    });
    expect(receiver.records).toHaveLength(0);
  });

  it('gzip: decodes a compressed body, 400 on a corrupt one', async () => {
    const ok = await post(gzipSync(jsonRequest(['zipped'])), { 'content-type': JSON_TYPE, 'content-encoding': 'gzip' });
    expect(ok.status).toBe(200);
    expect(receiver.records.map((r) => r.eventName)).toStrictEqual(['zipped']);
    const bad = await post('not gzip at all', { 'content-type': JSON_TYPE, 'content-encoding': 'gzip' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { message: string }).message).toMatch(/^invalid gzip body/);
  });

  it('413 above maxBodyBytes, on the wire and after decompression', async () => {
    receiver.behaviour.maxBodyBytes = 1_000;
    const large = jsonRequest(Array.from({ length: 100 }, (_, i) => `event-${i}`));
    expect((await post(large, { 'content-type': JSON_TYPE })).status).toBe(413);
    const compressed = gzipSync(large);
    expect(compressed.byteLength).toBeLessThan(1_000);
    const res = await post(compressed, { 'content-type': JSON_TYPE, 'content-encoding': 'gzip' });
    expect(res.status).toBe(413);
    expect(await res.json()).toStrictEqual({ code: 8, message: 'decompressed request body exceeds 1000 bytes' });
    expect(receiver.records).toHaveLength(0);
    // The connection survives the 413: the next request on it works.
    receiver.behaviour.maxBodyBytes = undefined;
    expect((await post(large, { 'content-type': JSON_TYPE })).status).toBe(200);
  });

  it('forced status with Retry-After, answered in the request encoding; nothing kept', async () => {
    receiver.behaviour = { status: 429, retryAfterSeconds: 7 };
    const res = await post(protobufRequest(['a']), { 'content-type': PROTOBUF });
    expect([res.status, res.headers.get('retry-after')]).toStrictEqual([429, '7']);
    expect(decodeStatus(await res.arrayBuffer())).toMatchObject({ code: 8 });
    expect(receiver.records).toHaveLength(0);
    expect(receiver.requests[0]).toMatchObject({ status: 429, records: 1 });
  });

  it('a forced 2xx is a black hole: success answered, nothing kept', async () => {
    receiver.behaviour.status = 200;
    expect((await post(jsonRequest(['lost']), { 'content-type': JSON_TYPE })).status).toBe(200);
    expect(receiver.records).toHaveLength(0);
  });

  it('failNext answers 503 that many times, then recovers', async () => {
    receiver.behaviour.failNext = 2;
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await post(jsonRequest([`e${i}`]), { 'content-type': JSON_TYPE })).status);
    expect(statuses).toStrictEqual([503, 503, 200]);
    expect(receiver.records.map((r) => r.eventName)).toStrictEqual(['e2']);
  });

  it('partial success in JSON carries rejectedLogRecords as an int64 string', async () => {
    receiver.behaviour.rejectRecords = (r) => r.eventName.startsWith('bad');
    const res = await post(jsonRequest(['good', 'bad-1', 'bad-2']), { 'content-type': JSON_TYPE });
    expect(await res.json()).toStrictEqual({
      partialSuccess: { rejectedLogRecords: '2', errorMessage: "2 log record(s) rejected by the receiver's behaviour" },
    });
    expect(receiver.records.map((r) => r.eventName)).toStrictEqual(['good']);
  });

  it('delayMs holds the answer; stop() during the delay drops the request unanswered and unaccepted', async () => {
    receiver.behaviour.delayMs = 200;
    const started = Date.now();
    expect((await post(jsonRequest(['slow']), { 'content-type': JSON_TYPE })).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);

    receiver.behaviour.delayMs = 5_000;
    // The expectation is attached at once: the request fails while stop() is being awaited.
    const dropped = expect(post(jsonRequest(['never']), { 'content-type': JSON_TYPE })).rejects.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 100));
    await receiver.stop();
    await dropped;
    expect(receiver.records.map((r) => r.eventName)).toStrictEqual(['slow']);
    expect(receiver.requests).toHaveLength(1);
  });

  it('waitFor resolves as soon as the predicate holds', async () => {
    const waiting = receiver.waitFor((records) => records.length >= 3, 5_000);
    await post(jsonRequest(['a', 'b']), { 'content-type': JSON_TYPE });
    await post(jsonRequest(['c']), { 'content-type': JSON_TYPE });
    await expect(waiting).resolves.toBeUndefined();
    await expect(receiver.waitFor((records) => records.length === 3, 10)).resolves.toBeUndefined();
  });

  it('waitFor times out with what did arrive', async () => {
    receiver.behaviour.failNext = 1;
    await post(jsonRequest(['x']), { 'content-type': JSON_TYPE });
    await post(jsonRequest(['browser.console_log', 'browser.console_log']), { 'content-type': JSON_TYPE });
    await expect(receiver.waitFor((records) => records.length >= 5, 50)).rejects.toThrow(
      'waitFor timed out after 50 ms: 2 record(s) accepted from 2 request(s) (status 503 ×1, 200 ×1); ' +
        'event names: browser.console_log ×2',
    );
  });

  it('waitFor rejects with the error a predicate throws', async () => {
    const failing = expect(
      receiver.waitFor((records: ReceivedLogRecord[]) => {
        if (records.length > 0) throw new Error('bad record');
        return false;
      }, 5_000),
    ).rejects.toThrow('bad record');
    await post(jsonRequest(['a']), { 'content-type': JSON_TYPE });
    await failing;
  });

  it('lifecycle: stop and start are idempotent; close is final', async () => {
    await Promise.all([receiver.stop(), receiver.stop()]);
    await Promise.all([receiver.start(), receiver.start()]);
    expect((await post(jsonRequest(['a']), { 'content-type': JSON_TYPE })).status).toBe(200);
    await receiver.close();
    await receiver.close();
    await expect(receiver.start()).rejects.toThrow('receiver is closed');
  });
});

describe('receiver options', () => {
  it('onRecord sees every accepted record; retain: false keeps nothing in memory', async () => {
    const seen: string[] = [];
    const receiver = await startReceiver({ retain: false, onRecord: (r) => seen.push(r.eventName) });
    try {
      receiver.behaviour.rejectRecords = (r) => r.eventName === 'no';
      const body = jsonRequest(['yes', 'no', 'also']);
      expect(
        (await fetch(receiver.logsUrl, { method: 'POST', headers: { 'content-type': JSON_TYPE }, body })).status,
      ).toBe(200);
      expect(seen).toStrictEqual(['yes', 'also']);
      expect(receiver.records).toHaveLength(0);
      expect(receiver.requests).toHaveLength(0);
    } finally {
      await receiver.close();
    }
  });

  it('listens on the requested port and host', async () => {
    const first = await startReceiver();
    const port = Number(new URL(first.url).port);
    await first.close();
    const receiver = await startReceiver({ host: '127.0.0.1', port });
    try {
      expect(receiver.url).toBe(`http://127.0.0.1:${port}`);
      expect(receiver.logsUrl).toBe(`http://127.0.0.1:${port}/v1/logs`);
    } finally {
      await receiver.close();
    }
  });
});
