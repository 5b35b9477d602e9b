// `demo` as a person runs it, small: the whole pipeline with its kill -9, over OTLP/gRPC, traces on.
import { describe, expect, it } from 'vitest';
import { runCli } from './cli-process.js';

describe('demo', () => {
  it('--protocol grpc delivers every event to the receiver over OTLP/gRPC, through the kill -9', async () => {
    const started = Date.now();
    const res = await runCli(
      ['demo', '--protocol', 'grpc', '--sessions', '2', '--events', '400', '--rate', '400'],
      {},
      100_000,
    );
    // The sessions end once everything arrived, even when all was delivered before the kill: the
    // demo does not sit out its 60 s deadline.
    expect(Date.now() - started).toBeLessThan(45_000);
    expect(res.stdout, res.stderr).toMatch(/^receiver {3}http:\/\/127\.0\.0\.1:\d+ {3}\(grpc\)$/m);
    expect(res.stdout).toMatch(/>>> kill -9 \d+/);
    expect(res.stdout).toMatch(/^✓ every event delivered: /m);
    // Traces on (BRIDGE_TRACES): spans through the kill -9 too, records pointing at them, a waterfall.
    expect(res.stdout).toMatch(/^Spans: [1-9]\d* received; [1-9]\d* of \d+ records point at one/m);
    expect(res.stdout).toMatch(/^ {2}span +offset +duration +status +timeline$/m);
    expect(res.code).toBe(0);
  }, 120_000);

  it('emits exactly the events its header announces, and says why one session has one more', async () => {
    const res = await runCli(
      ['demo', '--no-crash', '--sessions', '2', '--events', '300', '--rate', '600'],
      {},
      100_000,
    );
    expect(res.stdout).toMatch(
      /^simulator .*\(2 sessions, 2 more appearing while the daemon runs, 300 events each at 600\/s; demo-session-2 gets one more, a frame broken on the wire\)$/m,
    );
    const final = res.stdout.slice(res.stdout.indexOf('Final:'));
    expect(final).toMatch(/^ {2}demo-session-1 +emitted +300 +delivered +300 /m);
    expect(final).toMatch(/^ {2}demo-session-2 +emitted +301 +delivered +301 /m);
    expect(res.code).toBe(0);
  }, 120_000);

  it('refuses a protocol it does not know, naming the three', async () => {
    const res = await runCli(['demo', '--protocol', 'thrift'], {});
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('--protocol must be http/protobuf, http/json or grpc');
  });
});
