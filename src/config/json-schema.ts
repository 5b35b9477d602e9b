// The configuration file's JSON Schema (draft-07, what YAML editors read through
// `# yaml-language-server: $schema=…`), generated from the one declaration of the keys
// (config-keys.ts). config/bridge.schema.json is this function's output, committed so editors find
// it; a test fails when the two differ (regenerate with `npm run schema`).
//
// The schema accepts what the parsers accept: a number may be written as a string of digits, a
// duration as "45s", a size as "256MiB", and any non-text value as one `${env:NAME}` reference
// (resolved after parsing, env-substitution.ts). What a schema cannot say (a file that must exist,
// limits that depend on another key) is left to `validate`.
import type { KeyNode, Scalar } from './config-keys.js';
import { CONFIG_FILE } from './config-keys.js';

type Schema = Record<string, unknown>;

const ENV_REF: Schema = { $ref: '#/definitions/envRef' };
const DIGITS: Schema = { type: 'string', pattern: '^\\s*\\d+\\s*$' };

const SCALARS: { [S in Scalar]: (min?: number, max?: number) => Schema[] } = {
  string: () => [{ type: 'string' }],
  url: () => [{ type: 'string', pattern: '^(https?://|\\$\\{)' }],
  boolean: () => [{ type: 'boolean' }, ENV_REF],
  integer: (min, max) => [{ type: 'integer', ...bounds(min, max) }, DIGITS, ENV_REF],
  duration: () => [
    { type: 'integer', minimum: 0 },
    { type: 'string', pattern: '^\\s*(\\d+|(\\d+(\\.\\d+)?(ns|us|µs|ms|s|m|h))+)\\s*$' },
    ENV_REF,
  ],
  size: () => [
    { type: 'integer', minimum: 0 },
    { type: 'string', pattern: '^\\s*\\d+(\\.\\d+)?\\s*([bB]|[kKmMgG]([iI]?[bB])?)?\\s*$' },
    ENV_REF,
  ],
};

function bounds(min: number | undefined, max: number | undefined): Schema {
  return { ...(min !== undefined ? { minimum: min } : {}), ...(max !== undefined ? { maximum: max } : {}) };
}

/** One of several schemas; a single one stands alone. */
function anyOf(options: Schema[], description?: string): Schema {
  const doc = description !== undefined ? { description } : {};
  return options.length === 1 ? { ...doc, ...options[0] } : { ...doc, anyOf: options };
}

function nodeSchema(node: KeyNode): Schema {
  switch (node.kind) {
    case 'section':
      return {
        description: node.doc,
        // A section whose keys are all commented out is null in YAML: the parsers read it as empty.
        type: ['object', 'null'],
        properties: Object.fromEntries(Object.entries(node.keys).map(([k, v]) => [k, nodeSchema(v)])),
        additionalProperties: false,
      };
    case 'list':
      return { description: node.doc, type: ['array', 'null'], items: nodeSchema(node.items) };
    case 'map':
      return {
        description: node.doc,
        type: ['object', 'null'],
        additionalProperties: { type: ['string', 'number', 'boolean'] },
      };
    case 'either':
      return anyOf(
        node.options.map((o) => nodeSchema(o)),
        node.doc,
      );
    case 'scalar':
      if (node.values) return anyOf([{ enum: [...node.values] }, ENV_REF], node.doc);
      return anyOf(SCALARS[node.type](node.min, node.max), node.doc);
  }
}

/** The schema of the whole file, as committed in config/bridge.schema.json. */
export function configJsonSchema(): Schema {
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'browser-telemetry-bridge configuration',
    ...nodeSchema(CONFIG_FILE),
    definitions: {
      envRef: {
        description: 'An environment variable reference: ${env:NAME} or ${env:NAME:-default}.',
        type: 'string',
        pattern: '^\\$\\{(env:)?[A-Za-z_][A-Za-z0-9_]*(:-[^}]*)?\\}$',
      },
    },
  };
}

/** The schema as the committed file holds it. */
export function configJsonSchemaText(): string {
  return `${JSON.stringify(configJsonSchema(), null, 2)}\n`;
}
