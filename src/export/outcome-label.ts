// The `outcome` label of bridge_export_requests_total for one export: success, http_<status>,
// grpc_<code name> (grpc_unavailable, grpc_resource_exhausted, …), timeout or network. Each
// transport says what the collector answered; this is the one place that names it.
import { grpcCodeName } from './grpc-outcome.js';
import type { ExportOutcome } from './otlp-transport.js';

export function outcomeLabel(o: ExportOutcome): string {
  if (o.kind === 'success') return 'success';
  if (o.grpcCode !== undefined) return `grpc_${grpcCodeName(o.grpcCode).toLowerCase()}`;
  if (o.status !== undefined) return `http_${o.status}`;
  return o.message === 'timeout' ? 'timeout' : 'network';
}
