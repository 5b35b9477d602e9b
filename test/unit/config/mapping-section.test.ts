// The `mapping:` configuration section: defaults and one clear error naming the key.
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config/errors.js';
import { defaultMappingOptions, parseMappingOptions } from '../../../src/config/mapping-section.js';

describe('parseMappingOptions', () => {
  it('absent or empty section → defaults', () => {
    expect(parseMappingOptions(undefined, 'mapping')).toEqual(defaultMappingOptions);
    expect(parseMappingOptions(null, 'mapping')).toEqual(defaultMappingOptions);
    expect(parseMappingOptions({}, 'mapping')).toEqual(defaultMappingOptions);
  });

  it('defaults: redaction on, inline screenshots, 64 KiB records, map bodies, no filters', () => {
    expect(defaultMappingOptions).toMatchObject({
      redaction: {
        enabled: true,
        urlUserinfo: true,
        dropPostData: false,
        dropResponseBody: false,
        dropApiCallCode: false,
        maskTypedKeys: true,
        maskBodySecrets: true,
      },
      screenshots: { policy: 'inline', maxRecordBytes: 245760 },
      maxRecordBytes: 65536,
      bodyFormat: 'map',
      filters: {},
    });
    expect(defaultMappingOptions.redaction.headers).toEqual(
      expect.arrayContaining(['authorization', 'proxy-authorization', 'cookie', 'set-cookie']),
    );
  });

  it('reads every key', () => {
    const o = parseMappingOptions(
      {
        body_format: 'json',
        max_record_bytes: 8192,
        redaction: {
          enabled: true,
          headers: ['a'],
          additional_headers: ['b'],
          query_params: ['c'],
          additional_query_params: ['d'],
          url_userinfo: false,
          drop_post_data: true,
          drop_response_body: true,
          drop_api_call_code: true,
          mask_typed_keys: false,
          mask_body_secrets: false,
          mask_jwts: false,
        },
        screenshots: { policy: 'directory', directory: '/tmp/shots', max_record_bytes: 2097152 },
        filters: {
          include_categories: ['console'],
          exclude_categories: ['screenshot'],
          include_types: ['api_call'],
          exclude_types: ['network_idle'],
        },
      },
      'mapping',
    );
    expect(o).toEqual({
      bodyFormat: 'json',
      maxRecordBytes: 8192,
      redaction: {
        enabled: true,
        headers: ['a', 'b'],
        queryParams: ['c', 'd'],
        urlUserinfo: false,
        dropPostData: true,
        dropResponseBody: true,
        dropApiCallCode: true,
        maskTypedKeys: false,
        maskBodySecrets: false,
        maskJwts: false,
      },
      screenshots: { policy: 'directory', directory: '/tmp/shots', maxRecordBytes: 2097152 },
      filters: {
        includeCategories: ['console'],
        excludeCategories: ['screenshot'],
        includeTypes: ['api_call'],
        excludeTypes: ['network_idle'],
      },
    });
  });

  it('does not share arrays with the defaults', () => {
    const o = parseMappingOptions({ redaction: { additional_headers: ['x-extra'] } }, 'mapping');
    expect(o.redaction.headers).toContain('x-extra');
    expect(defaultMappingOptions.redaction.headers).not.toContain('x-extra');
  });

  it.each([
    ['not a mapping', 'mapping', 'must be a mapping (got "not a mapping")'],
    [{ bogus: 1 }, 'mapping.bogus', 'unknown key'],
    [{ body_format: 'xml' }, 'mapping.body_format', 'one of: map, json'],
    [{ max_record_bytes: '64 bananas' }, 'mapping.max_record_bytes', 'size'],
    [{ max_record_bytes: 100 }, 'mapping.max_record_bytes', 'between'],
    [{ max_record_bytes: 10 * 1024 * 1024 }, 'mapping.max_record_bytes', 'between'],
    [{ redaction: { enabled: 'yes' } }, 'mapping.redaction.enabled', 'true or false'],
    [{ redaction: { headers: 'authorization' } }, 'mapping.redaction.headers', 'list'],
    [{ redaction: { headers: ['ok', ''] } }, 'mapping.redaction.headers[1]', 'non-empty'],
    [{ redaction: { headerz: [] } }, 'mapping.redaction.headerz', 'unknown key'],
    [{ screenshots: { policy: 'upload' } }, 'mapping.screenshots.policy', 'inline, drop, directory'],
    [{ screenshots: { policy: 'directory' } }, 'mapping.screenshots.directory', 'required'],
    [{ screenshots: { max_record_bytes: 100 } }, 'mapping.screenshots.max_record_bytes', 'between'],
    [{ screenshots: { max_record_bytes: 8 * 1024 * 1024 } }, 'mapping.screenshots.max_record_bytes', 'between'],
    [{ screenshots: { directory: 5 } }, 'mapping.screenshots.directory', 'path'],
    [{ filters: { include_types: [1] } }, 'mapping.filters.include_types[0]', 'non-empty'],
    [{ filters: [] }, 'mapping.filters', 'must be a mapping (got a list)'],
  ])('%j → %s', (raw, key, message) => {
    let error: unknown;
    try {
      parseMappingOptions(raw, 'mapping');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).key).toBe(key);
    expect((error as ConfigError).message).toContain(message);
  });

  it('uses the given key prefix', () => {
    expect(() => parseMappingOptions({ body_format: 1 }, 'sessions.s1.mapping')).toThrow(
      'sessions.s1.mapping.body_format',
    );
  });
});
