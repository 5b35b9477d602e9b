// `check`'s collector probe for OTLP/gRPC: an empty ExportLogsServiceRequest (zero bytes) sent by
// the daemon's own gRPC transport, so the probe passes exactly where `run` can deliver (the same
// address, TLS decision, CA, client certificate, metadata and compression). The transport makes
// one attempt and does not wait for a connection, so a refused one is reported at once.
import type { ExporterConfig } from '../config/schema.js';
import { createTransport, USER_AGENT } from '../export/create-transport.js';
import { GRPC } from '../export/grpc-outcome.js';
import type { ExportOutcome } from '../export/otlp-transport.js';
import { displayUrl } from '../mapping/display-url.js';
import { certificateProblem } from '../util/network-message.js';
import type { CheckItem } from './checklist.js';

export async function probeGrpcCollector(cfg: ExporterConfig): Promise<CheckItem> {
  const label = 'collector';
  const where = displayUrl(cfg.url);
  const how = `grpc, ${cfg.url.startsWith('https:') ? 'TLS' : 'plaintext'}${cfg.compression === 'gzip' ? ', gzip' : ''}`;
  const transport = await createTransport(cfg, { userAgent: `${USER_AGENT} (check)` });
  try {
    const outcome = await transport.send([], 'application/x-protobuf');
    if (outcome.kind === 'success')
      return { label, status: 'ok', detail: `${where} accepted an empty export (OK, ${how})` };
    return { label, status: 'fail', detail: `${where} (${how}): ${outcome.message}; ${grpcHint(outcome, cfg)}` };
  } finally {
    await transport.close();
  }
}

/** What a failed probe most likely means, and what to change. */
function grpcHint(o: Exclude<ExportOutcome, { kind: 'success' }>, cfg: ExporterConfig): string {
  const m = o.message;
  if (o.grpcCode === GRPC.UNAUTHENTICATED || o.grpcCode === GRPC.PERMISSION_DENIED) {
    return Object.keys(cfg.headers).length > 0
      ? 'the collector refused the credentials in the configured headers (OTEL_EXPORTER_OTLP_HEADERS)'
      : 'the collector wants credentials and none are configured: set them with OTEL_EXPORTER_OTLP_HEADERS';
  }
  if (o.grpcCode === GRPC.UNIMPLEMENTED)
    return 'this gRPC server offers no OTLP logs service (is it an OpenTelemetry Collector with an otlp receiver?)';
  if (/ECONNREFUSED/.test(m)) return 'connection refused: nothing listens there (the OTLP/gRPC port is usually 4317)';
  if (/Protocol error/.test(m))
    return 'this port does not speak gRPC (an OTLP/HTTP port? those are usually 4318: use OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf there)';
  if (/wrong version number/.test(m))
    return 'TLS against a plaintext port: write the endpoint with http:// (or set OTEL_EXPORTER_OTLP_INSECURE=true for an endpoint without a scheme)';
  // Only an unknown signer is fixed by a CA setting: an expired certificate or another host's is not.
  const certificate = certificateProblem(m);
  if (certificate !== undefined && certificate.kind !== 'unknown_signer') return certificate.words;
  if (/certificate|CERT_|self.signed/i.test(m))
    return "the collector's certificate is not trusted: set OTEL_EXPORTER_OTLP_CERTIFICATE to the CA that signed it";
  if (/Failed to connect/.test(m) && cfg.url.startsWith('http:'))
    return 'no plaintext gRPC there: if the collector uses TLS, write the endpoint with https://';
  if (/Name resolution failed/.test(m)) return 'host not found';
  if (o.grpcCode === GRPC.DEADLINE_EXCEEDED) return `no answer within ${cfg.timeoutMs} ms`;
  return o.kind === 'retryable' ? 'the daemon would retry' : 'the collector refused the request';
}
