// Spans to a real receiver over loopback: HTTP protobuf, HTTP JSON and gRPC, from a configuration
// (BRIDGE_TRACES, /v1/traces on the same base endpoint); and a collector without a traces pipeline
// (404, UNIMPLEMENTED), said once and counted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConfig } from '../../../src/config/load-config.js';
import type { OtlpProtocol } from '../../../src/config/schema.js';
import { createTransport } from '../../../src/export/create-transport.js';
import { createSpanExport } from '../../../src/export/span-export.js';
import { startReceiver, type Receiver } from '../../../src/devkit/receiver/server.js';
import { createSpanBuilder } from '../../../src/traces/span-builder.js';
import { createSpanEncoder } from '../../../src/wire/encode-span.js';
import { createRequestBuilder } from '../../../src/wire/otlp-request.js';
import type { BridgeSpan } from '../../../src/vocabulary/span.js';
import type { Fact } from '../../../src/vocabulary/facts.js';
import { PAGE_LOAD, SESSION, envelopes, mapped } from '../../unit/traces/script.js';

function pageLoadSpans(): BridgeSpan[] {
  const b = createSpanBuilder(SESSION);
  const out: BridgeSpan[] = [];
  for (const env of envelopes(PAGE_LOAD)) out.push(...b.observe(env, mapped(env)).finished);
  return [...out, ...b.end()];
}

async function exportTo(receiver: Receiver, protocol: OtlpProtocol) {
  const endpoint = protocol === 'grpc' ? receiver.grpcUrl! : receiver.url;
  const config = buildConfig(
    {},
    {
      BROWSER_API_URL: 'http://svc.test',
      BROWSER_API_KEY: 'k',
      BRIDGE_TRACES: 'true',
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
    },
  );
  const ex = config.traces.exporter;
  const transport = await createTransport(ex, { userAgent: 'test', signal: 'traces' });
  const facts: Fact[] = [];
  let decided!: () => void;
  const decision = new Promise<void>((resolve) => (decided = resolve));
  const exporter = createSpanExport({
    transport,
    request: createRequestBuilder(
      ex.protocol,
      { resource: { 'service.name': 'bridge' }, scope: { name: 't', version: '1' } },
      'traces',
    ),
    emit: (f) => {
      facts.push(f);
      if (f.f === 'spans_exported' || f.f === 'traces_unsupported') decided();
    },
    batchMaxSpans: 100,
    maxQueuedBytes: 1 << 20,
    backoff: { initialMs: 10, maxMs: 10 },
  });
  const encode = createSpanEncoder();
  exporter.start();
  exporter.offer(pageLoadSpans().map((s) => encode(s)));
  const done = async () => {
    await decision;
    await exporter.shutdown(Date.now() + 1000);
    await transport.close();
    return facts;
  };
  return { url: transport.url, done };
}

describe('spans to a collector', () => {
  let receiver: Receiver;
  let without: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver({ grpc: {} });
    without = await startReceiver({ grpc: {}, traces: false });
  });
  afterAll(async () => {
    await receiver.close();
    await without.close();
  });

  for (const protocol of ['http/protobuf', 'http/json', 'grpc'] as const) {
    it(`${protocol}: one trace, its navigation the root, every request its child`, async () => {
      const before = receiver.spans.length;
      const run = await exportTo(receiver, protocol);
      if (protocol !== 'grpc') expect(run.url).toBe(`${receiver.url}/v1/traces`);
      const facts = await run.done();
      expect(facts).toEqual([{ f: 'spans_exported', count: 4 }]);
      const got = receiver.spans.slice(before);
      expect(got).toHaveLength(4);
      const root = got.find((s) => s.parentSpanId === undefined)!;
      expect(root.name).toBe('https://shop.example.com/cart');
      for (const s of got) expect(s.traceId).toBe(root.traceId);
      expect(got.filter((s) => s.parentSpanId === root.spanId)).toHaveLength(3);
      expect(receiver.records).toHaveLength(0);
    });
  }

  for (const protocol of ['http/protobuf', 'grpc'] as const) {
    it(`${protocol}: a collector without a traces pipeline is said once and counted, nothing sent is lost`, async () => {
      const run = await exportTo(without, protocol);
      const facts = await run.done();
      expect(facts[0]).toMatchObject(
        protocol === 'grpc' ? { f: 'traces_unsupported', grpcCode: 12 } : { f: 'traces_unsupported', status: 404 },
      );
      expect(facts.filter((f) => f.f === 'traces_unsupported')).toHaveLength(1);
      expect(facts.at(-1)).toEqual({ f: 'spans_dropped', count: 4, reason: 'shutdown', times: 1 });
      expect(without.spans).toHaveLength(0);
    });
  }
});
