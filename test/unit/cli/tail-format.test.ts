// `tail` lines: essentials per type, severity from the mapping, masks from the mapping's redaction,
// `-o json` byte-exact unless something is masked. Times are formatted in the process time zone,
// so the expectations build them from the same Date the formatter uses.
import { describe, expect, it } from 'vitest';
import { defaultMappingOptions } from '../../../src/config/mapping-section.js';
import type { Envelope, TelemetryEvent } from '../../../src/upstream/envelope.js';
import { paint } from '../../../src/cli/ansi.js';
import { eventEssentials, oneLine } from '../../../src/cli/tail-essentials.js';
import { formatEventLine, formatGap, formatTime } from '../../../src/cli/tail-format.js';
import { createTailView } from '../../../src/cli/tail-view.js';

const TS = 1732100000123456;
const plain = paint(false);
const masked = createTailView(defaultMappingOptions.redaction, true);
const raw = createTailView(defaultMappingOptions.redaction, false);

const env = (
  seq: number,
  type: string,
  data?: Record<string, unknown>,
  extra: Partial<TelemetryEvent> = {},
): Envelope => ({
  seq,
  event: { ts: TS, type, category: 'x', source: { kind: 'cdp' }, ...(data ? { data } : {}), ...extra },
});

const line = (e: Envelope, view = masked): string => formatEventLine(e, view.view(e), plain);

describe('essentials', () => {
  it.each([
    ['console_log', { level: 'log', text: 'Hello', args: ['Hello', '1'] }, 'Hello'],
    ['console_log', { level: 'warning', args: ['a', 'b'] }, '[warning] a b'],
    [
      'console_error',
      { text: 'Uncaught TypeError: x', source_url: 'https://a/app.js', line: 3, column: 9 },
      'Uncaught TypeError: x at https://a/app.js:3:9',
    ],
    ['network_request', { method: 'POST', url: 'https://a/api', resource_type: 'XHR' }, 'POST https://a/api [XHR]'],
    [
      'network_response',
      { method: 'GET', url: 'https://a/x', status: 404, status_text: 'Not Found' },
      'GET https://a/x → 404 Not Found',
    ],
    [
      'network_loading_failed',
      { error_text: 'net::ERR_FAILED', canceled: true, url: 'https://a/y' },
      'net::ERR_FAILED (canceled) https://a/y',
    ],
    ['interaction_click', { selector: 'button#go', x: 10, y: 20, text: 'Go' }, 'button#go (10,20) "Go"'],
    ['interaction_click', { selector: 'a', x: 1, true: 2 }, 'a (1,2)'],
    ['page_navigation', { url: 'https://a/next', transition_type: 'link' }, 'https://a/next'],
    ['page_load', { url: 'https://a/' }, 'https://a/'],
    [
      'captcha_solve_result',
      {
        captcha_type: 'turnstile',
        status: 'failure',
        error_code: 'ERR_X',
        website_host: 'a.com',
        website_path: '/login',
        duration_ms: 12345,
      },
      'turnstile failure (ERR_X) a.com/login 12.3s',
    ],
    [
      'cdp_command',
      { method: 'Input.dispatchMouseEvent', event_type: 'mousePressed', x: 5, true: 6 },
      'Input.dispatchMouseEvent mousePressed (5,6)',
    ],
    [
      'cdp_disconnect',
      { connection_id: 'c1', reason: 'client_close', message_count: 4, duration_ms: 3 },
      'c1 client_close 4 messages',
    ],
    ['monitor_screenshot', { png: 'A'.repeat(400) }, 'screenshot 300 B'],
    ['service_crashed', { service: 'chromium', exit_code: 139 }, 'chromium'],
    ['some_future_type', { answer: 42 }, '{"answer":42}'],
    ['network_idle', undefined, ''],
  ])('%s %j → %s', (type, data, expected) => {
    expect(eventEssentials(type, data)).toBe(expected);
  });

  it('keeps one event on one line and strips terminal control sequences', () => {
    expect(oneLine('a\nb\r\nc\td\u001b[31mred')).toBe('a⏎b⏎c d�[31mred');
    expect(oneLine('x'.repeat(500), 10)).toBe('xxxxxxxxx…');
  });
});

describe('pretty line', () => {
  it('time, severity from the mapping, type, essentials, seq', () => {
    const t = formatTime(TS);
    expect(t).toMatch(/^\d\d:\d\d:\d\d\.123$/);
    expect(line(env(7, 'network_response', { method: 'GET', url: 'https://a/x', status: 503 }))).toBe(
      `${t} ERROR network_response           GET https://a/x → 503  #7`,
    );
    expect(line(env(8, 'console_log', { level: 'warning', text: 'careful' }))).toBe(
      `${t} WARN  console_log                [warning] careful  #8`,
    );
    expect(line(env(9, 'captcha_solve_result', { status: 'success', captcha_type: 'hcaptcha' }))).toBe(
      `${t} INFO  captcha_solve_result       hcaptcha success  #9`,
    );
    expect(line(env(10, 'cdp_command', { method: 'Page.navigate' }, { truncated: true }))).toBe(
      `${t} INFO  cdp_command                Page.navigate (truncated)  #10`,
    );
  });

  it('masks URL and header secrets as the mapping does, unless --no-redact', () => {
    const e = env(1, 'network_request', { method: 'GET', url: 'https://user:pw@a.example/cb?code=abc&x=1' });
    expect(line(e)).toContain('GET https://REDACTED:REDACTED@a.example/cb?code=REDACTED&x=1');
    expect(line(e, raw)).toContain('GET https://user:pw@a.example/cb?code=abc&x=1');
  });

  it('colours only when asked', () => {
    const coloured = formatEventLine(
      env(1, 'console_error', { text: 'boom' }),
      masked.view(env(1, 'console_error', { text: 'boom' })),
      paint(true),
    );
    expect(coloured).toContain('\u001b[31m');
    expect(line(env(1, 'console_error', { text: 'boom' }))).not.toContain('\u001b');
  });

  it('gap notices name the missing range', () => {
    expect(formatGap(5, 5, plain)).toBe('⚠ gap: event #5 was not received (evicted by the service or undecodable)');
    expect(formatGap(5, 9, plain)).toBe(
      '⚠ gap: 5 events (#5–#9) were not received (evicted by the service or undecodable)',
    );
  });
});

describe('-o json', () => {
  it('passes the frame text through byte for byte when nothing is masked', () => {
    const e = env(3, 'interaction_click', { selector: 'a', x: 1, true: 2 });
    const text = ` ${JSON.stringify(e)}`; // odd spacing survives: this is the received text, not a re-serialization
    expect(masked.json(e, text)).toBe(text);
  });

  it('re-serializes with masks applied, keeping the wire member names', () => {
    const e = env(4, 'network_request', {
      url: 'https://a/?token=secret',
      headers: { Authorization: 'Bearer abc', Accept: '*/*' },
      true: 2,
    });
    const out = JSON.parse(masked.json(e, JSON.stringify(e))) as Envelope;
    expect(out.seq).toBe(4);
    expect(out.event.data).toEqual({
      url: 'https://a/?token=REDACTED',
      headers: { Authorization: 'REDACTED', Accept: '*/*' },
      true: 2,
    });
    expect(raw.json(e, JSON.stringify(e))).toBe(JSON.stringify(e));
  });

  // What the exporter would send, for every mask: a masked member never prints raw.
  it.each<[string, Envelope, (out: Envelope) => void]>([
    [
      'a typed key alone',
      env(6, 'interaction_key', { key: 'p', selector: '#pw' }),
      (o) => expect(o.event.data).toEqual({ key: 'REDACTED', selector: '#pw' }),
    ],
    [
      'a secret in metadata',
      env(
        7,
        'page_load',
        { url: 'https://a/' },
        { source: { kind: 'cdp', metadata: { authorization: 'Bearer SECRET-A' } } },
      ),
      (o) => expect(o.event.source.metadata).toEqual({ authorization: 'REDACTED' }),
    ],
    [
      'a URL in metadata',
      env(
        8,
        'page_load',
        { url: 'https://a/' },
        { source: { kind: 'cdp', metadata: { ws: 'wss://h/devtools?jwt=SECRET-J' } } },
      ),
      (o) => expect(o.event.source.metadata).toEqual({ ws: 'wss://h/devtools?jwt=REDACTED' }),
    ],
    [
      'a password in post_data',
      env(9, 'network_request', { url: 'https://a/', post_data: 'user=a&password=SECRET-P' }),
      (o) => expect(o.event.data).toMatchObject({ post_data: 'user=a&password=REDACTED' }),
    ],
  ])('-o json masks %s', (_name, e, check) => {
    const text = masked.json(e, JSON.stringify(e));
    expect(text).not.toMatch(/SECRET-|"key":"p"/);
    check(JSON.parse(text) as Envelope);
    expect(raw.json(e, JSON.stringify(e))).toBe(JSON.stringify(e));
  });

  it('rejoined multi-line data becomes one line', () => {
    const e = env(5, 'page_load', { url: 'https://a/' });
    expect(masked.json(e, JSON.stringify(e, null, 2))).toBe(JSON.stringify(e));
  });
});
