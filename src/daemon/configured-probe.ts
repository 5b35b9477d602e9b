// The configured sessions, asked about once at start, as discovery asks the ones it lists (the
// list carries each session's settings): a session that exports its telemetry itself
// (telemetry.export.otlp) is said, since its records reach the backend twice, and a session
// configured by its name is said, since the bridge keeps its position under that name and a later
// session of the same name would resume from it. One GET per configured session, a few at a time,
// after the sessions started: nothing waits for it, and a failed probe is only a debug line (the
// stream itself reports a session the service does not know).
import type { SessionSpec } from '../config/schema.js';
import type { UpstreamClient } from '../upstream/client.js';
import { parseSessionExport, sameCollector } from '../upstream/session-export.js';
import { namedSession } from '../upstream/session-ref.js';
import type { Emit } from '../vocabulary/facts.js';

/** Probes in flight at once: a sidecar has one session, a headless exporter may list hundreds. */
const PROBES_AT_ONCE = 4;

export interface ConfiguredProbe {
  client: Pick<UpstreamClient, 'getSession'>;
  sessions: readonly SessionSpec[];
  collectorUrl: string | undefined;
  emit: Emit;
  debug: (detail: Record<string, unknown>, message: string) => void;
  signal?: AbortSignal;
}

export async function probeConfigured(o: ConfiguredProbe): Promise<void> {
  const queue = [...o.sessions];
  const one = async (spec: SessionSpec): Promise<void> => {
    const got = await o.client.getSession(spec.id, o.signal);
    if (got.kind !== 'ok') {
      o.debug({ session: spec.id, status: got.status }, 'configured session not probed');
      return;
    }
    const id = namedSession(spec.id, got.value);
    if (id !== undefined) o.emit({ f: 'session_is_name', session: spec.id, id });
    const exp = parseSessionExport(got.value);
    if (exp?.enabled === true) {
      const same = o.collectorUrl !== undefined && sameCollector(exp, o.collectorUrl);
      o.emit({ f: 'session_exports_otlp', session: spec.id, destination: exp.destination, sameCollector: same });
    }
  };
  const worker = async (): Promise<void> => {
    for (let spec = queue.shift(); spec !== undefined && o.signal?.aborted !== true; spec = queue.shift()) {
      try {
        await one(spec);
      } catch (err) {
        o.debug({ session: spec.id, err: (err as Error).message }, 'configured session not probed');
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(PROBES_AT_ONCE, queue.length) }, worker));
}
