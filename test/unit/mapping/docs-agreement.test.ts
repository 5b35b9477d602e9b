// docs/mapping.md, docs/service-api.md and the code must agree: every type and cdp_command method
// the mapping document lists has a mapping case, the promoted attributes a row lists are exactly
// those its cases produce, fixed severities match, and the service document's event and method
// tables are the vocabulary's and the catalogue's.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CATALOGUE, NAMED_WITHOUT_DETAIL, SERVICE_TYPES } from '../../../src/mapping/catalogue.js';
import { CDP_METHODS } from '../../../src/mapping/cdp-methods.js';
import { SEVERITY } from '../../../src/mapping/severity-levels.js';
import { SERVICE_EVENT_TYPES, SPEC_EVENT_TYPES } from '../../../src/vocabulary/event-types.js';
import { TYPE_CASES, type MappingCase } from './cases.js';
import { CDP_CASES } from './cdp-cases.js';
import { isBaseAttribute, mapCase } from './helpers.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const doc = readFileSync(`${root}docs/mapping.md`, 'utf8');

interface Row {
  key: string;
  cells: string[];
}

/** Table rows whose first cell is a backticked name, in the section under `heading`. */
function rows(markdown: string, heading: string): Row[] {
  const start = markdown.indexOf(`\n${heading}\n`);
  if (start === -1) throw new Error(`section ${heading} missing`);
  const end = markdown.indexOf('\n## ', start + heading.length + 2);
  const section = markdown.slice(start, end === -1 ? undefined : end);
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const cells = line
        .slice(1, -1)
        .split(' | ')
        .map((cell) => cell.trim());
      return { key: (cells[0] ?? '').replace(/`/g, ''), cells };
    });
}

/** Backticked dotted names in a cell: the attribute names it lists. */
const attributeNames = (cell: string): string[] =>
  [...cell.matchAll(/`([a-z_]+(?:\.[a-z_]+)+)`/g)].map((m) => m[1] as string);

function promotedBy(cases: MappingCase[]): Set<string> {
  const names = new Set<string>();
  for (const k of cases)
    for (const name of Object.keys(mapCase(k).attributes)) if (!isBaseAttribute(name)) names.add(name);
  return names;
}

const FIXED: Record<string, number> = { INFO: SEVERITY.INFO, WARN: SEVERITY.WARN, ERROR: SEVERITY.ERROR };
const fixedSeverity = (cell: string): number | undefined => {
  const m = /^(INFO|WARN|ERROR)(?: \(|$)/.exec(cell);
  return m === null ? undefined : FIXED[m[1] as string];
};

const typeRows = rows(doc, '## Event types');
const methodRows = rows(doc, '## cdp_command methods');

describe('docs/mapping.md "Event types"', () => {
  it('lists exactly the catalogue, the types beyond the written table, and the unknown rule', () => {
    const expected = [...CATALOGUE.map((e) => e.type), ...SERVICE_TYPES.map((e) => e.type), '*'];
    expect(typeRows.map((r) => r.key).sort()).toEqual(expected.sort());
  });

  for (const row of typeRows) {
    const cases = TYPE_CASES.filter((k) => k.row === row.key);
    it(`${row.key}: has mapping cases`, () => expect(cases.length).toBeGreaterThan(0));
    it(`${row.key}: promoted attributes match the cases`, () => {
      expect([...promotedBy(cases)].sort()).toEqual([...new Set(attributeNames(row.cells[3] ?? ''))].sort());
    });
    it(`${row.key}: category as documented`, () => {
      const entry = [...CATALOGUE, ...SERVICE_TYPES].find((e) => e.type === row.key);
      expect(row.cells[1]).toBe(entry?.category ?? 'as sent');
    });
    const fixed = fixedSeverity(row.cells[2] ?? '');
    if (fixed !== undefined) {
      it(`${row.key}: severity ${row.cells[2]}`, () => {
        for (const k of cases) expect(mapCase(k).severityNumber, k.name).toBe(fixed);
      });
    }
  }

  it('every case belongs to a documented row', () => {
    const keys = new Set(typeRows.map((r) => r.key));
    for (const k of TYPE_CASES) expect(keys.has(k.row), k.row).toBe(true);
  });
});

describe('docs/mapping.md "cdp_command methods"', () => {
  it('lists exactly the cdp_command methods the code knows', () => {
    expect(methodRows.map((r) => r.key)).toEqual(CDP_METHODS.map((m) => m.method));
  });
  for (const row of methodRows) {
    const cases = CDP_CASES.filter((k) => k.row === row.key);
    it(`${row.key}: has a mapping case, severity and promoted attributes as documented`, () => {
      expect(cases.length).toBeGreaterThan(0);
      expect([...promotedBy(cases)].sort()).toEqual(attributeNames(row.cells[2] ?? '').sort());
      for (const k of cases) expect(mapCase(k).severityNumber).toBe(fixedSeverity(row.cells[1] ?? ''));
    });
    it(`${row.key}: "y" in the normalized column exactly for coordinate variants`, () => {
      const coordinates = CDP_METHODS.find((m) => m.method === row.key)?.coordinates;
      expect(/^y\b/.test(row.cells[3] ?? '')).toBe(coordinates);
    });
  }
});

// docs/service-api.md describes the service's events in the repository's own words; its tables are
// held to the vocabulary (src/vocabulary/event-types.ts), the mapper's catalogue and CDP_METHODS.
const api = readFileSync(`${root}docs/service-api.md`, 'utf8');

/** Table rows whose first cell is backticked, under `heading` up to the next heading of any level. */
function apiRows(heading: string): Row[] {
  const start = api.indexOf(`\n${heading}\n`);
  if (start === -1) throw new Error(`section ${heading} missing from docs/service-api.md`);
  const rest = api.slice(start + heading.length + 2);
  const end = rest.search(/^#/m);
  return rows(`\n${heading}\n${end === -1 ? rest : rest.slice(0, end)}`, heading);
}

describe('docs/service-api.md "Event types and categories"', () => {
  const table = apiRows('### Event types and categories');
  const asRecord = (from: string): Record<string, string> =>
    Object.fromEntries(table.filter((r) => r.cells[2] === from).map((r) => [r.key, r.cells[1] as string]));

  it('reads a real table', () => {
    expect(table.length).toBeGreaterThan(30);
    for (const r of table) expect(['written', 'service'], r.key).toContain(r.cells[2]);
  });
  it('the rows marked "written" are SPEC_EVENT_TYPES, in order, with their categories', () => {
    expect(Object.entries(asRecord('written'))).toEqual(Object.entries(SPEC_EVENT_TYPES));
  });
  it('the rows marked "service" are SERVICE_EVENT_TYPES with their categories', () => {
    expect(asRecord('service')).toEqual({ ...SERVICE_EVENT_TYPES });
  });
  it("every row is in the mapper's catalogue with the same category, and the catalogue has no other type", () => {
    const catalogue = [...CATALOGUE, ...SERVICE_TYPES];
    for (const r of table) expect(catalogue.find((e) => e.type === r.key)?.category, r.key).toBe(r.cells[1]);
    expect(table.map((r) => r.key).sort()).toEqual(catalogue.map((e) => e.type).sort());
    expect(CATALOGUE.map((e) => e.type)).toEqual(Object.keys(SPEC_EVENT_TYPES));
  });
  it('names exactly the types the written table left without detail, and each has its real shape', () => {
    const named = new Set(
      [...api.matchAll(/seven the written text names without category or data \(([^)]*)\)/g)].flatMap((m) =>
        [...(m[1] as string).matchAll(/`(\w+)`/g)].map((x) => x[1] as string),
      ),
    );
    expect([...named].sort()).toEqual([...NAMED_WITHOUT_DETAIL].sort());
    expect(SERVICE_TYPES.map((e) => e.type)).toEqual(expect.arrayContaining([...NAMED_WITHOUT_DETAIL]));
  });
});

describe('docs/service-api.md "cdp_command"', () => {
  const table = apiRows('### cdp_command');
  it('lists exactly CDP_METHODS, in order', () => {
    expect(table.map((r) => r.key)).toEqual(CDP_METHODS.map((m) => m.method));
  });
  for (const row of table) {
    const method = CDP_METHODS.find((m) => m.method === row.key);
    it(`${row.key}: bold members are the required ones, x and y exactly for coordinate variants`, () => {
      const members = (row.cells[1] ?? '').split(', ').filter((x) => x !== '—');
      const bold = members.filter((x) => x.startsWith('**')).map((x) => x.replace(/\*/g, ''));
      const plain = members.filter((x) => !x.startsWith('**'));
      expect(bold).toEqual(method?.required);
      expect(plain.filter((x) => x !== 'x' && x !== 'y')).toEqual(method?.optional);
      expect(plain.includes('x') && plain.includes('y')).toBe(method?.coordinates);
    });
  }
});
