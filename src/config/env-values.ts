// The one rule for environment values: a variable set to the empty string, or to whitespace only,
// counts as unset, so the file's value or the default applies. The OpenTelemetry SDK specification
// reads its OTEL_* variables this way ("Parsing empty value": an empty value is treated as unset),
// and an orchestrator or an .env file often sets a variable it has no value for (`FOO=`). Before,
// each key decided for itself: an empty BRIDGE_LISTEN turned the HTTP surface off, an empty
// BRIDGE_WORKERS was an error, an empty BRIDGE_MAX_SESSIONS took the default over the file's value.
// Words turn things off (`BRIDGE_LISTEN=off`, `BRIDGE_MEMORY_LIMIT=off`), never an empty value.
//
// The rule covers the variables the configuration owns: BRIDGE_*, BROWSER_API_* and OTEL_*. The
// proxy variables are read per request by util/proxy-env.ts the way curl reads them, and the load
// checks them as a request would read them, so they are left as they are here.
import type { Env } from './env-substitution.js';

/**
 * Kept when blank, so their reader can refuse them. BRIDGE_CONTROL_TOKEN: an empty token is most
 * often a secret that came out empty, and read as unset it would leave the control API without a
 * token, open on loopback (server/control-access.ts): a configuration meant to be locked would
 * silently be open.
 */
const REFUSED_WHEN_BLANK: ReadonlySet<string> = new Set(['BRIDGE_CONTROL_TOKEN']);

const OWNED = /^(?:BRIDGE_|BROWSER_API_|OTEL_)/;

/** True for a value that counts as unset: absent, empty, or whitespace only. */
export function isBlank(value: string | undefined): boolean {
  return value === undefined || value.trim() === '';
}

/** The environment as the configuration reads it: the bridge's blank variables left out (but those refused when blank). */
export function setVariables(env: Env): Env {
  const out: Env = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (OWNED.test(name) && isBlank(value) && !REFUSED_WHEN_BLANK.has(name)) continue;
    out[name] = value;
  }
  return out;
}
