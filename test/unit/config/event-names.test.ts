import { describe, expect, it } from 'vitest';
import {
  CATEGORIES,
  knownTypes,
  categoryProblem,
  checkCategories,
  closest,
  editDistance,
  typeWarnings,
} from '../../../src/config/event-names.js';
import { ConfigError } from '../../../src/config/errors.js';
import { CATALOGUE, NAMED_WITHOUT_DETAIL } from '../../../src/mapping/catalogue.js';

describe('event names', () => {
  it('categories are the ten configurable ones plus monitor', () => {
    expect(CATEGORIES).toHaveLength(11);
    for (const e of CATALOGUE) if (e.category) expect(CATEGORIES).toContain(e.category);
  });

  it('every catalogued type is known', () => {
    for (const t of [...CATALOGUE.map((e) => e.type), ...NAMED_WITHOUT_DETAIL]) expect(knownTypes()).toContain(t);
  });

  it.each<[string, string, number]>([
    ['console', 'console', 0],
    ['consol', 'console', 1],
    ['netwrok', 'network', 1],
    ['', 'abc', 3],
    ['kitten', 'sitting', 3],
  ])('edit distance %s → %s = %i', (a, b, d) => {
    expect(editDistance(a, b)).toBe(d);
  });

  it.each<[string, string | undefined]>([
    ['consol', 'console'],
    ['Console', 'console'],
    ['netwrok', 'network'],
    ['screenshots', 'screenshot'],
    ['foo', undefined],
    ['everything', undefined],
  ])('closest category to %s is %s', (name, expected) => {
    expect(closest(name, CATEGORIES)).toBe(expected);
  });

  it('an unknown category is refused with the closest name and the whole list', () => {
    expect(categoryProblem('network')).toBeUndefined();
    expect(categoryProblem('consol')).toBe(
      'unknown category "consol" (did you mean "console"?); valid categories: captcha, connection, console, control, interaction, monitor, network, page, platform, screenshot, system',
    );
    expect(() => checkCategories(['network', 'consol'], 'mapping.filters.include_categories')).toThrow(ConfigError);
    try {
      checkCategories(['network', 'consol'], 'mapping.filters.include_categories');
    } catch (err) {
      expect((err as ConfigError).key).toBe('mapping.filters.include_categories[1]');
    }
  });

  it.each<[string[], string[]]>([
    [['console_error', 'page_load', 'captcha_solve_started'], []],
    [
      ['console_eror'],
      [
        'k: "console_eror" is not a known event type (did you mean "console_error"?); kept, in case the service sends it',
      ],
    ],
    [
      ['brand_new_future_event'],
      ['k: "brand_new_future_event" is not a known event type; kept, in case the service sends it'],
    ],
  ])('types %j warn %j', (names, warnings) => {
    expect(typeWarnings(names, 'k')).toEqual(warnings);
  });
});
