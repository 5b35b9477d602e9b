// The probes behind `check`, each one request or one file operation, each returning a CheckItem-ready
// verdict rather than throwing. Nothing here prints headers, keys or full URLs with credentials.
import { parseSessionExport, sameCollector, sessionExportWarning } from '../upstream/session-export.js';
import { namedSession, sessionNameWarning } from '../upstream/session-ref.js';
import { randomBytes } from 'node:crypto';
import { rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { makeDirs } from '../util/make-dirs.js';
import { STATUS_CODES } from '../util/node-http.js';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { decodeContentCoding } from '../util/content-coding.js';
import type { ExporterConfig } from '../config/schema.js';
import { isOtlpAnswer } from '../wire/partial-success.js';
import { readPrefix } from '../util/read-prefix.js';
import { HttpClient } from '../util/http-client.js';
import { isHttpTimeout } from '../util/http-timeout.js';
import { describeApiError, type ApiErrorBody } from '../upstream/api-error.js';
import type { UpstreamClient } from '../upstream/client.js';
import { parsePool, poolFindings, enabledCategories, TELEMETRY_CATEGORIES } from '../upstream/browser-pool.js';
import { BRIDGE_VERSION } from '../util/version.js';
import type { CheckItem } from './checklist.js';
import { displayUrl } from '../mapping/display-url.js';
import type { RouteAnswer } from './service-identity.js';
import { stateDirBusy, stateDirRoomProblem, stateDirShapeProblem, stateFilesProblem, unusable } from './state-dir.js';
import { networkCode, networkMessage } from '../util/network-message.js';

/** Outcome of one request to the session service. */
export type ServiceAnswer =
  | { kind: 'ok'; item: CheckItem }
  | { kind: 'http'; status: number; error: ApiErrorBody; item: CheckItem }
  | { kind: 'network'; message: string; item: CheckItem };

/** A failed request in words a person reads in a checklist. */
export function describeNetworkError(err: unknown): string {
  const code = networkCode(err);
  if (code === 'ECONNREFUSED') return 'connection refused (nothing listening there?)';
  if (code === 'ENOTFOUND') return 'host not found';
  if (isHttpTimeout(code)) return 'timed out';
  return networkMessage(err);
}

const AUTH_HINT: Record<number, string> = {
  401: 'the API key was rejected: check BROWSER_API_KEY / BROWSER_API_KEY_FILE',
  403: 'the API key lacks the permission or plan for this',
};

function refused(label: string, status: number, error: ApiErrorBody, what: string): CheckItem {
  const hint =
    status === 404
      ? what
      : (AUTH_HINT[status] ?? (status === 429 ? 'rate limited; try again later' : 'the service failed'));
  return { label, status: 'fail', detail: `${hint} (${describeApiError(status, error)})` };
}

/**
 * Opens the session's stream and closes it at once: proves the session exists and the key may read
 * it. Then reads the session itself for its own OTLP export: exporting too, it doubles every event
 * at a backend that receives both (said as a warning, the collector named when it is the bridge's).
 */
export async function probeSession(client: UpstreamClient, id: string, collectorUrl?: string): Promise<ServiceAnswer> {
  const label = `session ${id}`;
  const ac = new AbortController();
  try {
    const res = await client.openStream(id, { replayAll: false }, ac.signal);
    if (res.kind === 'stream') {
      res.body.destroy();
      const notes = await sessionExportNotes(client, id, collectorUrl);
      return { kind: 'ok', item: { label, status: 'ok', detail: 'stream opens (200 text/event-stream)', notes } };
    }
    if (res.kind === 'bad-content-type') {
      return {
        kind: 'ok',
        item: {
          label,
          status: 'fail',
          detail: `200 with content type ${res.contentType}, not text/event-stream (a proxy in between?)`,
        },
      };
    }
    // A 404 is an ended session or one the service never had: an ended one is not a failure (the
    // daemon counts it ended and delivers its unread tail from the archive), so ask which it is.
    if (res.status === 404 && (await endedSession(client, id)))
      return {
        kind: 'ok',
        item: {
          label,
          status: 'ok',
          detail:
            "ended (the service knows it; its stream is closed): run delivers what it has not yet delivered from the service's archive",
        },
      };
    return {
      kind: 'http',
      status: res.status,
      error: res.error,
      item: refused(label, res.status, res.error, 'session not found: the service does not know it'),
    };
  } catch (err) {
    const message = describeNetworkError(err);
    return { kind: 'network', message, item: { label, status: 'fail', detail: message } };
  } finally {
    ac.abort();
  }
}

/**
 * Whether a session whose stream answered 404 ended (GET /browsers/{id}?include_deleted=true still
 * finds it) rather than never existed; a lookup that fails says no.
 */
export async function endedSession(client: UpstreamClient, id: string): Promise<boolean> {
  const got = await client.getSession(id, AbortSignal.timeout(5000)).catch(() => undefined);
  return got?.kind === 'ok';
}

/**
 * Notes on the session object: a reference that is a name rather than the id, and the session's own
 * export; none when neither applies or the session cannot be read (best effort).
 */
async function sessionExportNotes(
  client: UpstreamClient,
  id: string,
  collectorUrl: string | undefined,
): Promise<Array<{ level: 'warn'; text: string }>> {
  const got = await client.getSession(id).catch(() => undefined);
  const exp = got?.kind === 'ok' ? parseSessionExport(got.value) : undefined;
  const warning = sessionExportWarning(
    exp,
    exp !== undefined && collectorUrl !== undefined && sameCollector(exp, collectorUrl),
  );
  const named = got?.kind === 'ok' ? namedSession(id, got.value) : undefined;
  return [
    ...(named !== undefined ? [{ level: 'warn' as const, text: sessionNameWarning(id, named) }] : []),
    ...(warning !== undefined ? [{ level: 'warn' as const, text: warning }] : []),
  ];
}

/** Looks the pool up and reports what its telemetry configuration means for the bridge. */
export async function probePool(client: UpstreamClient, ref: string): Promise<ServiceAnswer> {
  const label = `pool ${ref}`;
  try {
    const res = await client.getPool(ref);
    if (res.kind === 'error')
      return {
        kind: 'http',
        status: res.status,
        error: res.error,
        item: refused(label, res.status, res.error, 'pool not found'),
      };
    const parsed = parsePool(res.value);
    if (!parsed.ok)
      return {
        kind: 'ok',
        item: { label, status: 'fail', detail: `the answer is not a browser pool: ${parsed.reason}` },
      };
    const pool = parsed.pool;
    const name = pool.name !== undefined && pool.name !== pool.id ? `${pool.name} (${pool.id})` : pool.id;
    const t = pool.telemetry;
    let categories = '';
    if (t?.hasBrowserSection) {
      const on = enabledCategories(t).length;
      const unstated = TELEMETRY_CATEGORIES.filter((c) => t.categories[c] === undefined).length;
      categories =
        unstated === 0
          ? `, ${on} of ${TELEMETRY_CATEGORIES.length} telemetry categories on`
          : `, telemetry categories: ${on} on, ${TELEMETRY_CATEGORIES.length - on - unstated} off, ${unstated} not stated`;
    }
    const notes = poolFindings(pool).map((f) => ({ level: f.level, text: f.message }));
    return {
      kind: 'ok',
      item: { label, status: 'ok', detail: `${name}, ${pool.region ?? 'region ?'}${categories}`, notes },
    };
  } catch (err) {
    const message = describeNetworkError(err);
    return { kind: 'network', message, item: { label, status: 'fail', detail: message } };
  }
}

/**
 * A request to a route that cannot exist under the base URL, with the configured key: what "no such
 * route" looks like here, to compare with the answers of the known routes (service-identity.ts).
 */
export async function probeNoRoute(
  client: Pick<UpstreamClient, 'probeRoute'>,
  timeoutMs: number,
): Promise<RouteAnswer | undefined> {
  const marker = `bridge-check-${randomBytes(6).toString('hex')}`;
  try {
    // Through the daemon's own client: its key, its connections (the service's CA, the proxy variables).
    return await client.probeRoute(`/${marker}/no-such-route`, AbortSignal.timeout(timeoutMs));
  } catch {
    // Unreachable now although it answered a moment ago: no verdict on the base path.
    return undefined;
  }
}

/** How much of a collector's answer check decodes: enough for any OTLP answer to an empty export. */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * An empty export: an ExportLogsServiceRequest without records, sent like the exporter sends
 * (URL, protocol, configured headers, compression). Protobuf encodes a message without fields as
 * zero bytes; OTLP/JSON as an empty resourceLogs list. A direct request rather than the exporter
 * itself: the exporter retries a refused connection for its whole timeout and reports less. It goes
 * through the same kind of HTTP client as the exporter's (the collector's CA and client certificate,
 * the proxy variables), so `check` passes exactly where `run` can deliver.
 */
export async function probeCollector(cfg: ExporterConfig): Promise<CheckItem> {
  if (cfg.protocol === 'grpc') {
    // Loaded only for gRPC, like the transport it uses.
    const { probeGrpcCollector } = await import('./check-grpc-collector.js');
    return probeGrpcCollector(cfg);
  }
  const label = 'collector';
  const json = cfg.protocol === 'http/json';
  const plain = json ? Buffer.from('{"resourceLogs":[]}') : Buffer.alloc(0);
  const gzip = cfg.compression === 'gzip';
  const headers: Record<string, string> = {
    ...cfg.headers,
    'content-type': json ? 'application/json' : 'application/x-protobuf',
    'user-agent': `browser-telemetry-bridge/${BRIDGE_VERSION} (check)`,
  };
  if (gzip) headers['content-encoding'] = 'gzip';
  const where = displayUrl(cfg.url);
  const how = `${cfg.protocol}${gzip ? ', gzip' : ''}`;
  const http = new HttpClient({
    tls: cfg.tls,
    connectTimeoutMs: cfg.timeoutMs,
    headersTimeoutMs: cfg.timeoutMs,
    bodyTimeoutMs: cfg.timeoutMs,
    connections: 1,
  });
  try {
    const res = await http.request(cfg.url, {
      method: 'POST',
      headers,
      body: gzip ? gzipSync(plain) : plain,
      signal: AbortSignal.timeout(cfg.timeoutMs),
    });
    let cut: unknown;
    // As the exporter reads it (export/otlp-transport.ts): at most its first 64 KiB (a collector
    // answering 100 MB had check hold all of it, several times over), decoded, and a cut 2xx is no
    // acceptance.
    const read = await readPrefix(res.body, MAX_ANSWER_BYTES).catch((err: unknown) => {
      cut = err;
      return { bytes: Buffer.alloc(0), cut: false };
    });
    const decoded = decodeContentCoding(read.bytes, res.headers['content-encoding'], MAX_ANSWER_BYTES);
    const body = decoded.bytes;
    // Cut in the read, or in the decoding (a gzip that unpacks past the cap), as the exporter counts it.
    const overCap = read.cut || decoded.cut;
    const said = body.toString('utf8');
    const answerType = String(res.headers['content-type'] ?? '');
    // A body that is only slow is an answer to the exporter too (export/otlp-transport.ts).
    const slow =
      cut !== undefined && ((cut as { name?: string }).name === 'TimeoutError' || isHttpTimeout(networkCode(cut)));
    if (cut !== undefined && !slow && res.statusCode >= 200 && res.statusCode < 300)
      return {
        label,
        status: 'fail',
        detail: `${where} answered ${res.statusCode} (${how}) and then cut its answer (${describeNetworkError(cut)}): the daemon would send every request again`,
      };
    if (res.statusCode >= 200 && res.statusCode < 300) {
      // A catch-all route at a wrong path answers 200 too: the daemon would have every record
      // acknowledged and deleted, stored nowhere.
      if (!isOtlpAnswer(body, answerType || headers['content-type']!, overCap))
        return {
          label,
          status: 'fail',
          detail: `${where} answered ${res.statusCode} (${how}) with ${answerType || 'a body'} that is not an OTLP response (${overCap ? `over ${MAX_ANSWER_BYTES}` : body.length} bytes): this is not an OTLP logs endpoint, and the daemon would take its answers as deliveries (OTEL_EXPORTER_OTLP_ENDPOINT gets /v1/logs appended; OTEL_EXPORTER_OTLP_LOGS_ENDPOINT is used as is)`,
        };
      return { label, status: 'ok', detail: `${where} accepted an empty export (${res.statusCode}, ${how})` };
    }
    return {
      label,
      status: 'fail',
      detail: `${where} answered ${res.statusCode} ${STATUS_CODES[res.statusCode] ?? ''} (${how}): ${collectorHint(res.statusCode, said, String(res.headers['content-type'] ?? ''), Object.keys(cfg.headers).length > 0, res.headers.location)}`,
    };
  } catch (err) {
    const e = err as { name?: string };
    const message = e.name === 'TimeoutError' ? `no answer within ${cfg.timeoutMs} ms` : describeNetworkError(err);
    return { label, status: 'fail', detail: `${where}: ${message}` };
  } finally {
    http.close();
  }
}

function collectorHint(
  status: number,
  body: string,
  contentType: string,
  hasHeaders: boolean,
  location: string | undefined,
): string {
  // The exporter follows no redirect (a POST body and its credentials would go where the answer
  // says): the endpoint must name where it points.
  if (status >= 300 && status < 400)
    return location
      ? `it redirects to ${displayUrl(location)}, and the bridge follows no redirect: configure that URL as the endpoint`
      : 'a redirect without a Location, which the bridge would not follow anyway';
  if (status === 401 || status === 403) {
    // Blaming headers that were never set sends the operator looking in the wrong place.
    return hasHeaders
      ? 'the collector refused the credentials in the configured headers (OTEL_EXPORTER_OTLP_HEADERS)'
      : 'the collector wants credentials and none are configured: set them with OTEL_EXPORTER_OTLP_HEADERS (or is this URL not the collector?)';
  }
  if (status === 404)
    return 'no OTLP logs endpoint at this URL (OTEL_EXPORTER_OTLP_ENDPOINT gets /v1/logs appended; OTEL_EXPORTER_OTLP_LOGS_ENDPOINT is used as is)';
  if (status === 415) return 'the collector does not accept this protocol or compression';
  // Only readable bodies are quoted, and briefly: a protobuf Status is binary.
  if (/^(text\/|application\/json)/.test(contentType) && body.trim() !== '')
    return body.trim().replace(/\s+/g, ' ').slice(0, 200);
  return status >= 500 ? 'the collector failed; the daemon would retry' : 'the collector refused the request';
}

/**
 * The state directory takes a file. When it does not exist yet (the daemon creates it), it is
 * created for the test and removed again: a permission check alone passes for root on read-only
 * mounts.
 */
export function probeStateDir(dir: string): CheckItem {
  const label = 'state dir';
  const abs = resolve(dir);
  let created: string | undefined;
  try {
    const shape = stateDirShapeProblem(abs);
    if (shape) return { label, status: 'fail', detail: shape.replace(/^the state directory /, '') };
    const st = statSync(abs, { throwIfNoEntry: false });
    if (!st) created = makeDirs(abs);
    else if (stateDirBusy(abs))
      return {
        label,
        status: 'fail',
        detail: `${abs} is busy: another bridge process holds it, and a second one here would refuse to start`,
      };
    const probe = join(abs, `.bridge-check-${process.pid}-${randomBytes(4).toString('hex')}`);
    writeFileSync(probe, '');
    unlinkSync(probe);
    const files = stateFilesProblem(abs);
    if (files) return { label, status: 'fail', detail: files.replace(/^the state file /, '') };
    const room = stateDirRoomProblem(abs);
    if (room) return { label, status: 'fail', detail: room.replace(/^the state directory /, '') };
    return {
      label,
      status: 'ok',
      detail: created
        ? `${abs} can be created and written (it does not exist yet; the daemon creates it)`
        : `${abs} is writable`,
    };
  } catch (err) {
    // The sentence run prints for the same directory (state-dir.ts), which says what to do.
    return { label, status: 'fail', detail: unusable(abs, err).replace(/^the state directory /, '') };
  } finally {
    if (created) rmSync(created, { recursive: true, force: true });
  }
}
