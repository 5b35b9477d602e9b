// `demo` as a person runs it, small: the whole pipeline with its kill -9, over OTLP/gRPC.
import { describe, expect, it } from 'vitest';
import { runCli } from './cli-process.js';

describe('demo', () => {
  it('--protocol grpc delivers every event to the receiver over OTLP/gRPC, through the kill -9', async () => {
    const res = await runCli(['demo', '--protocol', 'grpc', '--sessions', '2', '--events', '400', '--rate', '400'], {}, 100_000);
    expect(res.stdout, res.stderr).toMatch(/^receiver {3}http:\/\/127\.0\.0\.1:\d+ {3}\(grpc\)$/m);
    expect(res.stdout).toMatch(/>>> kill -9 \d+/);
    expect(res.stdout).toMatch(/^✓ every event delivered: /m);
    expect(res.code).toBe(0);
  }, 120_000);

  it('refuses a protocol it does not know, naming the three', async () => {
    const res = await runCli(['demo', '--protocol', 'thrift'], {});
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('--protocol must be http/protobuf, http/json or grpc');
  });
});
