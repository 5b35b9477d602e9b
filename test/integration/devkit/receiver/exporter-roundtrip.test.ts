// The real OTLP log exporters (protobuf and JSON) against the real receiver over real sockets:
// what the exporter sends must come out of the receiver's decoder value for value.
import { connect } from 'node:net';
import { diag, DiagLogLevel, type DiagLogger } from '@opentelemetry/api';
import { ExportResultCode } from '@opentelemetry/core';
import type { LogRecordExporter } from '@opentelemetry/sdk-logs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startReceiver, type Receiver } from '../../../../src/devkit/receiver/server.js';
import {
  createExporter,
  exportRecords,
  logRecord,
  PROTOCOLS,
  type ExporterOptions,
  type Protocol,
} from './exporters.js';

const CONTENT_TYPES: Record<Protocol, string> = {
  'http/protobuf': 'application/x-protobuf',
  'http/json': 'application/json',
};

function connectionError(url: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) });
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });
}

describe.each(PROTOCOLS)('%s exporter → receiver', (protocol) => {
  let receiver: Receiver;
  const exporters: LogRecordExporter[] = [];
  const exporter = (options: ExporterOptions = {}): LogRecordExporter => {
    const created = createExporter(protocol, { url: receiver.logsUrl, timeoutMillis: 2_000, ...options });
    exporters.push(created);
    return created;
  };

  beforeEach(async () => {
    receiver = await startReceiver();
  });

  afterEach(async () => {
    await Promise.all(exporters.splice(0).map((e) => e.shutdown()));
    await receiver.close();
    vi.unstubAllEnvs();
  });

  it('delivers every field; time_unix_nano is exactly ts × 1000', async () => {
    const result = await exportRecords(exporter(), [
      logRecord({
        severityNumber: 17,
        severityText: 'ERROR',
        eventName: 'browser.console_error',
        body: { message: 'boom', level: 'error' },
        attributes: { 'browser.session.id': 's-1', 'browser.telemetry.seq': 42, 'log.record.uid': 's-1:42' },
      }),
    ]);
    expect(result.code).toBe(ExportResultCode.SUCCESS);
    expect(receiver.records).toStrictEqual([
      {
        resource: expect.objectContaining({
          'service.name': 'bridge-test',
          'service.instance.id': 'instance-1',
        }) as unknown,
        scope: { name: 'browser-telemetry-bridge', version: '0.1.0' },
        timeUnixNano: 1732100000123456000n,
        observedTimeUnixNano: 1732100000128456000n,
        severityNumber: 17,
        severityText: 'ERROR',
        eventName: 'browser.console_error',
        body: { message: 'boom', level: 'error' },
        attributes: { 'browser.session.id': 's-1', 'browser.telemetry.seq': 42, 'log.record.uid': 's-1:42' },
      },
    ]);
    expect(receiver.requests).toHaveLength(1);
    expect(receiver.requests[0]).toMatchObject({
      contentType: CONTENT_TYPES[protocol],
      records: 1,
      rejected: 0,
      status: 200,
    });
  });

  it('keeps nested maps, arrays, nulls, unicode, int vs double, bytes and 64-bit ints', async () => {
    const body = {
      nested: { list: [1, 2.5, null, 'ü 🚀 日本', true, { deep: [] }], empty: {} },
      nothing: null,
      int: 7,
      integralDouble: 3.0,
      double: 0.1,
      negative: -42,
      zero: 0,
      big: 2 ** 60,
      text: '',
      raw: new Uint8Array([0, 1, 254, 255]),
    };
    const attributes = { ratio: 0.25, count: 3, flag: false, tags: ['a', 'b'], codes: [200, 404] };
    expect((await exportRecords(exporter(), [logRecord({ body, attributes })])).code).toBe(ExportResultCode.SUCCESS);
    const [record] = receiver.records;
    expect(record?.body).toStrictEqual({
      nested: { list: [1, 2.5, null, 'ü 🚀 日本', true, { deep: [] }], empty: {} },
      nothing: null,
      int: 7,
      integralDouble: 3, // an integral JS number is sent as int_value; nothing tells it apart from 3
      double: 0.1,
      negative: -42,
      zero: 0,
      big: 2n ** 60n, // sent as int_value, beyond 2^53 on the way back
      text: '',
      raw: new Uint8Array([0, 1, 254, 255]),
    });
    expect(record?.attributes).toStrictEqual(attributes);
  });

  it('an undefined and a null body both arrive as null', async () => {
    // protobuf leaves the field out for undefined and sends an empty AnyValue for null; JSON sends {} for both.
    await exportRecords(exporter(), [
      logRecord({ body: undefined }),
      logRecord({ body: null }),
      logRecord({ body: 'text' }),
    ]);
    expect(receiver.records.map((r) => r.body)).toStrictEqual([null, null, 'text']);
  });

  it('encodes NaN faithfully in protobuf only (JSON.stringify turns it into null)', async () => {
    await exportRecords(exporter(), [logRecord({ body: { nan: NaN, inf: Infinity } })]);
    const body = receiver.records[0]?.body as Record<string, unknown>;
    if (protocol === 'http/protobuf') expect(body).toStrictEqual({ nan: NaN, inf: Infinity });
    else expect(body).toStrictEqual({ nan: null, inf: null });
  });

  it('keeps records in order within a request and across requests', async () => {
    const e = exporter();
    await exportRecords(e, [logRecord({ eventName: 'a' }), logRecord({ eventName: 'b' })]);
    await exportRecords(e, [logRecord({ eventName: 'c' })]);
    expect(receiver.records.map((r) => r.eventName)).toStrictEqual(['a', 'b', 'c']);
    expect(receiver.requests.map((r) => r.records)).toStrictEqual([2, 1]);
  });

  it('decodes gzip-compressed requests', async () => {
    const records = Array.from({ length: 50 }, (_, i) =>
      logRecord({ body: `message ${i} `.repeat(20), attributes: { i } }),
    );
    expect((await exportRecords(exporter({ compression: 'gzip' }), records)).code).toBe(ExportResultCode.SUCCESS);
    expect(receiver.records.map((r) => r.attributes['i'])).toStrictEqual(records.map((_, i) => i));
    const [request] = receiver.requests;
    expect(request?.contentEncoding).toBe('gzip');
    // Repetitive bodies compress well: the wire size shows the body really was compressed.
    expect(request?.bytes).toBeLessThan(50 * 20 * 10);
  });

  it('records request headers from the config and from OTEL_EXPORTER_OTLP_HEADERS', async () => {
    vi.stubEnv('OTEL_EXPORTER_OTLP_HEADERS', 'x-tenant=tenant-1,authorization=Bearer%20secret');
    await exportRecords(exporter({ headers: { 'x-scope': 'tests' } }), [logRecord()]);
    expect(receiver.requests[0]?.headers).toMatchObject({
      'x-tenant': 'tenant-1',
      authorization: 'Bearer secret',
      'x-scope': 'tests',
      'content-type': CONTENT_TYPES[protocol],
    });
    expect(receiver.requests[0]?.headers['user-agent']).toMatch(/^OTel-OTLP-Exporter-JavaScript\//);
  });

  it('is found through OTEL_EXPORTER_OTLP_ENDPOINT (base URL; the exporter appends /v1/logs)', async () => {
    vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', receiver.url);
    const e = createExporter(protocol, { timeoutMillis: 2_000 });
    exporters.push(e);
    expect((await exportRecords(e, [logRecord()])).code).toBe(ExportResultCode.SUCCESS);
    expect(receiver.records).toHaveLength(1);
  });

  it('503 on every request: the exporter reports FAILED and nothing is kept', async () => {
    receiver.behaviour.status = 503;
    // A backoff (≈1 s ± 20 %) longer than the remaining timeout makes the exporter give up at once.
    const result = await exportRecords(exporter({ timeoutMillis: 500 }), [logRecord()]);
    expect(result.code).toBe(ExportResultCode.FAILED);
    expect(receiver.records).toHaveLength(0);
    expect(receiver.requests.map((r) => [r.status, r.records])).toStrictEqual([[503, 1]]);
  });

  it('a 4xx is final: FAILED at once, no retry, even with time left', async () => {
    receiver.behaviour.status = 400;
    const result = await exportRecords(exporter({ timeoutMillis: 5_000 }), [logRecord()]);
    expect(result.code).toBe(ExportResultCode.FAILED);
    expect(receiver.requests.map((r) => r.status)).toStrictEqual([400]);
  });

  it('an answer slower than the exporter timeout: FAILED, yet the receiver accepted the records', async () => {
    // The source of at-least-once duplicates: the collector kept the batch, the client never heard.
    receiver.behaviour.delayMs = 600;
    const result = await exportRecords(exporter({ timeoutMillis: 300 }), [logRecord({ eventName: 'late' })]);
    expect(result.code).toBe(ExportResultCode.FAILED);
    expect(String(result.error)).toContain('Request timed out');
    await receiver.waitFor((records) => records.length === 1, 2_000);
  });

  it('failNext: the exporter retries by itself and the records arrive once', async () => {
    // Retry-After: 0 is read by the exporter as "retry now", which keeps this test fast.
    receiver.behaviour = { failNext: 2, retryAfterSeconds: 0 };
    const result = await exportRecords(exporter({ timeoutMillis: 5_000 }), [logRecord()]);
    expect(result.code).toBe(ExportResultCode.SUCCESS);
    expect(receiver.requests.map((r) => r.status)).toStrictEqual([503, 503, 200]);
    expect(receiver.records).toHaveLength(1);
    expect(receiver.behaviour.failNext).toBe(0);
  });

  it('partial success: the exporter still reports SUCCESS, the receiver keeps only the accepted records', async () => {
    const warnings: unknown[][] = [];
    const logger: DiagLogger = {
      error: () => undefined,
      warn: (...args: unknown[]) => void warnings.push(args),
      info: () => undefined,
      debug: () => undefined,
      verbose: () => undefined,
    };
    diag.setLogger(logger, DiagLogLevel.WARN);
    try {
      receiver.behaviour.rejectRecords = (r) => r.attributes['reject'] === true;
      const result = await exportRecords(exporter(), [
        logRecord({ eventName: 'keep-1' }),
        logRecord({ eventName: 'drop', attributes: { reject: true } }),
        logRecord({ eventName: 'keep-2' }),
      ]);
      expect(result.code).toBe(ExportResultCode.SUCCESS);
      expect(receiver.records.map((r) => r.eventName)).toStrictEqual(['keep-1', 'keep-2']);
      expect(receiver.requests[0]).toMatchObject({ records: 3, rejected: 1, status: 200 });
      // The exporter decoded our partial_success (it only logs it): proof the answer is well-formed.
      const partial = warnings.find((w) => w[0] === 'Received Partial Success response:');
      expect(JSON.parse(String(partial?.[1]))).toStrictEqual({
        rejectedLogRecords: protocol === 'http/protobuf' ? 1 : '1',
        errorMessage: "1 log record(s) rejected by the receiver's behaviour",
      });
    } finally {
      diag.disable();
    }
  });

  it('stop() is a down collector (connection refused); start() serves again on the same port', async () => {
    const e = exporter({ timeoutMillis: 500 });
    expect((await exportRecords(e, [logRecord({ eventName: 'before' })])).code).toBe(ExportResultCode.SUCCESS);
    const url = receiver.url;

    await receiver.stop();
    expect(await connectionError(url)).toBe('ECONNREFUSED');
    const down = await exportRecords(e, [logRecord({ eventName: 'while-down' })]);
    expect(down.code).toBe(ExportResultCode.FAILED);
    const downError: NodeJS.ErrnoException | undefined = down.error;
    expect(downError?.code).toBe('ECONNREFUSED');

    await receiver.start();
    expect(receiver.url).toBe(url);
    expect((await exportRecords(e, [logRecord({ eventName: 'after' })])).code).toBe(ExportResultCode.SUCCESS);
    expect(receiver.records.map((r) => r.eventName)).toStrictEqual(['before', 'after']);
  });
});
