// `check` against a collector (or a proxy before it) that gzips its answer: check reads at most
// 64 KiB of it, decoded, as the exporter does (export/otlp-transport.ts). A small gzip holding an OTLP
// answer is a collector's answer; one that unpacks past 64 KiB is cut in the decoding, no OTLP answer,
// and must be reported as over the cap, not as the few hundred bytes it came packed in. The CLI runs
// as a child process, before a real loopback front that answers for the receiver.
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../../../src/devkit/receiver/server.js';
import { startSimulator, type Simulator } from '../../../src/devkit/simulator/index.js';
import { collectorFront, type FrontAnswer } from '../../helpers/collector-front.js';
import { gzippedOtlpAnswer } from '../../helpers/otlp-answer-bomb.js';
import { runCli } from './cli-process.js';

const KEY = 'sk-check-gzip';
const PROTOBUF = 'application/x-protobuf';

let sim: Simulator;
let receiver: Receiver;
let front: Server | undefined;
let dir: string;

beforeEach(async () => {
  sim = await startSimulator({ apiKeys: [KEY] });
  receiver = await startReceiver();
  dir = mkdtempSync(join(tmpdir(), 'check-gzip-'));
  sim.createSession('s1');
});

afterEach(async () => {
  front?.closeAllConnections();
  if (front) await new Promise((r) => front!.close(r));
  front = undefined;
  await sim.close();
  await receiver.close();
  rmSync(dir, { recursive: true, force: true });
});

/** `check` with its collector behind a front that answers every request with `answer`. */
async function checkBehind(answer: FrontAnswer): Promise<{ code: number | null; collector: string }> {
  const f = await collectorFront(receiver.url, () => answer);
  front = f.server;
  const res = await runCli(['check'], {
    BROWSER_API_URL: sim.url,
    BROWSER_API_KEY: KEY,
    BRIDGE_SESSIONS: 's1',
    BRIDGE_STATE_DIR: join(dir, 'state'),
    OTEL_EXPORTER_OTLP_ENDPOINT: f.url,
  });
  return { code: res.code, collector: res.stdout.split('\n').find((l) => / collector /.test(l)) ?? res.stdout };
}

describe('check and a gzipped answer', () => {
  it('a small gzip holding an OTLP answer (an empty partial success) is a collector: ✓, exit 0', async () => {
    // ExportLogsServiceResponse { partial_success: {} }: field 1, length 0.
    const body = gzipSync(Buffer.from([0x0a, 0x00]));
    const res = await checkBehind({
      status: 200,
      contentType: PROTOBUF,
      body,
      headers: { 'content-encoding': 'gzip' },
    });
    expect(res.collector).toMatch(
      /^✓ collector\s+http:\/\/127\.0\.0\.1:\d+\/v1\/logs accepted an empty export \(200, http\/protobuf\)$/,
    );
    expect(res.code).toBe(0);
  });

  it('a gzip that unpacks past 64 KiB is cut in the decoding: ✗ "over 65536 bytes", exit 1', async () => {
    // 100 KiB of a well-formed OTLP answer (a partial success whose message is long), packed into a
    // few hundred bytes: the read is not cut, the decoding is.
    const body = gzippedOtlpAnswer(100 * 1024);
    expect(body.length).toBeLessThan(1024);
    const res = await checkBehind({
      status: 200,
      contentType: PROTOBUF,
      body,
      headers: { 'content-encoding': 'gzip' },
    });
    expect(res.collector).toMatch(
      /^✗ collector\s+.* answered 200 \(http\/protobuf\) with application\/x-protobuf that is not an OTLP response \(over 65536 bytes\)/,
    );
    expect(res.code).toBe(1);
  });
});
