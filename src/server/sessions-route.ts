// /v1/sessions and /v1/sessions/{id}: list, show, follow (PUT) and stop following (DELETE) sessions.
// The control API's routes, apart from the router (http-server.ts), which decides who may reach them.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseSessionSpec, SESSION_ID_RULE, validSessionId } from '../config/sessions.js';
import type { Bridge } from '../daemon/bridge.js';
import { SessionLimitError } from '../daemon/session-room.js';
import { HttpError, methodNotAllowed, readJson, send } from './http-reply.js';

/** Answers a request to /v1/sessions or below it, once the caller was let through. */
export async function sessions(
  bridge: Bridge,
  req: IncomingMessage,
  res: ServerResponse,
  method: string,
  path: string,
): Promise<void> {
  const sup = bridge.supervisor;
  if (path === '/v1/sessions') {
    if (method !== 'GET')
      throw methodNotAllowed(req.method ?? method, path, ['GET', 'HEAD'], ' (PUT and DELETE are on /v1/sessions/{id})');
    // Neither the owners nor the spool figures wait long for a store that does not answer: both
    // come back within a second, marked stale, with the last figures the store gave.
    const { sessions: list, othersStale } = await sup.statusWithOwners();
    return send(res, 200, {
      sessions: list,
      ...(othersStale ? { othersStale } : {}),
      pools: bridge.pools.poolStatus(),
      spool: await bridge.spoolFigures(),
      // Recorded, not followed while max_sessions are; followed as others end.
      ...(sup.waitingForRoom().length > 0
        ? { waiting: { maxSessions: bridge.config.maxSessions, sessions: sup.waitingForRoom() } }
        : {}),
      ...(sup.ownership ? { replica: bridge.config.replicaId } : {}),
    });
  }
  const id = decodeId(path.slice('/v1/sessions/'.length));
  if (!validSessionId(id)) throw new HttpError(400, 'invalid_input', `session id ${SESSION_ID_RULE}`);
  if (method === 'GET') {
    const s =
      sup.session(id) ?? (sup.ownership ? (await sup.statusWithOwners()).sessions.find((x) => x.id === id) : undefined);
    if (!s) throw new HttpError(404, 'not_found', `session ${id} is not followed`);
    return send(res, 200, s);
  }
  if (method === 'PUT') {
    const body = await readJson(req);
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      throw new HttpError(400, 'invalid_input', 'body must be a JSON object');
    const spec = parseSessionSpec({ ...(body as Record<string, unknown>), id }, 'body');
    // Every fresh id opens a stream and stores a row: a client must not be able to grow that without
    // bound. An id already followed may still be updated at the cap. Asked here before the service
    // is, and again by the supervisor, whose count holds for PUTs that run at the same moment.
    const cap = bridge.config.maxSessions;
    if (sup.followedCount >= cap && !sup.isWaiting(id) && !sup.followed().some((f) => f.spec.id === id))
      refuseOverLimit(bridge, req, res, id, new SessionLimitError(sup.followedCount, cap));
    // A mistyped id is refused here, not followed as if it had ended. When the service cannot be
    // asked now, the session is followed (202) and its stream's 404 is checked the same way later.
    const known = await sessionKnown(bridge, id);
    if (known === false)
      throw new HttpError(
        404,
        'unknown_session',
        `the service does not know session ${id} (GET /browsers/{id}?include_deleted=true is 404)`,
      );
    const r = await sup.add(spec, 'api').catch((err: unknown) => {
      if (err instanceof SessionLimitError) refuseOverLimit(bridge, req, res, id, err);
      throw err;
    });
    // Every change to what the bridge follows leaves a line: who asked, and what it is now.
    bridge.log.info(
      {
        session: id,
        pool: spec.pool,
        start: spec.start,
        attributes: Object.keys(spec.attributes),
        remote: req.socket.remoteAddress,
      },
      r.created
        ? 'control API: session added; followed from now on and after a restart'
        : 'control API: session settings replaced',
    );
    return send(res, known === true ? (r.created ? 201 : 200) : 202, r.status);
  }
  if (method === 'DELETE') {
    if (!(await sup.remove(id))) throw new HttpError(404, 'not_found', `session ${id} is not followed`);
    bridge.log.info(
      { session: id, remote: req.socket.remoteAddress },
      'control API: session removed; no longer followed',
    );
    res.writeHead(204).end();
    return;
  }
  throw methodNotAllowed(method, '/v1/sessions/{id}', ['GET', 'HEAD', 'PUT', 'DELETE']);
}

/** A PUT of one session more than max_sessions: 429, counted and logged (one fact). */
function refuseOverLimit(
  bridge: Bridge,
  req: IncomingMessage,
  res: ServerResponse,
  id: string,
  err: SessionLimitError,
): never {
  bridge.emit({
    f: 'session_refused',
    sessions: [id],
    source: 'api',
    followed: err.followed,
    limit: err.limit,
    remote: req.socket.remoteAddress ?? '',
  });
  res.setHeader('retry-after', '60');
  throw new HttpError(429, 'too_many_sessions', err.message);
}

/** Whether the service knows the session (ended ones included); undefined when it cannot be asked now. */
async function sessionKnown(bridge: Bridge, id: string): Promise<boolean | undefined> {
  try {
    const r = await bridge.client.getSession(id, AbortSignal.timeout(5000));
    if (r.kind === 'ok') return true;
    return r.status === 404 ? false : undefined;
  } catch {
    return undefined;
  }
}

function decodeId(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    // A malformed percent-encoding (%zz, a lone %) is the client's mistake, not the bridge's.
    throw new HttpError(400, 'invalid_input', 'session id is not valid percent-encoding');
  }
}
