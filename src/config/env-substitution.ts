// `${env:VAR}` references in the configuration file, resolved after the YAML is parsed, the way the
// OpenTelemetry Collector (confmap) and the OpenTelemetry configuration data model do it:
//   ${env:NAME}            the variable's value (`${NAME}` is accepted as the short form)
//   ${env:NAME:-default}   the default when the variable is unset or empty
//   $$                     a literal `$` (so `$${env:X}` stays as the text `${env:X}`)
// A string that is exactly one reference takes the type its value has as a YAML scalar
// (`max_bytes: ${env:SPOOL}` with SPOOL=1048576 is a number; `enabled: ${env:X}` with X=false a
// boolean); a reference inside a longer string is spliced in as text. Substituted text is never
// expanded again. Only values are substituted, never keys.
//
// One deliberate difference: an unset variable without a default is an error naming the key and the
// variable, where the Collector silently substitutes an empty string. A configuration that quietly
// loses its collector headers or its API URL to a typo in a variable name is worse than one that
// refuses to start; write `${env:NAME:-}` to ask for an empty value explicitly.
import { parseYaml } from './yaml.js';
import { ConfigError, type ConfigProblems } from './errors.js';
/** The process environment, or a test's stand-in for it. */
export type Env = Record<string, string | undefined>;

const NAME = '[A-Za-z_][A-Za-z0-9_]*';
/** `$$`, or a reference; anything else after a `$` is left as it is. */
const TOKEN = new RegExp(`\\$\\$|\\$\\{(?:env:)?(${NAME})(?::-([^}]*))?\\}|\\$\\{([^}]*)\\}`, 'g');
const WHOLE = new RegExp(`^\\$\\{(?:env:)?${NAME}(?::-[^}]*)?\\}$`);

/**
 * Resolves every reference in the string values of a parsed document; `key` names where it sits.
 * With `problems`, a reference that cannot be resolved is recorded there and its value left out
 * (the rest is still read, so that every problem of the file is reported at once); without, it throws.
 */
export function substituteEnv(value: unknown, env: Env, key = '', problems?: ConfigProblems): unknown {
  if (typeof value === 'string') {
    if (!problems) return substituteString(value, env, key);
    return problems.take(() => substituteString(value, env, key), undefined);
  }
  if (Array.isArray(value)) return value.map((v, i) => substituteEnv(v, env, `${key}[${i}]`, problems));
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = substituteEnv(v, env, key ? `${key}.${k}` : k, problems);
    return out;
  }
  return value;
}

function substituteString(text: string, env: Env, key: string): unknown {
  if (!text.includes('$')) return text;
  const replaced = text.replace(
    TOKEN,
    (token, name: string | undefined, fallback: string | undefined, bad: string | undefined) => {
      if (token === '$$') return '$';
      if (name === undefined) {
        throw new ConfigError(
          key || 'config',
          `"\${${bad ?? ''}}" is not a valid reference: write \${env:NAME} or \${env:NAME:-default} (and $$ for a literal $)`,
        );
      }
      const v = env[name];
      if (v !== undefined && v !== '') return v;
      if (fallback !== undefined) return fallback;
      throw new ConfigError(
        key || 'config',
        `environment variable ${name} is not set (referenced as \${env:${name}}; write \${env:${name}:-default} to give a default)`,
      );
    },
  );
  // A whole-value reference is read as a YAML scalar, so numbers and booleans keep their type.
  if (WHOLE.test(text)) return scalar(replaced);
  return replaced;
}

function scalar(text: string): unknown {
  try {
    const v: unknown = parseYaml(text);
    return v === null || typeof v === 'object' ? text : v;
  } catch {
    return text;
  }
}
