// Who may use the control API (/v1/sessions…): the routes that make the bridge read any session with
// its API key, or stop following one. Health, readiness and metrics are always open: probes and
// scrapers carry no token, and those routes change nothing.
//
// The decision, taken once at start from where the surface listens:
//   a token is set                         → every control request must carry it (Bearer)
//   no token, loopback address             → open: only processes on this host can reach it
//   no token, beyond loopback, opt-out set → open to the network, with a warning at start
//   no token, beyond loopback              → closed: control routes answer 403 and say why
// Names (DNS rebinding): a web page in a browser on this host can point its own name at 127.0.0.1
// and then talk to a loopback listener as if it were same-origin. The page cannot choose the Host
// its browser sends (it is the page's own name), nor hide its Origin on a cross-site request. So:
//   listening on loopback → a request must name a loopback literal or `localhost` in Host (or a name
//                           the operator listed in control_allowed_hosts); anything else is 403
//   any address           → a control request that carries an Origin must come from such a name too
// Tools (curl, the CLI, probes) send a loopback Host and no Origin, so nothing they do changes.
// GET /v1/sessions is a control route too: it lists the session ids, pools and the service's error
// messages, which is exactly the map someone needs to aim PUT/DELETE; the numbers an operator
// alerts on are in /metrics, which stays open.
import { isIP } from 'node:net';

/** The environment variable that opens the control API beyond loopback without a token. */
export const INSECURE_ENV = 'BRIDGE_CONTROL_INSECURE';

export type ControlAccess =
  { mode: 'token'; token: string } | { mode: 'open-loopback' } | { mode: 'open-insecure' } | { mode: 'closed' };

/** True for addresses only this host can reach: 127.0.0.0/8, ::1, localhost. A wildcard is not. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h === '::1') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  // IPv4-mapped loopback (::ffff:127.0.0.1).
  return /^::ffff:127\./.test(h);
}

/** The host part of a Host header or a URL's host (port and IPv6 brackets removed), lower case. */
function hostName(hostHeader: string): string {
  const h = hostHeader.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']') === -1 ? undefined : h.indexOf(']'));
  const colon = h.indexOf(':');
  return (colon === -1 ? h : h.slice(0, colon)).replace(/\.$/, '');
}

/** A name a request may use: a loopback literal, `localhost`, or one the operator listed. */
export function nameAllowed(name: string, listed: ReadonlySet<string>): boolean {
  return isLoopback(name) || listed.has(name);
}

/** The Host header of a request to a loopback listener: absent (HTTP/1.0) or an allowed name. */
export function hostAllowed(hostHeader: string | undefined, listed: ReadonlySet<string>): boolean {
  return hostHeader === undefined || nameAllowed(hostName(hostHeader), listed);
}

/** The Origin of a control request: absent (not a browser), or a page served from an allowed name. */
export function originAllowed(origin: string | undefined, listed: ReadonlySet<string>): boolean {
  if (origin === undefined) return true;
  // `null` is what a sandboxed frame or a file: page sends: never one of ours.
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    return false;
  }
  return host !== '' && nameAllowed(hostName(host), listed);
}

/** control_allowed_hosts as the set hostAllowed/originAllowed read (lower case, no trailing dot). */
export function allowedHostSet(names: readonly string[] | undefined): ReadonlySet<string> {
  return new Set((names ?? []).map((n) => n.trim().toLowerCase().replace(/\.$/, '')).filter(Boolean));
}

export function decideControlAccess(host: string, token: string | undefined, insecure: boolean): ControlAccess {
  if (token !== undefined && token !== '') return { mode: 'token', token };
  if (isLoopback(host)) return { mode: 'open-loopback' };
  return insecure ? { mode: 'open-insecure' } : { mode: 'closed' };
}

/**
 * Compares a presented token with the configured one in constant time. Both sides are hashed first
 * so that neither the content nor the length of the secret shows in the comparison's timing.
 */
export function tokenMatches(presented: string, expected: string): boolean {
  // node:crypto at the first token check, not at load: only a bridge with a control token needs it.
  const { createHash, timingSafeEqual } = process.getBuiltinModule('node:crypto');
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b) && presented.length > 0;
}

/** The bearer token of an Authorization header, or '' when there is none. */
export function bearerToken(header: string | undefined): string {
  return /^Bearer[ \t]+(.+?)[ \t]*$/i.exec(header ?? '')?.[1] ?? '';
}

/** One sentence for the start-up log: what the control API is, at this address. */
export function describeControlAccess(a: ControlAccess): string {
  switch (a.mode) {
    case 'token':
      return 'control API (/v1/sessions) requires the bearer token (BRIDGE_CONTROL_TOKEN)';
    case 'open-loopback':
      return 'control API (/v1/sessions) open without a token: loopback only';
    case 'open-insecure':
      return `control API (/v1/sessions) OPEN TO THE NETWORK without a token (${INSECURE_ENV}=true): anyone who reaches this port can make the bridge read sessions with its key`;
    case 'closed':
      return `control API (/v1/sessions) disabled: this address is reachable beyond loopback and no BRIDGE_CONTROL_TOKEN is set (or set ${INSECURE_ENV}=true to open it anyway)`;
  }
}
