// The `outcome` label of bridge_export_requests_total for one export: success, http_<status>,
// grpc_<code name> (grpc_unavailable, grpc_resource_exhausted, …), timeout or network. Each
// transport says what the collector answered; this is the one place that names it, and the words
// lastError gives it.
import { grpcCodeName } from './grpc-outcome.js';
import type { ExportOutcome } from './otlp-transport.js';

export function outcomeLabel(o: ExportOutcome): string {
  if (o.kind === 'success') return 'success';
  if (o.grpcCode !== undefined) return `grpc_${grpcCodeName(o.grpcCode).toLowerCase()}`;
  if (o.status !== undefined) return `http_${o.status}`;
  return o.kind === 'retryable' && o.timeoutMs !== undefined ? 'timeout' : 'network';
}

/**
 * What a failed export says in lastError (/readyz, top, check of a running bridge): the outcome's
 * own words, once. A timeout's message names it and its length, a status's starts with it
 * (`HTTP 503: …`, `UNAVAILABLE: …`); prefixing the label repeated them ("timeout: timeout"). A
 * network failure's message is a bare code (ECONNREFUSED): the label says what kind it is.
 */
export function failureText(o: Exclude<ExportOutcome, { kind: 'success' }>): string {
  return outcomeLabel(o) === 'network' ? `network: ${o.message}` : o.message;
}
