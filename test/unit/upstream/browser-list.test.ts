// The session list's body and paging headers, validated where they enter (upstream/browser-list.ts).
import { validSessionId } from '../../../src/config/sessions.js';
import { describe, expect, it } from 'vitest';
import { listSearchParams, parseListPage, parseListedSession } from '../../../src/upstream/browser-list.js';

describe('GET /browsers query', () => {
  it('sends limit, offset, status, query and every tag as tags[k]=v', () => {
    const p = listSearchParams({
      limit: 100,
      offset: 200,
      status: 'deleted',
      query: 'agent',
      tags: { team: 'a', env: 'prod eu' },
    });
    expect(p.toString()).toBe('limit=100&offset=200&status=deleted&query=agent&tags%5Bteam%5D=a&tags%5Benv%5D=prod+eu');
    expect(listSearchParams({ limit: 100, offset: 0 }).toString()).toBe('limit=100');
  });

  it('sends the region filter when one is configured, and nothing for every region', () => {
    expect(listSearchParams({ limit: 100, offset: 0, status: 'all', region: 'eu-west' }).toString()).toBe(
      'limit=100&status=all&region=eu-west',
    );
    expect(listSearchParams({ limit: 100, offset: 0, region: '' }).toString()).toBe('limit=100');
  });
});

describe('a page of the session list', () => {
  const item = (id: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    session_id: id,
    created_at: '2026-08-01T10:00:00Z',
    ...extra,
  });

  it('takes X-Next-Offset as the absolute start of the next page', () => {
    const page = parseListPage([item('a'), item('b')], 100, 'true', '102');
    expect(page).toMatchObject({ nextOffset: 102, invalid: 0 });
  });

  it('ends on X-Has-More false, on X-Next-Offset 0 with no more, and on an empty page', () => {
    expect(parseListPage([item('a')], 0, 'false', '1')).toMatchObject({ nextOffset: undefined });
    expect(parseListPage([item('a')], 0, undefined, undefined)).toMatchObject({ nextOffset: undefined });
    expect(parseListPage([], 0, 'true', '100')).toMatchObject({ nextOffset: undefined });
  });

  it('falls back to offset + items when X-Has-More is true and X-Next-Offset is absent or 0', () => {
    expect(parseListPage([item('a'), item('b')], 100, 'true', undefined)).toMatchObject({ nextOffset: 102 });
    expect(parseListPage([item('a'), item('b')], 100, 'TRUE', '0')).toMatchObject({ nextOffset: 102 });
  });

  it('a next offset that does not move forward ends the listing instead of looping', () => {
    expect(parseListPage([item('a')], 100, 'true', '50')).toMatchObject({ nextOffset: undefined });
    expect(parseListPage([item('a')], 100, 'true', '100')).toMatchObject({ nextOffset: undefined });
  });

  it('refuses a body that is not an array', () => {
    expect(parseListPage({ items: [] }, 0, 'false', undefined)).toEqual({
      error: 'the session list is not a JSON array',
    });
  });

  it('skips and counts items without a usable session id, naming those whose id cannot be requested; ignores mistyped members', () => {
    const page = parseListPage(
      [
        item('ok', { tags: { team: 'a', n: 3 }, pool: { id: 'p1', name: 7 }, name: 5, deleted_at: 'not a time' }),
        item(''),
        item(7),
        item('a/b'),
        'x',
        null,
      ],
      0,
      'false',
      undefined,
    );
    expect(page).toEqual({
      sessions: [{ id: 'ok', createdAt: Date.parse('2026-08-01T10:00:00Z'), tags: { team: 'a' }, pool: { id: 'p1' } }],
      invalid: 5,
      nextOffset: undefined,
      refused: [
        {
          id: 'a/b',
          problem:
            'session id "a/b" cannot be requested: it contains "/" (ids are letters, digits, ".", "_", "~" and "-"); not followed',
        },
      ],
    });
  });

  it.each([
    ['..', false],
    ['.', false],
    ['a/b', false],
    ['a b', false],
    ['x'.repeat(129), false],
    ['é', false],
    ['htzv5orfit78e1m2biiifpbv', true],
    ['a..b', true],
    ['run_1.2~x-y', true],
  ])('the list id %j is taken: %s (the rule of the control API and the configuration)', (id, ok) => {
    expect(parseListedSession(item(id)) !== undefined).toBe(ok);
    expect(validSessionId(id)).toBe(ok);
  });

  it('reads deleted_at, name and the pool of a deleted session', () => {
    expect(
      parseListedSession(
        item('s', { deleted_at: '2026-08-01T11:00:00.5Z', name: 'checkout', pool: { id: 'p', name: 'agents' } }),
      ),
    ).toEqual({
      id: 's',
      name: 'checkout',
      createdAt: Date.parse('2026-08-01T10:00:00Z'),
      deletedAt: Date.parse('2026-08-01T11:00:00.5Z'),
      tags: {},
      pool: { id: 'p', name: 'agents' },
    });
  });

  it('keeps only pool references a request can ask for: the name when the id cannot be, the reason when neither', () => {
    expect(parseListedSession(item('s', { pool: { id: 'a/b', name: 'agents' } }))?.pool).toEqual({ name: 'agents' });
    const refused = parseListedSession(item('s', { pool: { id: '..', name: '\u001b[2J' } }));
    expect(refused?.pool).toBeUndefined();
    expect(refused?.poolProblem).toBe(
      'pool id ".." cannot be requested: it is dots only, which a URL reads as a path step; pool name "\ufffd[2J" cannot be requested: it contains a control character (U+001B); its records go without pool attributes',
    );
  });
});
