// The `spool` line of `check` (cli/check-spool.ts) for each answer the archive probe can get, with
// a client that answers as scripted: the line names the mode and, when the archive cannot be asked,
// the service's own words.
import { describe, expect, it } from 'vitest';
import { probeSpoolMode } from '../../../src/cli/check-spool.js';
import { buildConfig } from '../../../src/config/load-config.js';
import type { UpstreamClient } from '../../../src/upstream/client.js';

const config = buildConfig({}, { BROWSER_API_URL: 'http://svc.test', BROWSER_API_KEY: 'k', BRIDGE_SESSIONS: 's1' });
const answering = (page: unknown): UpstreamClient =>
  ({
    listEvents: () => (page instanceof Error ? Promise.reject(page) : Promise.resolve(page)),
  }) as unknown as UpstreamClient;

describe('check: spool', () => {
  it.each<[string, unknown, RegExp]>([
    ['a page', { kind: 'ok', items: [], hasMore: false }, /mode overflow .*; the archive answers$/],
    [
      'a 200 that is not a list',
      { kind: 'error', status: 200, error: { code: 'invalid_response', message: 'archive page is not a list' } },
      /the archive could not be asked now \(HTTP 200: archive page is not a list\)/,
    ],
    [
      'a 503',
      { kind: 'error', status: 503, error: { code: 'unavailable', message: 'try later' } },
      /could not be asked now \(HTTP 503: try later\)/,
    ],
    ['a network failure', new Error('ECONNREFUSED'), /could not be asked now \(ECONNREFUSED\)/],
  ])('%s', async (_name, page, detail) => {
    const item = await probeSpoolMode(answering(page), config);
    expect(item.label).toBe('spool');
    expect(item.detail).toMatch(detail);
  });
});
