// What the mapping cases of every category share: the case's shape, the page and the service's
// event context they are stamped with, a stack trace and the `c` builder (../cases.ts joins them).
import type { AttributeValue, JsonValue } from '../../../../src/vocabulary/log-record.js';
import type { MappingOptions } from '../../../../src/config/mapping-section.js';
import { SEVERITY } from '../../../../src/mapping/severity-levels.js';

export interface MappingCase {
  name: string;
  /** The docs/mapping.md row this case pins: a type, `*`, or a cdp_command method. */
  row: string;
  type: string;
  category: string;
  data?: Record<string, unknown>;
  options?: (o: MappingOptions) => MappingOptions;
  severity: number;
  /** Promoted attributes expected (subset check; docs-agreement checks the full set). */
  attributes?: Record<string, AttributeValue>;
  /** Expected body, when the case pins it. */
  body?: JsonValue;
  /** Attributes that must not be set. */
  absent?: string[];
}

export const { TRACE, DEBUG, INFO, WARN, ERROR } = SEVERITY;
export const PAGE = 'https://shop.example:8443/checkout?step=2';
export const PAGE_ATTRS = {
  'url.full': PAGE,
  'url.scheme': 'https',
  'server.address': 'shop.example',
  'server.port': 8443,
};
// The whole BrowserEventContext the service stamps on CDP-sourced events (Node SDK telemetry.ts):
// every member stays in the body, none becomes an attribute (docs/mapping.md says why).
export const ctx = {
  url: PAGE,
  frame_id: 'F1',
  loader_id: 'L1',
  nav_seq: 3,
  target_id: 'T1',
  target_type: 'page',
  session_id: 'S1',
};
// CDP Runtime.StackTrace as the service passes it on: innermost frame first, zero-based positions.
export const STACK = {
  callFrames: [
    { functionName: 'pay', scriptId: '7', url: 'https://shop.example/app.js', lineNumber: 9, columnNumber: 14 },
    { functionName: 'main', scriptId: '7', url: 'https://shop.example/app.js', lineNumber: 40, columnNumber: 2 },
  ],
};
export const NULL_BLOB = 'blob:null/83f934c7-b316-4329-9ec9-83db4943886e';
export const NULL_BLOB_STACK = {
  callFrames: [{ functionName: '', scriptId: '3', url: NULL_BLOB, lineNumber: 0, columnNumber: 8 }],
};
export const LOC = {
  'code.function.name': 'pay',
  'code.file.path': 'https://shop.example/app.js',
  'code.line.number': 10,
  'code.column.number': 15,
};

export const c = (
  row: string,
  name: string,
  rest: Omit<MappingCase, 'row' | 'name' | 'type'> & { type?: string },
): MappingCase => ({
  row,
  name,
  type: rest.type ?? row,
  ...rest,
});
