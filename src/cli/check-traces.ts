// `check`'s traces endpoint probe, with traces.enabled: an empty ExportTraceServiceRequest (the
// resource and scope, no span) sent by the daemon's own span transport, so it passes exactly where
// `run` can deliver spans (the traces URL, or the OTEL_EXPORTER_OTLP_TRACES_* settings, their
// credentials, CA and protocol). Without it a wrong traces endpoint or credential passed `check`,
// and the daemon then kept every span waiting.
import type { BridgeConfig } from '../config/schema.js';
import { createTransport, USER_AGENT } from '../export/create-transport.js';
import { isNoTracesPipeline } from '../export/span-export.js';
import { displayUrl } from '../mapping/display-url.js';
import { createRequestBuilder } from '../wire/otlp-request.js';
import { resourceAttributes, SCOPE } from '../wire/resource.js';
import type { CheckItem } from './checklist.js';
import { formatElapsed } from './tail-summary.js';

export async function probeTracesEndpoint(config: BridgeConfig): Promise<CheckItem> {
  const label = 'traces';
  const ex = config.traces.exporter;
  const where = displayUrl(ex.url);
  const request = createRequestBuilder(
    ex.protocol,
    { resource: resourceAttributes(config.resource), scope: SCOPE },
    'traces',
  );
  const transport = await createTransport(ex, { userAgent: `${USER_AGENT} (check)`, signal: 'traces' });
  try {
    const outcome = await transport.send(request.build([]), request.contentType);
    if (outcome.kind === 'success')
      return { label, status: 'ok', detail: `${where} accepted an empty span export (${ex.protocol})` };
    if (isNoTracesPipeline(outcome))
      return {
        label,
        status: 'fail',
        detail: `${where} has no traces pipeline (${outcome.message}): spans would wait and be offered again every ${formatElapsed(config.traces.unsupportedRetryMs)} (traces.unsupported_retry); records are not affected (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT names the traces URL)`,
      };
    return {
      label,
      status: 'fail',
      detail: `${where} (${ex.protocol}): ${outcome.message}; spans would wait in their queue and be sent again`,
    };
  } finally {
    await transport.close();
  }
}
