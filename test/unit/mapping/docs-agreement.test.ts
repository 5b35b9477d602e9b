// docs/mapping.md and the code must agree: every type and cdp_command method
// the document lists has a mapping case, the promoted attributes a row lists are exactly those its
// cases produce, fixed severities match, and the catalogue covers the spec's tables.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CATALOGUE, NAMED_WITHOUT_DETAIL, SERVICE_TYPES } from '../../../src/mapping/catalogue.js';
import { CDP_METHODS } from '../../../src/mapping/cdp-methods.js';
import { SEVERITY } from '../../../src/mapping/severity-levels.js';
import { CDP_CASES, TYPE_CASES, type MappingCase } from './cases.js';
import { isBaseAttribute, mapCase } from './helpers.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const doc = readFileSync(`${root}docs/mapping.md`, 'utf8');
const specPath = `${root}../shared/spec/browser-session-service.md`;

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
      const cells = line.slice(1, -1).split(' | ').map((cell) => cell.trim());
      return { key: (cells[0] ?? '').replace(/`/g, ''), cells };
    });
}

/** Backticked dotted names in a cell: the attribute names it lists. */
const attributeNames = (cell: string): string[] => [...cell.matchAll(/`([a-z_]+(?:\.[a-z_]+)+)`/g)].map((m) => m[1] as string);

function promotedBy(cases: MappingCase[]): Set<string> {
  const names = new Set<string>();
  for (const k of cases) for (const name of Object.keys(mapCase(k).attributes)) if (!isBaseAttribute(name)) names.add(name);
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
  it('lists exactly the catalogue, the types beyond the spec, and the unknown rule', () => {
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
  it('lists exactly the spec methods the code knows', () => {
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

// The spec sits beside the repository (../shared); CI clones it there. Skipped when absent.
describe.skipIf(!existsSync(specPath))('catalogue covers the service specification', () => {
  const spec = existsSync(specPath) ? readFileSync(specPath, 'utf8') : '';
  it('every type of the spec table is in the catalogue with its category', () => {
    const section = spec.slice(spec.indexOf('### Event types and categories'), spec.indexOf('### cdp_command'));
    const table = rows('\n' + section.replace(/^\| (\w+) \| (\w+) \|/gm, '| `$1` | $2 |'), '### Event types and categories').filter(
      (r) => r.key !== 'type',
    );
    expect(table.length).toBeGreaterThan(20);
    for (const r of table) {
      const entry = CATALOGUE.find((e) => e.type === r.key);
      expect(entry, r.key).toBeDefined();
      expect(entry?.category).toBe(r.cells[1]);
    }
    expect(table.length).toBe(CATALOGUE.length);
  });
  it('every type named without detail has its real shape beyond the spec table', () => {
    expect(SERVICE_TYPES.map((e) => e.type)).toEqual(expect.arrayContaining([...NAMED_WITHOUT_DETAIL]));
  });
  it('the spec names exactly those types without detail', () => {
    const line = spec.split('\n').find((l) => l.startsWith('Event types whose category and data members:')) ?? '';
    for (const t of NAMED_WITHOUT_DETAIL) expect(line).toContain(t);
    expect(line.split(':')[1]?.split(',').length).toBe(NAMED_WITHOUT_DETAIL.length);
  });
  it('every cdp_command method of the spec is in CDP_METHODS', () => {
    const section = spec.slice(spec.indexOf('### cdp_command'), spec.indexOf('Enumerations (an out-of-set'));
    const methods = [...section.matchAll(/^\| ([A-Z]\w+\.\w+(?:, [A-Z]\w+\.\w+)*) \|/gm)].flatMap((m) => (m[1] as string).split(', '));
    expect(methods.sort()).toEqual(CDP_METHODS.map((m) => m.method).sort());
  });
});
