// The file's shape against the one declaration of its keys (config-keys.ts): every unknown key and
// every section or list written as something else, all of them in one pass, each named by its full
// key. The values themselves are the parsers' business (they know rules a declaration cannot); this
// walk is what lets an operator fix every misplaced line of a file at once.
import { ShapeError, UnknownKeyError, type ConfigError } from './errors.js';
import type { KeyNode } from './config-keys.js';
import { isRecord } from '../util/guards.js';
import { writtenAs } from './readers.js';

/** The problems of `value` at `key` against `node`; none when its shape fits. */
export function shapeProblems(value: unknown, node: KeyNode, key: string): ConfigError[] {
  if (value === undefined || value === null) return [];
  switch (node.kind) {
    case 'section': {
      const allowed = Object.keys(node.keys);
      // `state: ./state` for `state: {dir: ./state}`: which keys go there is what to do about it.
      if (!isRecord(value))
        return [
          new ShapeError(
            key || 'config',
            `must be a mapping with the keys ${allowed.join(', ')} (got ${writtenAs(value)})`,
          ),
        ];
      return Object.entries(value).flatMap(([k, v]) => {
        const child = node.keys[k];
        const path = key ? `${key}.${k}` : k;
        if (!child) return [new UnknownKeyError(path, allowed)];
        return shapeProblems(v, child, path);
      });
    }
    case 'list':
      if (!Array.isArray(value)) return [new ShapeError(key, 'must be a list')];
      return value.flatMap((item, i) => shapeProblems(item, node.items, `${key}[${i}]`));
    case 'map':
      return isRecord(value) ? [] : [new ShapeError(key, 'must be a mapping of names to values')];
    case 'either': {
      // A mapping where a section is one of the options is checked as that section.
      const sectionOption = node.options.find((o) => o.kind === 'section');
      return sectionOption && isRecord(value) ? shapeProblems(value, sectionOption, key) : [];
    }
    case 'scalar':
      return [];
  }
}
