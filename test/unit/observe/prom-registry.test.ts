// The bridge's own Prometheus registry (observe/prom-registry.ts, prom-exposition.ts): the text it
// writes is exposition format 0.0.4 to the letter — escaping, numbers, cumulative histogram buckets,
// label and series order — every line matches the format's grammar, and the test parser (the one
// the server tests read /metrics with) reads back exactly what was recorded.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CONTENT_TYPE, escapeHelp, escapeLabelValue, formatValue } from '../../../src/observe/prom-exposition.js';
import { Counter, Gauge, Histogram, Registry } from '../../../src/observe/prom-registry.js';
import { createMetrics } from '../../../src/observe/metrics.js';
import { parsePrometheusText, value } from '../../integration/server/prom-text.js';

/** One regex per line kind, as strict as the 0.0.4 grammar (what Prometheus's text parser accepts). */
const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const LABEL = '[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\\\\n]|\\\\[\\\\"n])*"';
const NUMBER = '(?:NaN|[+-]Inf|-?(?:\\d+(?:\\.\\d+)?|\\.\\d+)(?:e[+-]?\\d+)?)';
const LINE = {
  help: new RegExp(`^# HELP ${NAME} (?:[^\\\\\\n]|\\\\[\\\\n])*$`),
  type: new RegExp(`^# TYPE ${NAME} (?:counter|gauge|histogram)$`),
  sample: new RegExp(`^${NAME}(?:\\{${LABEL}(?:,${LABEL})*\\})? ${NUMBER}$`),
};

/** Lines that match no kind (empty when the whole text follows the grammar and ends with a newline). */
function offGrammar(text: string): string[] {
  if (!text.endsWith('\n')) return ['(no final newline)'];
  return text
    .slice(0, -1)
    .split('\n')
    .filter((l) => !LINE.help.test(l) && !LINE.type.test(l) && !LINE.sample.test(l));
}

describe('numbers', () => {
  it.each<[number, string]>([
    [0, '0'],
    [-0, '0'],
    [1, '1'],
    [-42, '-42'],
    [0.5, '0.5'],
    [0.1 + 0.2, '0.30000000000000004'],
    [1e-7, '1e-7'],
    [123456789012, '123456789012'],
    [2 ** 53, '9007199254740992'],
    [1e20, '100000000000000000000'],
    [1e21, '1e+21'],
    [NaN, 'NaN'],
    [Infinity, '+Inf'],
    [-Infinity, '-Inf'],
  ])('%d is written %s', (n, text) => {
    expect(formatValue(n)).toBe(text);
  });

  it('every double is written in the grammar and reads back to itself', () => {
    const number = new RegExp(`^${NUMBER}$`);
    fc.assert(
      fc.property(fc.double(), (x) => {
        const text = formatValue(x);
        expect(text).toMatch(number);
        if (Number.isNaN(x)) expect(text).toBe('NaN');
        else expect(Number(text.replace('Inf', 'Infinity'))).toBe(x === 0 ? 0 : x);
      }),
    );
  });
});

describe('escaping', () => {
  it.each<[string, string]>([
    ['plain', 'plain'],
    ['back\\slash', 'back\\\\slash'],
    ['say "hi"', 'say \\"hi\\"'],
    ['two\nlines', 'two\\nlines'],
    ['a literal \\n', 'a literal \\\\n'],
    ['tab\tand ünïcode', 'tab\tand ünïcode'],
  ])('label value %j is written %j', (raw, escaped) => {
    expect(escapeLabelValue(raw)).toBe(escaped);
  });

  it.each<[string, string]>([
    ['plain', 'plain'],
    ['back\\slash', 'back\\\\slash'],
    ['say "hi"', 'say "hi"'],
    ['two\nlines', 'two\\nlines'],
  ])('help %j is written %j', (raw, escaped) => {
    expect(escapeHelp(raw)).toBe(escaped);
  });

  it('any help and label value survive the trip through the text', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), async (help, v) => {
        const r = new Registry();
        r.gauge({ name: 'g', help, labelNames: ['l'] }).set({ l: v }, 1);
        const text = await r.metrics();
        expect(offGrammar(text)).toEqual([]);
        const fam = parsePrometheusText(text).get('g')!;
        expect(fam.help).toBe(help);
        expect(fam.samples).toEqual([{ name: 'g', labels: { l: v }, value: 1 }]);
      }),
    );
  });
});

describe('exposition', () => {
  it('writes HELP, TYPE and samples in registration order, series in creation order, labels in declared order, le last', async () => {
    const r = new Registry();
    const c = r.counter({ name: 'app_requests_total', help: 'Requests.', labelNames: ['method', 'code'] });
    r.counter({ name: 'app_plain_total', help: 'No labels: one series from the start.' });
    const g = r.gauge({ name: 'app_temperature', help: 'Odd "values" \\ lines\nhere.', labelNames: ['room'] });
    const h = r.histogram({ name: 'app_latency_seconds', help: 'Latency.', labelNames: ['op'], buckets: [0.1, 1, 10] });
    c.inc({ code: '500', method: 'get' });
    c.inc({ method: 'put', code: '200' }, 0);
    c.inc({ code: '500', method: 'get' }, 2);
    g.set({ room: 'a "b"\nc\\d' }, -Infinity);
    g.set({ room: 'x' }, NaN);
    h.zero({ op: 'write' });
    for (const v of [0.05, 0.1, 0.2, 5, 100]) h.observe({ op: 'read' }, v);
    expect(await r.metrics()).toBe(
      [
        '# HELP app_requests_total Requests.',
        '# TYPE app_requests_total counter',
        'app_requests_total{method="get",code="500"} 3',
        'app_requests_total{method="put",code="200"} 0',
        '# HELP app_plain_total No labels: one series from the start.',
        '# TYPE app_plain_total counter',
        'app_plain_total 0',
        '# HELP app_temperature Odd "values" \\\\ lines\\nhere.',
        '# TYPE app_temperature gauge',
        'app_temperature{room="a \\"b\\"\\nc\\\\d"} -Inf',
        'app_temperature{room="x"} NaN',
        '# HELP app_latency_seconds Latency.',
        '# TYPE app_latency_seconds histogram',
        'app_latency_seconds_bucket{op="write",le="0.1"} 0',
        'app_latency_seconds_bucket{op="write",le="1"} 0',
        'app_latency_seconds_bucket{op="write",le="10"} 0',
        'app_latency_seconds_bucket{op="write",le="+Inf"} 0',
        'app_latency_seconds_sum{op="write"} 0',
        'app_latency_seconds_count{op="write"} 0',
        'app_latency_seconds_bucket{op="read",le="0.1"} 2',
        'app_latency_seconds_bucket{op="read",le="1"} 3',
        'app_latency_seconds_bucket{op="read",le="10"} 4',
        'app_latency_seconds_bucket{op="read",le="+Inf"} 5',
        'app_latency_seconds_sum{op="read"} 105.35',
        'app_latency_seconds_count{op="read"} 5',
        '',
      ].join('\n'),
    );
    expect(r.contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(CONTENT_TYPE).toBe(r.contentType);
  });

  it.each<[string, number[], number[], number[]]>([
    // bounds, observations, cumulative counts per bound (a value equal to a bound falls in it)
    ['empty', [1, 2], [], [0, 0]],
    ['on the bounds', [1, 2], [1, 2], [1, 2]],
    ['below, between, above', [1, 2], [0.5, 1.5, 3, 4], [1, 2]],
    ['all above', [0.001], [5, 6, 7], [0]],
    ['negative and infinite values', [-1, 0, 1], [-5, -1, 0, Infinity], [2, 3, 3]],
  ])('histogram buckets are cumulative: %s', async (_name, bounds, observations, cumulative) => {
    const r = new Registry();
    const h = r.histogram({ name: 'h', help: 'h', buckets: bounds });
    for (const v of observations) h.observe(v);
    const fam = parsePrometheusText(await r.metrics()).get('h')!;
    const buckets = fam.samples.filter((s) => s.name === 'h_bucket');
    expect(buckets.map((s) => s.labels.le)).toEqual([...bounds.map(String), '+Inf']);
    expect(buckets.map((s) => s.value)).toEqual([...cumulative, observations.length]);
    expect(value(new Map([['h', fam]]), 'h_count')).toBe(observations.length);
    expect(value(new Map([['h', fam]]), 'h_sum')).toBe(observations.reduce((a, b) => a + b, 0));
    expect(h.get()).toEqual({
      buckets: cumulative,
      sum: observations.reduce((a, b) => a + b, 0),
      count: observations.length,
    });
  });

  it('a labelled series exists only once created; inc(labels, 0) and zero(labels) create it at zero', async () => {
    const r = new Registry();
    const c = r.counter({ name: 'c_total', help: 'c', labelNames: ['k'] });
    const h = r.histogram({ name: 'h', help: 'h', labelNames: ['k'], buckets: [1] });
    expect(await r.metrics()).toBe('# HELP c_total c\n# TYPE c_total counter\n# HELP h h\n# TYPE h histogram\n');
    expect(c.get({ k: 'a' })).toBeUndefined();
    expect(h.get({ k: 'a' })).toBeUndefined();
    c.inc({ k: 'a' }, 0);
    h.zero({ k: 'a' });
    expect(c.get({ k: 'a' })).toBe(0);
    expect(h.get({ k: 'a' })).toEqual({ buckets: [0], sum: 0, count: 0 });
    c.inc({ k: 'a' });
    h.zero({ k: 'a' }); // no reset of an existing series
    h.observe({ k: 'a' }, 2);
    h.zero({ k: 'a' });
    expect(c.get({ k: 'a' })).toBe(1);
    expect(h.get({ k: 'a' })).toEqual({ buckets: [0], sum: 2, count: 1 });
  });

  it('gauges set, go up and down; collect (sync or async) runs at every scrape before anything is read', async () => {
    const r = new Registry();
    let source = 1;
    let scrapes = 0;
    const plain = r.gauge({ name: 'plain', help: 'p' });
    r.gauge({
      name: 'sync_read',
      help: 's',
      labelNames: ['k'],
      collect() {
        scrapes++;
        this.set({ k: 'x' }, source);
      },
    });
    r.gauge({
      name: 'async_read',
      help: 'a',
      async collect() {
        await new Promise((resolve) => setTimeout(resolve, 10));
        this.set(source * 10);
      },
    });
    plain.set(5);
    plain.inc();
    plain.dec(3);
    expect(plain.get()).toBe(3);
    const read = async () => {
      const m = parsePrometheusText(await r.metrics());
      return [value(m, 'plain'), value(m, 'sync_read', { k: 'x' }), value(m, 'async_read')];
    };
    expect(await read()).toEqual([3, 1, 10]);
    source = 2;
    expect(await read()).toEqual([3, 2, 20]);
    expect(scrapes).toBe(2);
    expect((await r.family('async_read'))?.samples).toEqual([{ name: 'async_read', labels: {}, value: 20 }]);
    expect(await r.metricText('sync_read')).toBe('# HELP sync_read s\n# TYPE sync_read gauge\nsync_read{k="x"} 2\n');
    expect(scrapes).toBe(3);
    expect(await r.metricText('nothing')).toBe('');
  });

  it('a failing collect fails the scrape (no half-read text)', async () => {
    const r = new Registry();
    r.gauge({
      name: 'g',
      help: 'g',
      async collect() {
        throw new Error('source down');
      },
    });
    await expect(r.metrics()).rejects.toThrow('source down');
  });

  it.each<[string, (r: Registry) => void]>([
    ['a counter going down', (r) => r.counter({ name: 'c', help: 'c' }).inc(-1)],
    ['a counter moved by NaN', (r) => r.counter({ name: 'c', help: 'c' }).inc(NaN)],
    ['a histogram observing NaN', (r) => r.histogram({ name: 'h', help: 'h', buckets: [1] }).observe(NaN)],
    ['a metric name with a dash', (r) => r.counter({ name: 'bad-name', help: 'x' })],
    ['a metric name starting with a digit', (r) => r.gauge({ name: '1abc', help: 'x' })],
    ['a label name with a colon', (r) => r.counter({ name: 'c', help: 'c', labelNames: ['a:b'] })],
    ['a reserved label name', (r) => r.counter({ name: 'c', help: 'c', labelNames: ['__name'] })],
    ['a histogram labelled le', (r) => r.histogram({ name: 'h', help: 'h', labelNames: ['le'], buckets: [1] })],
    ['a label named twice', (r) => r.gauge({ name: 'g', help: 'g', labelNames: ['a', 'a'] })],
    ['buckets out of order', (r) => r.histogram({ name: 'h', help: 'h', buckets: [1, 0.5] })],
    ['an infinite bucket', (r) => r.histogram({ name: 'h', help: 'h', buckets: [1, Infinity] })],
    ['no bucket', (r) => r.histogram({ name: 'h', help: 'h', buckets: [] })],
    [
      'a name registered twice',
      (r) => {
        r.counter({ name: 'c', help: 'c' });
        r.gauge({ name: 'c', help: 'c' });
      },
    ],
    [
      'a missing label',
      (r) => r.counter({ name: 'c', help: 'c', labelNames: ['a', 'b'] }).inc({ a: 'x' } as { a: string; b: string }),
    ],
    [
      'an unknown label',
      (r) => r.counter({ name: 'c', help: 'c', labelNames: ['a'] }).inc({ a: 'x', b: 'y' } as { a: string }),
    ],
    [
      'a label value that is no string',
      (r) => r.gauge({ name: 'g', help: 'g', labelNames: ['a'] }).set({ a: 1 as unknown as string }, 1),
    ],
  ])('refuses %s', (_name, act) => {
    expect(() => act(new Registry())).toThrow();
  });

  it('the classes can be built alone and registered', async () => {
    const r = new Registry();
    r.register(new Counter({ name: 'a_total', help: 'a' })).inc(2);
    r.register(new Gauge({ name: 'b', help: 'b' })).set(1.5);
    r.register(new Histogram({ name: 'c', help: 'c', buckets: [1] })).observe(0);
    expect(await r.metrics()).toContain('a_total 2\n');
    expect(r.getMetric('b')?.type).toBe('gauge');
  });
});

describe('the bridge registry as scraped', () => {
  it('every line of a full scrape (process metrics included) follows the grammar and the test parser reads it', async () => {
    const m = createMetrics({ spoolCapacityBytes: 1024 });
    m.setSources({
      spool: async () => ({ records: 3, bytes: 300, oldestTsMicros: Date.now() * 1000 - 2e6 }),
      sessionsByState: () => ({ streaming: 2, 'new "state"\n': 1 }),
      pendingRecords: () => 1,
    });
    m.eventsFiltered.inc({ category: 'other' }, 4);
    m.exportDuration.observe({ outcome: 'success' }, 0.2);
    const text = await m.registry.metrics();
    expect(offGrammar(text)).toEqual([]);
    const families = parsePrometheusText(text);
    expect(families.size).toBeGreaterThan(50);
    expect(value(families, 'bridge_spool_records')).toBe(4);
    expect(value(families, 'bridge_sessions', { state: 'new "state"\n' })).toBe(1);
    expect(value(families, 'bridge_events_filtered_total', { category: 'other' })).toBe(4);
    expect(value(families, 'bridge_export_duration_seconds_bucket', { outcome: 'success', le: '0.25' })).toBe(1);
    expect(value(families, 'bridge_export_duration_seconds_bucket', { outcome: 'success', le: '0.1' })).toBe(0);
    expect(value(families, 'bridge_oldest_undelivered_age_seconds')).toBeGreaterThanOrEqual(2);
  });
});

describe('the grammar check', () => {
  it('the grammar check itself fails on what Prometheus would refuse', () => {
    for (const bad of [
      'm 1', // no final newline
      'm{l="a"b"} 1\n', // unescaped quote
      'm{l="a\\tb"} 1\n', // an escape the format does not have
      "m{l='a'} 1\n",
      'm 1.\n',
      'm Nan\n',
      'm +inf\n',
      'm{} 1 2 3\n',
      '# HELP m a \\t b\n',
      '# TYPE m summary\n',
      '# TYPE m counter extra\n',
      'bad-name 1\n',
    ])
      expect(offGrammar(bad), JSON.stringify(bad)).not.toEqual([]);
  });
});
