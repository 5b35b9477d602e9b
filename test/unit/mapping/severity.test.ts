// Severity tables (docs/mapping.md "Event types", column severity; unknown-type rule).
import { describe, expect, it } from 'vitest';
import {
  CONSOLE_LEVEL_SEVERITY,
  consoleLevelSeverity,
  genericSeverity,
  httpStatusSeverity,
  typeNameSeverity,
} from '../../../src/mapping/severity.js';
import { SEVERITY, severityText } from '../../../src/mapping/severity-levels.js';

const { TRACE, DEBUG, INFO, WARN, ERROR } = SEVERITY;

describe('severity text', () => {
  it.each([
    [1, 'TRACE'],
    [5, 'DEBUG'],
    [9, 'INFO'],
    [10, 'INFO2'],
    [13, 'WARN'],
    [17, 'ERROR'],
    [20, 'ERROR4'],
    [21, 'FATAL'],
    [24, 'FATAL4'],
    [0, 'UNSPECIFIED'],
    [99, 'UNSPECIFIED'],
  ])('%i is %s', (n, text) => expect(severityText(n)).toBe(text));
});

describe('console levels', () => {
  it.each([
    ['trace', TRACE],
    ['debug', DEBUG],
    ['verbose', DEBUG],
    ['log', INFO],
    ['info', INFO],
    ['dir', INFO],
    ['dirxml', INFO],
    ['table', INFO],
    ['count', INFO],
    ['timeEnd', INFO],
    ['startGroup', INFO],
    ['startGroupCollapsed', INFO],
    ['endGroup', INFO],
    ['clear', INFO],
    ['profile', INFO],
    ['warning', WARN],
    ['warn', WARN],
    ['error', ERROR],
    ['assert', ERROR],
    ['somethingNew', INFO],
    ['ERROR', INFO], // levels are passed through unfiltered and case-sensitive
  ])('%s → %i', (level, n) => expect(consoleLevelSeverity(level)).toBe(n));
  it('no level or a non-string level is INFO', () => {
    expect(consoleLevelSeverity(undefined)).toBe(INFO);
    expect(consoleLevelSeverity(3)).toBe(INFO);
  });
  it('every table entry is a valid severity', () => {
    for (const n of CONSOLE_LEVEL_SEVERITY.values()) expect([TRACE, DEBUG, INFO, WARN, ERROR]).toContain(n);
  });
});

describe('HTTP status classes', () => {
  it.each([
    [100, INFO],
    [200, INFO],
    [204, INFO],
    [301, INFO],
    [399, INFO],
    [400, WARN],
    [404, WARN],
    [499, WARN],
    [500, ERROR],
    [503, ERROR],
    [599, ERROR],
    [0, INFO],
    [600, INFO],
    [-1, INFO],
  ])('%i → %i', (status, n) => expect(httpStatusSeverity(status)).toBe(n));
  it('non-integers are INFO', () => {
    expect(httpStatusSeverity('500')).toBe(INFO);
    expect(httpStatusSeverity(500.5)).toBe(INFO);
    expect(httpStatusSeverity(undefined)).toBe(INFO);
  });
});

describe('unknown-type name rule', () => {
  it.each([
    ['proxy_error', ERROR],
    ['service_crashed', ERROR],
    ['system_oom_kill', ERROR],
    ['renderer_crash', ERROR],
    ['upload_failed', ERROR],
    ['gpu_failure', ERROR],
    ['worker_exception', ERROR],
    ['kernel_panic', ERROR],
    ['Network_ERROR', ERROR],
    ['socket_timeout', WARN],
    ['frames_dropped', WARN],
    ['peer_disconnected', WARN],
    ['warning_issued', WARN],
    ['timeout_then_error', ERROR],
    ['page_navigation', INFO],
    ['page_tab_opened', INFO],
    ['page_zoom', INFO],
    ['room_joined', INFO],
    ['errorless', INFO],
    ['x', INFO],
  ])('%s → %i', (type, n) => expect(typeNameSeverity(type)).toBe(n));
});

describe('generic severity: the highest of name, status and level', () => {
  it.each([
    ['platform_api_call', { status: 201 }, INFO],
    ['platform_api_call', { status: 429 }, WARN],
    ['platform_api_call', { status: 502 }, ERROR],
    ['proxy_error', { status: 200 }, ERROR],
    ['future_log', { level: 'warning' }, WARN],
    ['future_log', { level: 'debug' }, INFO],
    ['future_event', { status: 42 }, INFO],
    ['future_event', null, INFO],
    ['future_event', undefined, INFO],
  ] as const)('%s %j → %i', (type, data, n) =>
    expect(genericSeverity(type, data as Record<string, unknown> | null | undefined)).toBe(n),
  );
});
