// Realism of generated events: catalogue coverage, categories, timestamps, the shapes the bridge
// must handle (y vs `true`, secrets, truncation, unicode, async stacks, PNGs), determinism.
import { describe, expect, it } from 'vitest';
import {
  CDP_METHODS,
  EVENT_TYPES,
  LISTED_TYPES,
  UNLISTED_TYPES,
  categoryOf,
} from '../../../../src/devkit/simulator/index.js';
import { BEYOND_SPEC_TYPES } from '../../../../src/devkit/simulator/events/catalogue.js';
import { EventFactory } from '../../../../src/devkit/simulator/events/event-factory.js';
import { SERVICE_PNG_MAX_BYTES, screenshotsBase64 } from '../../../../src/devkit/simulator/events/png.js';
import { createRng } from '../../../../src/devkit/simulator/events/rng.js';
import { CAPTURE_ALL, captureFilter, makePool, telemetryConfig } from '../../../../src/devkit/simulator/pools.js';
import type { TelemetryEvent } from '../../../../src/upstream/envelope.js';
import { validateEnvelope } from '../../../../src/upstream/envelope.js';

const SPEC_TYPES = [
  'console_log',
  'console_error',
  'network_request',
  'network_response',
  'network_loading_failed',
  'network_idle',
  'page_dom_content_loaded',
  'page_load',
  'page_layout_shift',
  'page_lcp',
  'page_layout_settled',
  'page_crashed',
  'interaction_click',
  'interaction_key',
  'interaction_scroll_settled',
  'monitor_screenshot',
  'monitor_disconnected',
  'monitor_reconnected',
  'monitor_reconnect_failed',
  'monitor_init_failed',
  'api_call',
  'cdp_command',
  'cdp_connect',
  'cdp_disconnect',
  'live_view_connect',
  'live_view_disconnect',
  'captcha_solve_result',
];
const SPEC_UNLISTED = [
  'page_navigation',
  'page_navigation_settled',
  'page_tab_opened',
  'platform_api_call',
  'proxy_error',
  'service_crashed',
  'system_oom_kill',
];
const SPEC_CDP_METHODS = [
  'Input.dispatchMouseEvent',
  'Input.dispatchKeyEvent',
  'Input.insertText',
  'Input.imeSetComposition',
  'Input.dispatchTouchEvent',
  'Input.dispatchDragEvent',
  'Input.cancelDragging',
  'Input.emulateTouchFromMouseEvent',
  'Input.synthesizePinchGesture',
  'Input.synthesizeScrollGesture',
  'Input.synthesizeTapGesture',
  'DOM.setFileInputFiles',
  'DOM.focus',
  'DOM.scrollIntoViewIfNeeded',
  'Page.bringToFront',
  'Page.captureScreenshot',
  'Page.captureSnapshot',
  'Page.handleJavaScriptDialog',
  'Page.navigate',
  'Page.navigateToHistoryEntry',
  'Page.reload',
  'Page.printToPDF',
  'Page.startScreencast',
  'Page.stopScreencast',
  'Page.stopLoading',
  'Page.close',
  'Page.setWebLifecycleState',
  'Target.activateTarget',
  'Target.closeTarget',
  'Target.createTarget',
  'Target.createBrowserContext',
  'Target.disposeBrowserContext',
  'Target.openDevTools',
  'Browser.cancelDownload',
  'Browser.close',
  'Browser.setWindowBounds',
  'Browser.setContentsSize',
  'Autofill.trigger',
];

function generate(n: number, seed = 42): TelemetryEvent[] {
  const f = new EventFactory(createRng(seed), 'sess', CAPTURE_ALL);
  return Array.from({ length: n }, () => f.next() as TelemetryEvent);
}

const events = generate(5000);
const ofType = (t: string): TelemetryEvent[] => events.filter((e) => e.type === t);
const dataOf = (e: TelemetryEvent): Record<string, unknown> => e.data ?? {};

describe('event catalogue', () => {
  it('lists exactly the spec types, the named-without-detail types and every cdp_command method', () => {
    expect([...LISTED_TYPES].sort()).toEqual([...SPEC_TYPES].sort());
    expect([...UNLISTED_TYPES].sort()).toEqual([...SPEC_UNLISTED].sort());
    expect([...CDP_METHODS].sort()).toEqual([...SPEC_CDP_METHODS].sort());
    expect([...BEYOND_SPEC_TYPES].sort()).toEqual(['captcha_challenge_result', 'captcha_solve_started']);
    expect(EVENT_TYPES).toHaveLength(SPEC_TYPES.length + SPEC_UNLISTED.length + BEYOND_SPEC_TYPES.length);
  });

  it('every type and every cdp_command method appears within a couple of hundred events, for any seed', () => {
    for (const seed of [1, 2, 3]) {
      const few = generate(200, seed);
      expect(new Set(few.map((e) => e.type))).toEqual(new Set(EVENT_TYPES));
      const methods = new Set(few.filter((e) => e.type === 'cdp_command').map((e) => dataOf(e).method));
      expect(methods).toEqual(new Set(CDP_METHODS));
    }
  });

  it('produces valid envelopes with the category fixed per type', () => {
    for (const [i, e] of events.entries()) {
      expect(validateEnvelope({ seq: i + 1, event: e }).ok).toBe(true);
      if (e.type.startsWith('monitor_') && e.type !== 'monitor_screenshot')
        expect(['monitor', 'system']).toContain(e.category);
      else expect(e.category).toBe(categoryOf(e.type));
    }
    expect(categoryOf('monitor_screenshot')).toBe('screenshot');
    expect(categoryOf('cdp_command')).toBe('control');
    expect(categoryOf('captcha_solve_result')).toBe('captcha');
    // Some service versions label monitor events `system`; both must occur.
    const monitorCats = new Set(events.filter((e) => /^monitor_(?!screenshot)/.test(e.type)).map((e) => e.category));
    expect(monitorCats).toEqual(new Set(['monitor', 'system']));
  });

  it('ts is integer Unix microseconds, strictly increasing', () => {
    const now = Date.now() * 1000;
    for (const [i, e] of events.entries()) {
      expect(Number.isSafeInteger(e.ts)).toBe(true);
      expect(Math.abs(e.ts - now)).toBeLessThan(120e6);
      if (i > 0) expect(e.ts).toBeGreaterThan((events[i - 1] as TelemetryEvent).ts);
    }
  });

  it('sources vary in kind, event and metadata', () => {
    const kinds = new Set(events.map((e) => e.source.kind));
    expect(kinds.size).toBeGreaterThanOrEqual(5);
    const log = ofType('console_log')[0] as TelemetryEvent;
    expect(log.source).toMatchObject({ kind: 'cdp', event: 'Runtime.consoleAPICalled' });
    expect(new Set(events.map((e) => JSON.stringify(Object.keys(e.source.metadata ?? {})))).size).toBeGreaterThan(3);
    const crash = ofType('page_crashed')[0] as TelemetryEvent;
    expect(crash.source.metadata).toMatchObject({ cdp_session_id: expect.any(String), target_id: expect.any(String) });
  });

  it('the y coordinate is mostly `y`, sometimes the spec-literal member `true`', () => {
    const coords = [...ofType('interaction_click'), ...ofType('cdp_command').filter((e) => 'x' in dataOf(e))].map(
      dataOf,
    );
    const y = coords.filter((d) => 'y' in d).length;
    const t = coords.filter((d) => 'true' in d).length;
    expect(y + t).toBe(coords.length);
    expect(y).toBeGreaterThan(t);
    expect(t).toBeGreaterThan(0);
  });

  it('carries secrets in headers and URLs for redaction tests', () => {
    const text = JSON.stringify(events.filter((e) => e.category === 'network'));
    for (const h of ['"authorization"', '"cookie"', '"set-cookie"', '"x-api-key"']) expect(text).toContain(h);
    expect(text).toMatch(/https:\/\/[^"/]+:[^"/]+@/);
    expect(text).toContain('X-Amz-Signature=');
    expect(text).toMatch(/[?&]sig=/);
  });

  it('truncated events end in ...[truncated] within 8192 bytes', () => {
    const truncated = events.filter((e) => e.truncated === true);
    expect(truncated.length).toBeGreaterThan(0);
    for (const e of truncated) {
      const long = Object.values(dataOf(e)).filter(
        (v): v is string => typeof v === 'string' && v.endsWith('...[truncated]'),
      );
      expect(long.length).toBeGreaterThan(0);
      for (const s of long) expect(Buffer.byteLength(s)).toBeLessThanOrEqual(8192);
    }
  });

  it('has unicode text', () => {
    expect(JSON.stringify(ofType('console_log').map(dataOf))).toMatch(/[\u{1F300}-\u{1FAFF}]/u);
  });

  it('console_error covers console.error calls and uncaught exceptions with async parent stacks', () => {
    const errors = ofType('console_error').map(dataOf);
    const fromCall = errors.filter((d) => d.level === 'error');
    const uncaught = errors.filter((d) => d.source_url !== undefined);
    expect(fromCall.length).toBeGreaterThan(0);
    expect(uncaught.length).toBeGreaterThan(0);
    for (const d of uncaught) {
      expect(d).toMatchObject({ text: expect.any(String), line: expect.any(Number), column: expect.any(Number) });
      const st = d.stack_trace as {
        callFrames: Array<Record<string, unknown>>;
        parent?: { callFrames: unknown[]; description?: string };
      };
      expect(st.callFrames.length).toBeGreaterThan(0);
      // CDP order: the throwing (innermost) frame first, at exceptionDetails' zero-based position.
      expect(d.level).toBeUndefined();
      expect(st.callFrames[0]).toMatchObject({ lineNumber: d.line, columnNumber: d.column, url: d.source_url });
      expect(st.parent?.callFrames.length).toBeGreaterThan(0);
      expect(st.parent?.description).toEqual(expect.any(String));
    }
  });

  it('monitor_screenshot carries a real viewport PNG of a real size: a blank page, then 100 KiB up to the service downscale threshold', () => {
    const sizes: number[] = [];
    for (const b64 of screenshotsBase64()) {
      const png = Buffer.from(b64, 'base64');
      expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
      expect(png.subarray(12, 16).toString('latin1')).toBe('IHDR');
      expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1280, 720]);
      expect(png.subarray(-8, -4).toString('latin1')).toBe('IEND');
      expect(png.length).toBeLessThanOrEqual(SERVICE_PNG_MAX_BYTES);
      sizes.push(png.length);
    }
    expect(sizes.slice(1).every((n) => n > 100 * 1024)).toBe(true);
    expect(Math.max(...sizes)).toBeGreaterThan(600 * 1024);
    const shot = ofType('monitor_screenshot')[0] as TelemetryEvent;
    expect(screenshotsBase64()).toContain(dataOf(shot).png);
    expect(shot.source).toMatchObject({
      kind: 'local_process',
      event: expect.stringMatching(/^(Page\.loadEventFired|Runtime\.exceptionThrown)$/),
    });
  });

  it('screenshots follow a page load or an uncaught exception, at most one per 2 s of event time, and only when captured', () => {
    const shots = events.flatMap((e, i) => (e.type === 'monitor_screenshot' ? [i] : []));
    expect(shots.length).toBeGreaterThan(0);
    for (const i of shots) {
      const before = events[i - 1] as TelemetryEvent;
      expect(
        before.type === 'page_load' ||
          (before.type === 'console_error' && before.source.event === 'Runtime.exceptionThrown'),
      ).toBe(true);
    }
    for (let k = 1; k < shots.length; k++) {
      expect(
        (events[shots[k] as number] as TelemetryEvent).ts - (events[shots[k - 1] as number] as TelemetryEvent).ts,
      ).toBeGreaterThanOrEqual(2_000_000);
    }
    // Never drawn at random: far fewer screenshots than page loads in a burst of events.
    expect(shots.length).toBeLessThan(ofType('page_load').length);
    const pool = makePool();
    pool.browser_pool_config.telemetry = telemetryConfig({ screenshot: false }, []);
    const f = new EventFactory(createRng(3), 's', captureFilter(pool));
    expect(Array.from({ length: 500 }, () => f.next()).some((e) => e?.type === 'monitor_screenshot')).toBe(false);
  });

  it('types beyond the spec table carry the shapes and categories of the real service', () => {
    const cats: Record<string, string> = {
      page_navigation: 'page',
      page_navigation_settled: 'page',
      page_tab_opened: 'page',
      platform_api_call: 'platform',
      proxy_error: 'network',
      service_crashed: 'system',
      system_oom_kill: 'system',
      captcha_solve_started: 'captcha',
      captcha_challenge_result: 'captcha',
    };
    for (const [type, category] of Object.entries(cats)) {
      expect(ofType(type).length, type).toBeGreaterThan(0);
      for (const e of ofType(type)) expect(e.category).toBe(category);
    }
    for (const d of ofType('proxy_error').map(dataOf)) {
      expect(d).toMatchObject({
        code: expect.stringMatching(/^[a-z_]+$/),
        request_id: expect.any(String),
        status: 502,
      });
    }
    expect(new Set(ofType('proxy_error').map((e) => dataOf(e).resource_type))).toContain('Document');
    for (const d of ofType('service_crashed').map(dataOf)) {
      expect(['startup', 'running', 'gave_up']).toContain(d.phase);
      expect(typeof d.service_name).toBe('string');
      expect(d.pid === undefined).toBe(d.phase === 'gave_up');
    }
    for (const d of ofType('system_oom_kill').map(dataOf)) {
      expect(d).toMatchObject({
        pid: expect.any(Number),
        process_name: expect.any(String),
        rss_kb: expect.any(Number),
      });
      const top = d.top_tasks as Array<{ rss_kb: number; name: string }>;
      expect(top.length).toBeGreaterThan(0);
      expect(top.length).toBeLessThanOrEqual(5);
      expect(top.map((t) => t.rss_kb)).toEqual([...top.map((t) => t.rss_kb)].sort((a, b) => b - a));
      for (const t of top) expect(t.name.length).toBeLessThanOrEqual(15);
    }
    for (const d of ofType('platform_api_call').map(dataOf))
      expect(d).toMatchObject({
        request_id: expect.any(String),
        operation_id: expect.any(String),
        status: expect.any(Number),
        duration_ms: expect.any(Number),
      });
    for (const d of ofType('page_tab_opened').map(dataOf)) expect(d.frame_id).toBeUndefined();
    for (const d of ofType('page_navigation').map(dataOf)) expect(d.nav_seq).toBeUndefined();
  });

  it('captcha events correlate: challenge_id across tasks, task_id from started to result; outcomes and types as the service has them', () => {
    const captcha = events.filter((e) => e.category === 'captcha').map((e) => ({ type: e.type, d: dataOf(e) }));
    const started = captcha.filter((c) => c.type === 'captcha_solve_started');
    const results = captcha.filter((c) => c.type === 'captcha_solve_result');
    const challenges = captcha.filter((c) => c.type === 'captcha_challenge_result');
    expect(started.length * results.length * challenges.length).toBeGreaterThan(0);
    const startedTasks = new Set(started.map((c) => c.d.task_id));
    expect(results.some((c) => startedTasks.has(c.d.task_id))).toBe(true);
    for (const c of challenges) {
      expect(['solved', 'failure', 'timeout', 'abandoned']).toContain(c.d.status);
      // Exactly one of challenge_id (observed) and task_id (inferred).
      expect((c.d.challenge_id === undefined) !== (c.d.task_id === undefined)).toBe(true);
    }
    const types = new Set(captcha.map((c) => c.d.captcha_type));
    expect(types).toContain('press_and_hold');
    for (const c of results) expect(['success', 'failure', 'timeout', 'abandoned']).toContain(c.d.status);
  });

  it('a response or failure repeats its request: url, method and resource type under its request id; images are GET, never text', () => {
    const requests = new Map(ofType('network_request').map((e) => [dataOf(e).request_id, dataOf(e)]));
    let answered = 0;
    for (const t of ['network_response', 'network_loading_failed']) {
      for (const d of ofType(t).map(dataOf)) {
        const r = requests.get(d.request_id);
        if (r === undefined || d.url === undefined) continue;
        answered++;
        expect({ url: d.url, resource_type: d.resource_type }).toEqual({ url: r.url, resource_type: r.resource_type });
        if (t === 'network_response') expect(d.method).toBe(r.method);
      }
    }
    expect(answered).toBeGreaterThan(100);
    for (const r of requests.values()) {
      if (r.resource_type === 'Image' || r.resource_type === 'Script' || r.resource_type === 'Stylesheet')
        expect(r.method).toBe('GET');
      if (r.method === 'OPTIONS') expect(r.resource_type).toBe('Preflight');
    }
    for (const d of ofType('network_response').map(dataOf)) {
      if (d.resource_type === 'Image') expect(d.mime_type).toMatch(/^image\//);
      if (d.resource_type === 'Media') expect(d.body).toBeUndefined();
    }
  });

  it('cdp_command data follows the per-method table', () => {
    const cmds = ofType('cdp_command').map(dataOf);
    for (const d of cmds) {
      expect(typeof d.method).toBe('string');
      expect(typeof d.connection_id).toBe('string');
      if (String(d.method).startsWith('Browser.')) expect(d.session_id).toBeUndefined();
    }
    const required: Record<string, string[]> = {
      'Input.dispatchMouseEvent': ['event_type'],
      'Input.insertText': ['text_length'],
      'Input.dispatchTouchEvent': ['event_type', 'touch_point_count'],
      'DOM.setFileInputFiles': ['file_count'],
      'Page.handleJavaScriptDialog': ['accept'],
      'Page.navigateToHistoryEntry': ['entry_id'],
      'Page.setWebLifecycleState': ['state'],
      'Target.closeTarget': ['target_id'],
      'Target.disposeBrowserContext': ['browser_context_id'],
      'Browser.cancelDownload': ['download_guid'],
      'Browser.setWindowBounds': ['window_id'],
      'Autofill.trigger': ['field_id'],
    };
    for (const [method, keys] of Object.entries(required)) {
      const sample = cmds.filter((d) => d.method === method);
      expect(sample.length).toBeGreaterThan(0);
      for (const d of sample) for (const k of keys) expect(d).toHaveProperty(k);
    }
    expect(
      cmds.filter((d) => d.method === 'Page.navigate').every((d) => typeof d.url_scheme === 'string' && !('url' in d)),
    ).toBe(true);
  });

  it('is deterministic for a seed (apart from ts, connection durations and when screenshots fall due)', () => {
    const strip = (es: TelemetryEvent[]): string =>
      JSON.stringify(
        es
          .filter((e) => e.type !== 'monitor_screenshot')
          .map((e) => ({ ...e, ts: 0, data: { ...e.data, duration_ms: 0 } })),
      );
    expect(strip(generate(300, 9))).toBe(strip(generate(300, 9)));
    expect(strip(generate(300, 9))).not.toBe(strip(generate(300, 10)));
  });

  it('restricts to requested types and honours pool capture settings', () => {
    const f = new EventFactory(createRng(1), 's', CAPTURE_ALL);
    const only = Array.from({ length: 50 }, () => f.next(['network_request', 'console_log']) as TelemetryEvent);
    expect(new Set(only.map((e) => e.type))).toEqual(new Set(['network_request', 'console_log']));
    const pool = makePool();
    pool.browser_pool_config.telemetry = telemetryConfig(
      { console: false, network: false, page: false, interaction: false },
      ['Page.navigate'],
    );
    const g = new EventFactory(createRng(1), 's', captureFilter(pool));
    const evs = Array.from({ length: 1000 }, () => g.next() as TelemetryEvent);
    const cats = new Set(evs.map((e) => e.category));
    // monitor is silent when console, network, page and interaction are all off (Capture rule 2).
    for (const c of ['console', 'network', 'page', 'interaction', 'monitor']) expect(cats.has(c)).toBe(false);
    expect(evs.some((e) => e.type === 'cdp_command' && dataOf(e).method === 'Page.navigate')).toBe(false);
    expect(evs.some((e) => e.type === 'cdp_disconnect' && (dataOf(e).telemetry_excluded as number) > 0)).toBe(true);
  });

  it('nextJson() (bulk production) gives valid events with fresh, increasing ts', () => {
    const f = new EventFactory(createRng(5), 's', CAPTURE_ALL);
    const parsed = Array.from({ length: 500 }, () => JSON.parse(f.nextJson() as string) as TelemetryEvent);
    for (const [i, e] of parsed.entries()) {
      expect(validateEnvelope({ seq: i + 1, event: e }).ok).toBe(true);
      expect(Object.keys(e)[0]).toBe('ts');
      if (i > 0) expect(e.ts).toBeGreaterThan((parsed[i - 1] as TelemetryEvent).ts);
    }
    expect(new Set(parsed.map((e) => e.type)).size).toBeGreaterThan(15);
  });

  it('nextBulk() gives the bytes JSON.stringify makes of the prepared event, a template behind a fresh ts', () => {
    const f = new EventFactory(createRng(6), 's', CAPTURE_ALL, 'heavy');
    const prepared: TelemetryEvent[] = [];
    const mark = (e: TelemetryEvent): void => {
      e.source = { ...e.source, metadata: { ...e.source.metadata, telemetry_session_id: 'p-1' } };
      prepared.push(e);
    };
    const kinds = { drawn: 0, template: 0, screenshot: 0 };
    for (let i = 0; i < 2000; i++) {
      const preparedBefore = prepared.length;
      const e = f.nextBulk(mark);
      if (e === undefined) throw new Error('the heavy mix captures everything');
      const text = '{"ts":' + e.ts + Buffer.concat(e.tail).toString();
      const event = JSON.parse(text) as TelemetryEvent;
      // Canonical: the text is what JSON.stringify makes of the value (key order, no escapes lost).
      expect(JSON.stringify(event)).toBe(text);
      expect(event.source.metadata?.telemetry_session_id).toBe('p-1');
      expect(e.ts).toBe(event.ts);
      // The category travels with the bytes (the frame log files frames by it), template or not.
      expect(e.category).toBe(event.category);
      // A screenshot (its base64 copied in, not serialised) is never a template: always prepared anew.
      if (event.type === 'monitor_screenshot') {
        expect(prepared.length).toBe(preparedBefore + 1);
        kinds.screenshot++;
      } else kinds[prepared.length > preparedBefore ? 'drawn' : 'template']++;
    }
    // Every drawn event and screenshot is prepared once, a reused template never again.
    expect(prepared).toHaveLength(kinds.drawn + kinds.screenshot);
    expect(kinds.template).toBeGreaterThan(kinds.drawn * 4);
    expect(kinds.screenshot).toBe(Math.floor(2000 / 33));
  });

  it('forgetTemplates(): what follows is drawn and prepared afresh', () => {
    const f = new EventFactory(createRng(8), 's', CAPTURE_ALL);
    let id = 'old';
    const prepare = (e: TelemetryEvent): void => {
      e.source = { ...e.source, metadata: { telemetry_session_id: id } };
    };
    for (let i = 0; i < 200; i++) f.nextBulk(prepare);
    id = 'new';
    f.forgetTemplates();
    const ids = Array.from({ length: 200 }, () => {
      const e = JSON.parse(f.nextJson(prepare) as string) as TelemetryEvent;
      return e.source.metadata?.telemetry_session_id;
    });
    expect(new Set(ids)).toEqual(new Set(['new']));
  });

  it('rejects unknown types in a types filter', () => {
    const f = new EventFactory(createRng(1), 's', CAPTURE_ALL);
    expect(() => f.next(['console_log', 'no_such_type'])).toThrow(/no_such_type/);
  });

  it('complete() fills ts, category and source of a caller-supplied event', () => {
    const f = new EventFactory(createRng(1), 's', CAPTURE_ALL);
    const e = f.complete({ type: 'page_load', data: { url: 'https://x.test/' } });
    expect(e).toMatchObject({
      type: 'page_load',
      category: 'page',
      source: { kind: expect.any(String) },
      data: { url: 'https://x.test/' },
    });
    expect(Number.isSafeInteger(e.ts)).toBe(true);
    expect(f.complete({ type: 'some_future_type', ts: 5, category: 'future' })).toMatchObject({
      ts: 5,
      category: 'future',
    });
  });
});
