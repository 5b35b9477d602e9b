// A followed session that exports its telemetry itself (telemetry.export.otlp on the session): read
// from the untrusted session object, compared with the bridge's collector, and worded as a warning.
import { describe, expect, it } from 'vitest';
import {
  parseSessionExport,
  sameCollector,
  sessionExportWarning,
  type SessionExport,
} from '../../../src/upstream/session-export.js';

const otlp = (o: unknown): unknown => ({ session_id: 's', telemetry: { export: { otlp: o } } });

describe('parseSessionExport', () => {
  it.each<[string, unknown, SessionExport | undefined]>([
    [
      'enabled with a named destination',
      otlp({ enabled: true, destination: 'prod' }),
      { enabled: true, destination: 'prod' },
    ],
    ['disabled', otlp({ enabled: false }), { enabled: false }],
    [
      'a URL destination with credentials is masked',
      otlp({ enabled: true, destination: 'https://user:pw@otlp.example/v1/logs?token=abc' }),
      { enabled: true, destination: 'https://REDACTED@otlp.example/v1/logs?token=REDACTED' },
    ],
    ['mistyped members are left out', otlp({ enabled: 'yes', destination: 7 }), {}],
    ['no export member', { session_id: 's', telemetry: { browser: {} } }, undefined],
    ['no telemetry member', { session_id: 's' }, undefined],
    ['not an object', 'sess', undefined],
  ])('%s', (_name, body, expected) => {
    expect(parseSessionExport(body)).toEqual(expected);
  });
});

describe('sameCollector', () => {
  it.each<[string, SessionExport, string, boolean]>([
    ['the same origin, another path', { destination: 'http://collector:4318' }, 'http://collector:4318/v1/logs', true],
    ['another port', { destination: 'http://collector:4319/v1/logs' }, 'http://collector:4318/v1/logs', false],
    ['another scheme', { destination: 'https://collector:4318/v1/logs' }, 'http://collector:4318/v1/logs', false],
    ['a destination name is not a URL', { destination: 'prod' }, 'http://collector:4318/v1/logs', false],
    ['no destination', {}, 'http://collector:4318/v1/logs', false],
  ])('%s', (_name, exp, collector, expected) => {
    expect(sameCollector(exp, collector)).toBe(expected);
  });
});

describe('sessionExportWarning', () => {
  it.each<[string, SessionExport | undefined, boolean, RegExp | undefined]>([
    ['not exporting', { enabled: false }, false, undefined],
    ['unknown', undefined, false, undefined],
    ['enabled flag absent', { destination: 'prod' }, false, undefined],
    ['exporting elsewhere', { enabled: true, destination: 'prod' }, false, /itself \(destination prod\): .* twice$/],
    ['exporting to the same collector', { enabled: true }, true, /same collector the bridge delivers to: every event/],
  ])('%s', (_name, exp, same, expected) => {
    const w = sessionExportWarning(exp, same);
    if (expected === undefined) expect(w).toBeUndefined();
    else expect(w).toMatch(expected);
  });
});
