// The benchmark's sink as the benchmark runs it: a child process on a real socket, fed protobuf,
// gzip and JSON export requests; it must count records (not requests), spot duplicates, and refuse
// on command for the outage scenario.
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sinkFail, sinkOk, sinkStats, sinkSteady, startPeer, type Peer } from '../../../bench/peers.js';
import { nowMicros } from '../../../bench/sink-tally.js';
import { otlpSchema } from '../../../src/devkit/receiver/otlp-schema.js';

let sink: Peer;
beforeAll(async () => {
  sink = await startPeer('bench/sink.ts');
});
afterAll(async () => {
  await sink?.stop();
});

function request(uids: string[], tsMicros: number): Record<string, unknown> {
  return {
    resourceLogs: [
      {
        scopeLogs: [
          {
            logRecords: uids.map((u) => ({
              timeUnixNano: String(BigInt(tsMicros) * 1000n),
              attributes: [{ key: 'log.record.uid', value: { stringValue: u } }],
            })),
          },
        ],
      },
    ],
  };
}

const protobuf = (req: Record<string, unknown>): Buffer => {
  const type = otlpSchema().exportLogsRequest;
  return Buffer.from(type.encode(type.fromObject(req)).finish());
};

async function post(body: Buffer | string, contentType: string, gzip = false): Promise<number> {
  const res = await fetch(`${sink.url}/v1/logs`, {
    method: 'POST',
    headers: { 'content-type': contentType, ...(gzip ? { 'content-encoding': 'gzip' } : {}) },
    body: gzip ? gzipSync(body) : body,
  });
  await res.arrayBuffer();
  return res.status;
}

describe('bench sink', () => {
  it('counts records, duplicates and latency across protobuf, gzip and JSON; refuses while failing', async () => {
    const ts = Math.floor(nowMicros()) - 250_000; // produced 250 ms ago
    expect(await post(protobuf(request(['s:1', 's:2', 's:3'], ts)), 'application/x-protobuf')).toBe(200);
    expect(await post(protobuf(request(['s:3', 't:1'], ts)), 'application/x-protobuf', true)).toBe(200);
    expect(await post(JSON.stringify(request(['t:2'], ts)), 'application/json')).toBe(200);

    await sinkFail(sink.url, 503);
    expect(await post(protobuf(request(['s:4'], ts)), 'application/x-protobuf')).toBe(503);
    await sinkOk(sink.url);
    expect(await post(Buffer.from([0x0a, 0x05, 0x12]), 'application/x-protobuf')).toBe(400);

    const stats = await sinkStats(sink.url);
    expect(stats).toMatchObject({
      requests: 3,
      refused: 1,
      bad: 1,
      records: 6,
      unique: 5,
      duplicates: 1,
      withoutUid: 0,
    });
    expect(stats.latency.count).toBe(6);
    expect(stats.latency.p50Ms).toBeGreaterThanOrEqual(250);
    expect(stats.latency.maxMs).toBeLessThan(60_000);
    expect(stats.steadyLatency).toBeNull();

    // After the steady mark, only the events produced from then on are timed apart.
    await sinkSteady(sink.url);
    const later = Math.floor(nowMicros()) + 1_000;
    expect(await post(protobuf(request(['u:1'], ts)), 'application/x-protobuf')).toBe(200);
    expect(await post(protobuf(request(['u:2', 'u:3'], later)), 'application/x-protobuf')).toBe(200);
    const after = await sinkStats(sink.url);
    expect(after.latency.count).toBe(9);
    expect(after.steadyLatency?.count).toBe(2);
  });
});
