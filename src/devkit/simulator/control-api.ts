// HTTP control API under /_sim/ (no auth), so a simulator running in another process (main.ts) can
// be driven by tests, the demo and the benchmark. Not part of the simulated service. For people:
// docs/simulator.md (keep it in step with the routes below).
//
//   GET  /_sim/sessions                         list: id, lastSeq, ended, emitted, telemetry, pool, streams
//   POST /_sim/sessions/{id}                    create; JSON body {telemetry?, pool?, rate?, categories?, name?, tags?, region?, mix?}
//                                               (categories: names to opt in to, or "all"; tags: {name: value};
//                                               mix: "catalogue" or "heavy", events/mix.ts)
//   POST /_sim/sessions/{id}/emit?count=N[&types=a,b]
//   POST /_sim/sessions/{id}/produce?rate=N[&count=M]   M: stop by itself after M more events
//   POST /_sim/produce?rate=N[&count=M]         every live session at once (the benchmark starts and
//                                               stops a thousand sessions together)
//   POST /_sim/sessions/{id}/end
//   POST /_sim/sessions/{id}/restart            restartService()
//   POST /_sim/sessions/{id}/malformed?kind=json|envelope
//   GET  /_sim/faults · PUT /_sim/faults        JSON merge into the faults
//   POST /_sim/pools                            add a pool (partial resource, defaults filled in)
//   GET  /_sim/stats
import type { IncomingMessage, ServerResponse } from 'node:http';
import { EVENT_MIXES, type EventMix } from './events/mix.js';
import { REGIONS } from './browser-list.js';
import { mergeFaults } from './faults.js';
import { readJson, sendError, sendJson } from './http-util.js';
import type { SimPool } from './pools.js';
import { makePool } from './pools.js';
import { safeDecode } from './service-api.js';
import type { Session } from './session.js';
import type { Faults, SimSessionOptions, SimStats } from './types.js';
import { isRecord } from '../../util/guards.js';

export interface ControlTarget {
  readonly sessions: Map<string, Session>;
  readonly stats: SimStats;
  faults: Faults;
  createSession(id: string, opts?: SimSessionOptions): Session;
  addPool(pool: SimPool): void;
}

export function summary(s: Session): Record<string, unknown> {
  return {
    id: s.id,
    lastSeq: s.lastSeq,
    ended: s.ended,
    emitted: s.emitted,
    telemetry: s.telemetry,
    pool: s.poolId ?? null,
    streams: s.streams,
    tags: s.tags,
  };
}

export async function handleControlRequest(
  sim: ControlTarget,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<void> {
  const parts = url.pathname.split('/').slice(2).map(safeDecode);
  if (parts.some((p) => p === undefined)) return sendError(res, 400, 'malformed path');
  const [area, id, action] = parts as string[];
  const method = req.method ?? 'GET';

  if (area === 'sessions' && id === undefined && method === 'GET') {
    return sendJson(res, 200, [...sim.sessions.values()].map(summary));
  }
  if (area === 'sessions' && id !== undefined && action === undefined && method === 'POST') {
    const body = await readJson(req);
    if (body !== undefined && !isRecord(body)) return sendError(res, 400, 'body must be a JSON object');
    const { telemetry, pool, rate, categories, name, tags, mix, region } = body ?? {};
    if (region !== undefined && !REGIONS.includes(region as string))
      return sendError(res, 400, `region must be one of ${REGIONS.join(', ')}`);
    if (mix !== undefined && !EVENT_MIXES.includes(mix as EventMix))
      return sendError(res, 400, `mix must be one of ${EVENT_MIXES.join(', ')}`);
    if (name !== undefined && typeof name !== 'string') return sendError(res, 400, 'name must be a string');
    if (tags !== undefined && !(isRecord(tags) && Object.values(tags).every((v) => typeof v === 'string')))
      return sendError(res, 400, 'tags must map names to strings');
    if (
      categories !== undefined &&
      categories !== 'all' &&
      !(Array.isArray(categories) && categories.every((c) => typeof c === 'string'))
    ) {
      return sendError(res, 400, 'categories must be a list of category names or "all"');
    }
    if (telemetry !== undefined && typeof telemetry !== 'boolean')
      return sendError(res, 400, 'telemetry must be a boolean');
    if (pool !== undefined && typeof pool !== 'string') return sendError(res, 400, 'pool must be a string');
    if (rate !== undefined && (typeof rate !== 'number' || !(rate >= 0)))
      return sendError(res, 400, 'rate must be a non-negative number');
    const existing = sim.sessions.get(id);
    if (existing && !existing.ended) return sendError(res, 409, `session ${id} already exists`);
    const s = sim.createSession(id, {
      ...(telemetry !== undefined ? { telemetry } : {}),
      ...(pool !== undefined ? { pool } : {}),
      ...(categories !== undefined ? { categories: categories } : {}),
      ...(name !== undefined ? { name: name } : {}),
      ...(region !== undefined ? { region: region as string } : {}),
      ...(tags !== undefined ? { tags: tags as Record<string, string> } : {}),
      ...(mix !== undefined ? { mix: mix as EventMix } : {}),
    });
    if (rate) s.produce(rate);
    return sendJson(res, 201, summary(s));
  }
  if (area === 'sessions' && id !== undefined && action !== undefined && method === 'POST') {
    const s = sim.sessions.get(id);
    if (!s) return sendError(res, 404, `session ${id} not found`);
    if (s.ended && action !== 'end') return sendError(res, 409, `session ${id} has ended`);
    switch (action) {
      case 'emit': {
        const count = intParam(url, 'count', 1);
        if (count === undefined) return sendError(res, 400, 'count must be a non-negative integer');
        const types = url.searchParams.get('types')?.split(',').filter(Boolean);
        const out = s.emit(count, types ? { types } : undefined);
        return sendJson(res, 200, { ...summary(s), count: out.length });
      }
      case 'produce': {
        const rate = Number(url.searchParams.get('rate') ?? '0');
        if (!(rate >= 0) || !Number.isFinite(rate)) return sendError(res, 400, 'rate must be a non-negative number');
        const count = intParam(url, 'count', Infinity);
        if (count === undefined) return sendError(res, 400, 'count must be a non-negative integer');
        s.produce(rate, count);
        return sendJson(res, 200, summary(s));
      }
      case 'end':
        s.end();
        return sendJson(res, 200, summary(s));
      case 'restart':
        s.restartService();
        return sendJson(res, 200, summary(s));
      case 'malformed': {
        const kind = url.searchParams.get('kind') ?? 'json';
        if (kind !== 'json' && kind !== 'envelope') return sendError(res, 400, 'kind must be json or envelope');
        return sendJson(res, 200, { ...summary(s), seq: s.injectMalformed(kind) });
      }
      default:
        return sendError(res, 404, `unknown action ${action}`);
    }
  }
  if (area === 'produce' && id === undefined && method === 'POST') {
    const rate = Number(url.searchParams.get('rate') ?? '0');
    if (!(rate >= 0) || !Number.isFinite(rate)) return sendError(res, 400, 'rate must be a non-negative number');
    const count = intParam(url, 'count', Infinity);
    if (count === undefined) return sendError(res, 400, 'count must be a non-negative integer');
    let sessions = 0;
    for (const s of sim.sessions.values()) {
      if (s.ended) continue;
      s.produce(rate, count);
      sessions++;
    }
    return sendJson(res, 200, { sessions, rate });
  }
  if (area === 'faults' && id === undefined && (method === 'GET' || method === 'PUT')) {
    if (method === 'PUT') {
      const error = mergeFaults(sim.faults, await readJson(req));
      if (error) return sendError(res, 400, error, 'invalid_input');
    }
    return sendJson(res, 200, sim.faults);
  }
  if (area === 'pools' && id === undefined && method === 'POST') {
    const body = await readJson(req);
    if (!isRecord(body)) return sendError(res, 400, 'body must be a JSON object');
    const pool = makePool(body);
    sim.addPool(pool);
    return sendJson(res, 201, pool);
  }
  if (area === 'stats' && id === undefined && method === 'GET') return sendJson(res, 200, sim.stats);
  return sendError(res, 404, `no control route ${method} ${url.pathname}`);
}

function intParam(url: URL, name: string, fallback: number): number | undefined {
  const raw = url.searchParams.get(name);
  if (raw === null) return fallback;
  const n = Number(raw);
  return Number.isInteger(n) && n >= 0 ? n : undefined;
}
