// The simulator: one HTTP server serving the simulated service API and the /_sim/ control API,
// plus the session and pool registries.
//
// Lifecycle: startSimulator() listens and resolves once the port is known (running). close() stops
// production, drops every stream and socket at once (no graceful drain: tests use it to simulate
// the service vanishing) and resolves when the server has closed. close() is idempotent.
import { randomInt } from 'node:crypto';
import type { Socket } from 'node:net';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { handleControlRequest } from './control-api.js';
import { EventFactory } from './events/event-factory.js';
import { createRng, hashString } from './events/rng.js';
import { defaultFaults } from './faults.js';
import { sendError } from './http-util.js';
import type { SimPool } from './pools.js';
import { captureFilter, findPool, makePool } from './pools.js';
import { Producer } from './producer.js';
import { handleServiceRequest } from './service-api.js';
import type { ServiceContext } from './service-api.js';
import { Session } from './session.js';
import type { Faults, SimSessionOptions, SimStats, Simulator, SimulatorOptions } from './types.js';

class SimulatorImpl implements Simulator {
  url = '';
  readonly pools = new Map<string, SimPool>();
  readonly sessions = new Map<string, Session>();
  faults: Faults = defaultFaults();
  readonly stats: SimStats = { connections: 0, activeStreams: 0, requests: 0, byStatus: {}, listRequests: 0 };
  readonly server: Server;
  private readonly producer = new Producer();
  private readonly sockets = new Set<Socket>();
  private readonly seed: number;
  private readonly bufferSize: number;
  private readonly archiveSize: number;
  private closing: Promise<void> | undefined;

  constructor(opts: SimulatorOptions) {
    this.seed = opts.seed ?? randomInt(0, 2 ** 31);
    this.bufferSize = opts.bufferSize ?? 8192;
    this.archiveSize = opts.archiveSize ?? 200_000;
    const ctx: ServiceContext = {
      apiKeys: new Set(opts.apiKeys ?? ['sim-key']),
      keepaliveMs: opts.keepaliveMs ?? 15_000, // docs/service-api.md "Limits": keepalive every 15 seconds
      faults: () => this.faults, // read at use: callers may replace the object
      sessions: this.sessions,
      pools: this.pools,
      stats: this.stats,
      archive: this.archiveSize > 0,
      list: opts.listRoute ?? true,
    };
    this.server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://simulator');
      if (url.pathname.startsWith('/_sim/')) {
        handleControlRequest(this, req, res, url).catch((err: unknown) => {
          if (!res.headersSent) sendError(res, 400, err instanceof Error ? err.message : 'bad request');
          else res.destroy();
        });
        return;
      }
      try {
        handleServiceRequest(ctx, req, res, url);
      } catch (err) {
        if (!res.headersSent) sendError(res, 500, err instanceof Error ? err.message : 'internal error');
        else res.destroy();
      }
    });
    this.server.on('connection', (socket: Socket) => {
      this.stats.connections++;
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  createSession(id: string, opts: SimSessionOptions = {}): Session {
    if (id === '' || id.includes('/')) throw new Error(`invalid session id ${JSON.stringify(id)}`);
    const existing = this.sessions.get(id);
    if (existing && !existing.ended) throw new Error(`session ${id} already exists`);
    let pool: SimPool | undefined;
    if (opts.pool !== undefined) {
      pool = findPool(this.pools, opts.pool);
      if (!pool) {
        pool = makePool({ name: opts.pool });
        this.addPool(pool);
      }
    }
    const rng = createRng(hashString(id, this.seed));
    const session = new Session(id, {
      bufferSize: this.bufferSize,
      archiveSize: this.archiveSize,
      faults: () => this.faults,
      factory: new EventFactory(rng, id, captureFilter(pool, opts.categories ?? []), opts.mix),
      producer: this.producer,
      telemetry: opts.telemetry ?? true,
      ...(pool ? { poolId: pool.id, ...(pool.name !== undefined ? { poolName: pool.name } : {}) } : {}),
      ...(opts.name !== undefined ? { name: opts.name } : {}),
      ...(opts.region !== undefined ? { region: opts.region } : {}),
      ...(opts.tags !== undefined ? { tags: { ...opts.tags } } : {}),
      ...(opts.otlpExport !== undefined ? { otlpExport: { ...opts.otlpExport } } : {}),
    });
    this.sessions.set(id, session);
    return session;
  }

  session(id: string): Session | undefined {
    return this.sessions.get(id);
  }

  addPool(pool: SimPool): void {
    this.pools.set(pool.id, pool);
  }

  close(): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      this.producer.stopAll();
      for (const s of this.sessions.values()) s.destroyStreams();
      this.server.close(() => resolve());
      for (const socket of this.sockets) socket.destroy();
      this.server.closeAllConnections();
    });
    return this.closing;
  }
}

/** Starts a simulator listening on opts.host:opts.port (default 127.0.0.1:0). */
export async function startSimulator(opts: SimulatorOptions = {}): Promise<Simulator> {
  const sim = new SimulatorImpl(opts);
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    sim.server.once('error', reject);
    sim.server.listen(opts.port ?? 0, host, () => {
      sim.server.off('error', reject);
      resolve();
    });
  });
  const address = sim.server.address();
  if (address === null || typeof address === 'string') throw new Error('simulator has no TCP address');
  // A wildcard listen address is not something a client can connect to: use loopback in the URL.
  const ip = address.address === '0.0.0.0' ? '127.0.0.1' : address.address === '::' ? '::1' : address.address;
  const hostPart = ip.includes(':') ? `[${ip}]` : ip;
  sim.url = `http://${hostPart}:${address.port}`;
  return sim;
}
