// Severity rules shared by the catalogue (docs/mapping.md, column "severity"). Rules read only
// non-secret members (levels, statuses, enums), before or after redaction alike.
import { boundedMemo } from '../util/bounded-memo.js';
import { SEVERITY } from './severity-levels.js';

/**
 * Browser console types (the CDP Runtime.consoleAPICalled `type`, passed through "unfiltered" by
 * the service; docs/service-api.md, console_log) to severities. Unknown levels are INFO.
 */
export const CONSOLE_LEVEL_SEVERITY: ReadonlyMap<string, number> = new Map([
  ['trace', SEVERITY.TRACE],
  ['debug', SEVERITY.DEBUG],
  ['verbose', SEVERITY.DEBUG],
  ['log', SEVERITY.INFO],
  ['info', SEVERITY.INFO],
  ['dir', SEVERITY.INFO],
  ['dirxml', SEVERITY.INFO],
  ['table', SEVERITY.INFO],
  ['count', SEVERITY.INFO],
  ['time', SEVERITY.INFO],
  ['timeLog', SEVERITY.INFO],
  ['timeEnd', SEVERITY.INFO],
  ['group', SEVERITY.INFO],
  ['startGroup', SEVERITY.INFO],
  ['startGroupCollapsed', SEVERITY.INFO],
  ['endGroup', SEVERITY.INFO],
  ['clear', SEVERITY.INFO],
  ['profile', SEVERITY.INFO],
  ['profileEnd', SEVERITY.INFO],
  ['warning', SEVERITY.WARN],
  ['warn', SEVERITY.WARN],
  ['error', SEVERITY.ERROR],
  // A failed console.assert prints as an error in every browser.
  ['assert', SEVERITY.ERROR],
]);

export function consoleLevelSeverity(level: unknown): number {
  return typeof level === 'string' ? (CONSOLE_LEVEL_SEVERITY.get(level) ?? SEVERITY.INFO) : SEVERITY.INFO;
}

/** 1xx–3xx INFO, 4xx WARN, 5xx ERROR; anything else (absent, 0, out of range) INFO. */
export function httpStatusSeverity(status: unknown): number {
  if (typeof status !== 'number' || !Number.isInteger(status)) return SEVERITY.INFO;
  if (status >= 500 && status <= 599) return SEVERITY.ERROR;
  if (status >= 400 && status <= 499) return SEVERITY.WARN;
  return SEVERITY.INFO;
}

// Name tokens (type split on `_`) that mark a type not in the catalogue as an error or a warning.
const ERROR_TOKENS = new Set([
  'error',
  'errors',
  'failed',
  'failure',
  'fail',
  'exception',
  'crash',
  'crashed',
  'oom',
  'panic',
  'fatal',
]);
const WARN_TOKENS = new Set(['warning', 'warn', 'timeout', 'dropped', 'disconnected', 'lost', 'evicted']);

/** The name rule for types not in the catalogue: error-like tokens → ERROR, warning-like → WARN, else INFO. */
export const typeNameSeverity = boundedMemo(1024, (type): number => {
  let result: number = SEVERITY.INFO;
  for (const token of type.toLowerCase().split('_')) {
    if (ERROR_TOKENS.has(token)) {
      result = SEVERITY.ERROR;
      break;
    }
    if (WARN_TOKENS.has(token)) result = SEVERITY.WARN;
  }
  return result;
});

/**
 * Types whose data shape the written specification does not show (and future types): the highest of the name rule,
 * the HTTP rule on an integer `status` in 100–599, and the console rule on a string `level`.
 */
export function genericSeverity(type: string, data: Record<string, unknown> | null | undefined): number {
  let severity = typeNameSeverity(type);
  if (data == null) return severity;
  const status = data.status;
  if (typeof status === 'number' && status >= 100 && status <= 599)
    severity = Math.max(severity, httpStatusSeverity(status));
  if (typeof data.level === 'string') severity = Math.max(severity, consoleLevelSeverity(data.level));
  return severity;
}
