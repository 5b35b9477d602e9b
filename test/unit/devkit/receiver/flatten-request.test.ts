// The walk logs and traces requests share: resource attributes and scope flattened into every item,
// and a bad value named by its path, the same for both signals.
import { describe, expect, it } from 'vitest';
import { decodeJsonLogsRequest, OtlpDecodeError } from '../../../../src/devkit/receiver/decode.js';
import { decodeTracesRequest } from '../../../../src/devkit/receiver/decode-traces.js';

const resource = { attributes: [{ key: 'service.name', value: { stringValue: 'svc' } }] };
const span = {
  traceId: '0102030405060708090a0b0c0d0e0f10',
  spanId: '0102030405060708',
  name: 'x',
  kind: 1,
  startTimeUnixNano: '1',
  endTimeUnixNano: '2',
};
const record = { timeUnixNano: '1', observedTimeUnixNano: '1' };

type Signal = 'logs' | 'traces';
/** `res` null: a request without a resource. */
const request = (signal: Signal, scope: unknown, items: unknown[], res: unknown = resource): unknown => {
  const outer = res === null ? {} : { resource: res };
  return signal === 'logs'
    ? { resourceLogs: [{ ...outer, scopeLogs: [{ scope, logRecords: items }] }] }
    : { resourceSpans: [{ ...outer, scopeSpans: [{ scope, spans: items }] }] };
};
const decode = (signal: Signal, body: unknown): Array<{ resource: unknown; scope: unknown }> => {
  const bytes = new TextEncoder().encode(JSON.stringify(body));
  return signal === 'logs' ? decodeJsonLogsRequest(bytes) : decodeTracesRequest(bytes, 'json');
};
const failure = (signal: Signal, body: unknown): string => {
  try {
    decode(signal, body);
  } catch (err) {
    expect(err).toBeInstanceOf(OtlpDecodeError);
    return (err as Error).message;
  }
  throw new Error('expected an OtlpDecodeError');
};

describe.each<[Signal, unknown]>([
  ['logs', record],
  ['traces', span],
])('flattening a %s request', (signal, item) => {
  it.each<[string, unknown, unknown]>([
    ['a scope with a version', { name: 'lib', version: '2' }, { name: 'lib', version: '2' }],
    ['an empty version is none', { name: 'lib', version: '' }, { name: 'lib' }],
    ['no scope', undefined, { name: '' }],
  ])('%s', (_name, scope, expected) => {
    const got = decode(signal, request(signal, scope, [item, item]));
    expect(got).toHaveLength(2);
    for (const x of got) {
      expect(x.scope).toEqual(expected);
      expect(x.resource).toEqual({ 'service.name': 'svc' });
    }
  });

  it('no resource is no attributes', () => {
    expect(decode(signal, request(signal, undefined, [item], null))[0]!.resource).toEqual({});
  });

  it('names the path of a bad resource and a bad item', () => {
    const [outer, middle, inner] =
      signal === 'logs' ? ['resourceLogs', 'scopeLogs', 'logRecords'] : ['resourceSpans', 'scopeSpans', 'spans'];
    expect(failure(signal, request(signal, undefined, [item], { attributes: 'x' }))).toMatch(
      new RegExp(`^${outer}\\[0\\]\\.resource\\.attributes: `),
    );
    expect(failure(signal, request(signal, { name: 7 }, [item]))).toMatch(
      new RegExp(`^${outer}\\[0\\]\\.${middle}\\[0\\]: scope\\.name`),
    );
    expect(failure(signal, request(signal, undefined, [item, 'no']))).toMatch(
      new RegExp(`^${outer}\\[0\\]\\.${middle}\\[0\\]\\.${inner}\\[1\\]`),
    );
  });
});
