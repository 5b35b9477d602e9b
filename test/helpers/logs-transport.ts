// The exporter's OTLP/HTTP transport to `base`/v1/logs as the transport tests use it: one
// connection, no compression, a 10 s timeout, its facts collected into `facts`.
import { createOtlpTransport } from '../../src/export/otlp-transport.js';
import type { Fact } from '../../src/vocabulary/facts.js';

export function logsTransportTo(base: string, facts: Fact[]): ReturnType<typeof createOtlpTransport> {
  return createOtlpTransport({
    url: `${base}/v1/logs`,
    headers: {},
    compression: 'none',
    timeoutMs: 10_000,
    connections: 1,
    userAgent: 'test',
    emit: (f) => facts.push(f),
  });
}
