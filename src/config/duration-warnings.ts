// Durations that parse but are almost surely not what was meant. A bare number is milliseconds (as
// in OTEL_EXPORTER_OTLP_TIMEOUT), so `timeout: 5` written for five seconds is 5 ms: every export
// times out and is retried for ever, and nothing says why. Below each floor here no deployment
// wants the value, so it is named with what it does; it is not refused, since a test or a lab may
// want it on purpose. Pure.
import type { BridgeConfig } from './schema.js';

interface Implausible {
  key: string;
  ms: number;
  /** Under this (and above 0, where 0 has a meaning of its own) the value is named. */
  floorMs: number;
  effect: string;
}

export function durationWarnings(config: BridgeConfig): string[] {
  const checks: Implausible[] = [
    {
      key: 'the export timeout (exporter.timeout, OTEL_EXPORTER_OTLP_TIMEOUT or OTEL_EXPORTER_OTLP_LOGS_TIMEOUT)',
      ms: config.exporter.timeoutMs,
      floorMs: 100,
      effect: 'an export that takes longer fails and is retried, so records may never be delivered',
    },
    {
      key: 'shutdown.grace',
      ms: config.shutdownGraceMs,
      floorMs: 100,
      effect: 'at a stop, what waits for the collector goes to the spool almost at once instead of being delivered',
    },
  ];
  // The memory window is the overflow mode's; `always` writes every record first anyway.
  if (config.spool.mode === 'overflow') {
    checks.push({
      key: 'spool.memory_max_age',
      ms: config.spool.memoryMaxAgeMs,
      floorMs: 100,
      effect: 'records spill to disk whenever the collector takes longer than that to answer',
    });
  }
  // The span exporter reads the same keys unless OTEL_EXPORTER_OTLP_TRACES_TIMEOUT is set: named once.
  if (config.traces.enabled && config.traces.exporter.timeoutMs !== config.exporter.timeoutMs) {
    checks.push({
      key: 'the span export timeout (OTEL_EXPORTER_OTLP_TRACES_TIMEOUT)',
      ms: config.traces.exporter.timeoutMs,
      floorMs: 100,
      effect: 'a span export that takes longer fails and is retried',
    });
  }
  return checks
    .filter((c) => c.ms > 0 && c.ms < c.floorMs)
    .map(
      (c) =>
        `${c.key} is ${c.ms} ms (a number without a unit is milliseconds; write "${c.ms}s" for seconds): ${c.effect}`,
    );
}
