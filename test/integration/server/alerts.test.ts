// The alerts in docs/alerts.md work as written: every metric and label their expressions select
// exists in a real scrape of a running bridge that has done nothing yet (so they can fire, or be
// computed, from the first scrape), and every label value they match on is one the bridge exports.
// Also: build info, spool capacity, and labelled series present at zero from the start.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { REPO } from '../cli/cli-process.js';
import { startInProcess, startWorld, type RunningBridge, type World } from './bridge-harness.js';
import { parsePrometheusText, value, type Family, type Sample } from './prom-text.js';
import { selectors } from './promql-selectors.js';

/** Series Prometheus writes itself for every target, and the labels it adds to every series. */
const SYNTHETIC_METRICS = new Set(['up']);
const TARGET_LABELS = new Set(['instance', 'job']);

let world: World;
let running: RunningBridge;
let families: Map<string, Family>;

beforeAll(async () => {
  world = await startWorld();
  running = await startInProcess(world, { spool: { max_bytes: '8MiB' } });
  const res = await fetch(`${running.url}/metrics`);
  families = parsePrometheusText(await res.text());
});

afterAll(async () => {
  await running?.stop(Date.now());
  await world?.close();
});

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
}

function documentedRules(): Rule[] {
  const text = readFileSync(join(REPO, 'docs/alerts.md'), 'utf8');
  const blocks = [...text.matchAll(/```yaml\n([\s\S]*?)```/g)].map(
    (m) => parseYaml(m[1]!) as { groups?: Array<{ rules: Rule[] }> },
  );
  return blocks.flatMap((b) => b.groups ?? []).flatMap((g) => g.rules);
}

/** Samples of a selector's metric: a family by its name, or the samples of a histogram's _bucket/_sum/_count. */
function samplesOf(metric: string): Sample[] | undefined {
  const direct = families.get(metric);
  if (direct) return direct.samples;
  const base = metric.replace(/_(bucket|sum|count)$/, '');
  return families.get(base)?.samples.filter((s) => s.name === metric);
}

const rules = documentedRules();

describe('documented alerts', () => {
  it('the document has rules, each with an expression and a severity', () => {
    expect(rules.length).toBeGreaterThanOrEqual(10);
    for (const r of rules) {
      expect(r.alert, JSON.stringify(r)).toMatch(/^Bridge[A-Za-z]+$/);
      expect(typeof r.expr).toBe('string');
      expect(['warning', 'critical']).toContain(r.labels?.severity);
    }
  });

  it.each(rules.map((r) => [r.alert, r] as const))(
    '%s selects only metrics, labels and values a running bridge exports',
    (_name, rule) => {
      const { selectors: used, grouping } = selectors(rule.expr);
      expect(used.length, rule.expr).toBeGreaterThan(0);
      const labelsSeen = new Set<string>(TARGET_LABELS);
      for (const sel of used) {
        if (SYNTHETIC_METRICS.has(sel.metric)) continue;
        const samples = samplesOf(sel.metric);
        expect(samples, `${sel.metric} in ${rule.alert}`).toBeDefined();
        expect(samples!.length, `${sel.metric} has no sample`).toBeGreaterThan(0);
        for (const s of samples!) for (const l of Object.keys(s.labels)) labelsSeen.add(l);
        for (const m of sel.matchers) {
          if (TARGET_LABELS.has(m.label)) continue;
          const values = new Set(samples!.map((s) => s.labels[m.label]).filter((v): v is string => v !== undefined));
          expect(values.size, `label ${m.label} of ${sel.metric} in ${rule.alert}`).toBeGreaterThan(0);
          // Positive matchers must name values the bridge exports (a regex of plain alternatives, each).
          if (m.op === '=') expect([...values], `${sel.metric}{${m.label}="${m.value}"}`).toContain(m.value);
          if (m.op === '=~')
            for (const alt of m.value.split('|'))
              expect([...values], `${sel.metric}{${m.label}=~…${alt}}`).toContain(alt);
          if (m.op === '!=')
            expect([...values], `${sel.metric}{${m.label}!="${m.value}"} excludes a value that exists`).toContain(
              m.value,
            );
        }
      }
      for (const g of grouping) expect([...labelsSeen], `by (${g}) in ${rule.alert}`).toContain(g);
    },
  );

  it('the list of metric names in the document matches what the rules use', () => {
    const text = readFileSync(join(REPO, 'docs/alerts.md'), 'utf8');
    const listed = text.slice(text.indexOf('## Metric names these rules rely on'));
    for (const r of rules)
      for (const s of selectors(r.expr).selectors) expect(listed, s.metric).toContain(`\`${s.metric}`);
  });
});

describe('metrics from the start', () => {
  it('bridge_build_info carries the version and the Node.js runtime', () => {
    const version = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;
    expect(families.get('bridge_build_info')?.type).toBe('gauge');
    expect(value(families, 'bridge_build_info', { version, node: process.versions.node })).toBe(1);
  });

  it('bridge_spool_capacity_bytes is the configured spool.max_bytes', () => {
    expect(value(families, 'bridge_spool_capacity_bytes')).toBe(8 * 1024 * 1024);
  });

  it.each<[string, string, string[]]>([
    [
      'bridge_export_requests_total',
      'outcome',
      ['success', 'network', 'timeout', 'http_429', 'http_503', 'grpc_unavailable', 'grpc_resource_exhausted'],
    ],
    [
      'bridge_reconnects_total',
      'reason',
      [
        'closed',
        'idle',
        'network',
        'server_error',
        'rate_limited',
        'unauthorized',
        'forbidden',
        'bad_content_type',
        'frame_too_large',
        'http_error',
      ],
    ],
    ['bridge_events_rejected_total', 'reason', ['partial_success', 'invalid', 'too_large', 'corrupt']],
    ['bridge_events_filtered_total', 'category', ['console', 'monitor', 'network', 'other']],
    ['bridge_config_reloads_total', 'outcome', ['applied', 'rejected']],
    [
      'bridge_records_oversized_total',
      'action',
      ['strings_truncated', 'attributes_cut', 'body_cut', 'screenshot_dropped'],
    ],
    ['bridge_sessions', 'state', ['streaming', 'backoff', 'unauthorized', 'forbidden', 'ended']],
  ])('%s has a %s series at zero for each known value', (metric, label, values) => {
    for (const v of values) expect(value(families, metric, { [label]: v }), `${metric}{${label}="${v}"}`).toBe(0);
  });
});
