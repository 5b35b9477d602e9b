// Routes the OpenTelemetry SDK's internal diagnostics into the bridge's logger, and picks out
// partial-success answers. The exporter reports a partial success as SUCCESS and only mentions the
// rejected count in a diagnostic warning, so this is the one place it can be counted
// (DESIGN.md "Delivery semantics": loss is never silent).
import { diag, DiagLogLevel, type DiagLogger } from '@opentelemetry/api';
import type { Logger } from 'pino';

const PARTIAL = 'Received Partial Success response:';

export interface PartialSuccess {
  rejected: number;
  message: string;
}

/** Parses the exporter's partial-success diagnostic; null for any other message. */
export function parsePartialSuccess(message: string, args: unknown[]): PartialSuccess | null {
  if (!message.startsWith(PARTIAL)) return null;
  const raw = typeof args[0] === 'string' ? args[0] : message.slice(PARTIAL.length);
  try {
    const v = JSON.parse(raw) as { rejectedLogRecords?: string | number; errorMessage?: string };
    return { rejected: Number(v.rejectedLogRecords ?? 0), message: v.errorMessage ?? '' };
  } catch {
    return { rejected: 0, message: raw };
  }
}

export function installDiagBridge(log: Logger, onPartial: (p: PartialSuccess) => void): void {
  const forward = (level: 'error' | 'warn' | 'debug' | 'trace') => (message: string, ...args: unknown[]) => {
    const p = parsePartialSuccess(message, args);
    if (p) {
      onPartial(p);
      return;
    }
    // Arguments can include request payloads at debug level; keep them out of the log line.
    log[level]({ component: 'otel-sdk' }, message);
  };
  const logger: DiagLogger = {
    error: forward('warn'),
    warn: forward('warn'),
    info: forward('debug'),
    debug: forward('trace'),
    verbose: forward('trace'),
  };
  diag.setLogger(logger, { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true });
}
