// The walk every OTLP export request shares, logs and traces alike: resource_X → scope_X → items,
// each item handed over with its resource's attributes and its scope flattened in. A bad value
// throws OtlpDecodeError with the path to it (`resourceLogs[0].scopeLogs[1].logRecords[2]: …`).
import { keyValuesToObject } from './any-value.js';
import { asList, asObject, asString, field, rethrowAt, type WireObject } from './otlp-value.js';

/** The instrumentation scope of an item; proto3 cannot tell an empty version from none. */
export interface ReceivedScope {
  name: string;
  version?: string;
}

/** One level of the walk: the list's field name (camelCase, snake_case) and what one entry is. */
interface Level {
  field: readonly [camel: string, snake: string];
  entry: string;
}

/** The three levels of one signal's request. */
export interface RequestShape {
  resources: Level;
  scopes: Level;
  items: Level;
}

/** Walks a decoded request (either encoding) and maps every item, in request order. */
export function flattenRequest<T>(
  request: unknown,
  shape: RequestShape,
  toItem: (wire: WireObject, resource: Record<string, unknown>, scope: ReceivedScope) => T,
): T[] {
  const out: T[] = [];
  eachEntry(asObject(request, 'request'), shape.resources, (rs) => {
    const resource = toResource(field(rs, 'resource'));
    eachEntry(rs, shape.scopes, (ss) => {
      const scope = toScope(field(ss, 'scope'));
      eachEntry(ss, shape.items, (item) => out.push(toItem(item, resource, scope)));
    });
  });
  return out;
}

/** Calls `each` on every entry of `parent`'s list at `level`, naming the entry in any error. */
function eachEntry(parent: WireObject, level: Level, each: (entry: WireObject) => void): void {
  const [camel, snake] = level.field;
  const list = asList(field(parent, camel, snake), camel);
  for (let i = 0; i < list.length; i++) {
    try {
      each(asObject(list[i], level.entry));
    } catch (err) {
      rethrowAt(err, `${camel}[${i}]`);
    }
  }
}

function toResource(wire: unknown): Record<string, unknown> {
  if (wire === undefined) return {};
  try {
    return keyValuesToObject(field(asObject(wire, 'Resource'), 'attributes'));
  } catch (err) {
    rethrowAt(err, 'resource.attributes');
  }
}

function toScope(wire: unknown): ReceivedScope {
  if (wire === undefined) return { name: '' };
  const scope = asObject(wire, 'scope');
  const name = asString(field(scope, 'name'), 'scope.name');
  const version = asString(field(scope, 'version'), 'scope.version');
  // The exporter leaves the field out when unset.
  return version === '' ? { name } : { name, version };
}
