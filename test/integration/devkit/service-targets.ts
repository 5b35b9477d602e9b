// One browser target as the service's monitor follows it, for the real-browser trace tests that
// attach browser-wide (chromium-spans, chromium-service-worker, chromium-bfcache): what it must
// remember to write the service's events (each frame's committed loader and URL, each request's
// context for its end, each response until its body is received), and the service's events for
// each CDP event of the target, with the context the service stamps on them (service-events.ts
// writes their own data); and how such a test attaches as the service does (followAsService,
// openTabAsService).
import type { CdpClient } from './chromium.js';
import { serviceEvent, serviceNetworkEnd, servicePageEvent, type ServiceEvent } from './service-events.js';

export interface ServiceTarget {
  targetId: string;
  /** CDP's target type: page, service_worker, worker, browser_ui… */
  type: string;
  mainFrame?: string;
  /** frame → its committed loader and URL. */
  frames: Map<string, { loader: string; url: string }>;
  /** request → the context of its network_request (what the service stamps on its end too). */
  requests: Map<string, Record<string, unknown>>;
  responses: Map<string, Record<string, unknown>>;
  /** Requests whose end (a response's body received, or a failure) was seen. */
  ended: Set<string>;
}

export function serviceTarget(targetId: string, type: string): ServiceTarget {
  return { targetId, type, frames: new Map(), requests: new Map(), responses: new Map(), ended: new Set() };
}

/** The context the service stamps on a page or console event: the target's main frame. */
export function pageContext(t: ServiceTarget): Record<string, unknown> {
  const main = t.mainFrame === undefined ? undefined : t.frames.get(t.mainFrame);
  return main === undefined ? {} : { url: main.url, frame_id: t.mainFrame, loader_id: main.loader };
}

/** The service's events for one CDP event of `t`, in order, with their context; `t` learns from it. */
export function targetEvents(t: ServiceTarget, method: string, p: Record<string, unknown>): ServiceEvent[] {
  const out: ServiceEvent[] = [];
  const push = (ev: ServiceEvent, context: Record<string, unknown>): void => {
    out.push({ ...ev, data: { ...context, target_id: t.targetId, target_type: t.type, ...ev.data } });
  };
  if (method === 'Page.frameNavigated') {
    const frame = p.frame as { id: string; url: string; loaderId: string; parentId?: string };
    if (frame.parentId === undefined) t.mainFrame = frame.id;
    t.frames.set(frame.id, { loader: frame.loaderId, url: frame.url });
  }
  if (method === 'Page.navigatedWithinDocument') {
    // The tab's address changes (pushState, a fragment) without an event the service forwards.
    const f = t.frames.get(p.frameId as string);
    if (f !== undefined) f.url = p.url as string;
  }
  const ev = serviceEvent(method, p);
  if (ev !== undefined) {
    if (method === 'Network.requestWillBeSent') {
      t.requests.set(p.requestId as string, {
        url: ev.data.url,
        frame_id: ev.data.frame_id,
        loader_id: ev.data.loader_id,
      });
      push(ev, {});
    } else if (method === 'Page.frameNavigated') push(ev, {});
    else push(ev, pageContext(t));
  }
  if (method === 'Network.responseReceived') t.responses.set(p.requestId as string, p);
  if (method === 'Network.loadingFinished' || method === 'Network.loadingFailed') {
    const id = p.requestId as string;
    const response = t.responses.get(id);
    const end =
      method === 'Network.loadingFailed'
        ? serviceNetworkEnd({ failed: p })
        : response === undefined
          ? undefined
          : serviceNetworkEnd({ response });
    t.ended.add(id);
    if (end !== undefined) push(end, t.requests.get(id) ?? {});
  }
  const page = servicePageEvent(method, p);
  if (page !== undefined) push(page, pageContext(t));
  return out;
}

/**
 * Waits on a browser session: `until(what, ok)` resolves once `ok()` holds at a `wake()` (call it
 * after every CDP event), and rejects after `waitMs` or once the browser fails.
 */
export interface BrowserWaits {
  until: (what: string, ok: () => boolean) => Promise<void>;
  wake: () => void;
}

export function browserWaits(failed: Promise<never>, waitMs: number): BrowserWaits {
  let wake: () => void = () => undefined;
  return {
    wake: () => wake(),
    until: (what, ok) =>
      Promise.race([
        failed,
        new Promise<void>((resolve, reject) => {
          const bound = setTimeout(() => reject(new Error(`no ${what} after ${waitMs / 1000} s`)), waitMs);
          wake = () => {
            if (!ok()) return;
            clearTimeout(bound);
            wake = () => undefined;
            resolve();
          };
        }),
      ]),
  };
}

/**
 * What the service's monitor does on a target Chromium just attached (browser-wide auto-attach,
 * paused until it is told to run): Runtime and Network on every target, Page where there is a page,
 * then run. The promise settles once all of it was answered; it never rejects (a target may go away
 * meanwhile).
 */
export function enableAsService(
  cdp: CdpClient,
  session: string,
  type: string,
  page = type === 'page',
): Promise<unknown> {
  const domains = page ? ['Runtime', 'Network', 'Page'] : ['Runtime', 'Network'];
  const commands = domains.map((d) => cdp.send(`${d}.enable`, {}, session));
  commands.push(cdp.send('Runtime.runIfWaitingForDebugger', {}, session));
  const all = Promise.all(commands);
  all.catch(() => undefined);
  return all;
}

export interface FollowedTargets {
  /** CDP session → the target it is attached to. */
  targets: Map<string, ServiceTarget>;
  /** Target id → enableAsService's promise for it (what openTabAsService waits on). */
  enabled: Map<string, Promise<unknown>>;
}

/**
 * Follows every target Chromium attaches as the service's monitor does: each enabled
 * (enableAsService), and each of its later events handed to `onEvent` with its target.
 */
export function followAsService(
  cdp: CdpClient,
  onEvent: (t: ServiceTarget, method: string, p: Record<string, unknown>) => void,
): FollowedTargets {
  const followed: FollowedTargets = { targets: new Map(), enabled: new Map() };
  cdp.on(({ method, params: p, sessionId }) => {
    if (method === 'Target.attachedToTarget') {
      const { sessionId: child, targetInfo } = p as {
        sessionId: string;
        targetInfo: { targetId: string; type: string };
      };
      followed.targets.set(child, serviceTarget(targetInfo.targetId, targetInfo.type));
      followed.enabled.set(targetInfo.targetId, enableAsService(cdp, child, targetInfo.type));
      return;
    }
    const t = sessionId === undefined ? undefined : followed.targets.get(sessionId);
    if (t !== undefined) onEvent(t, method, p);
  });
  return followed;
}

/**
 * Attaches browser-wide as the service does and opens a blank tab. `enabled` is filled by the
 * caller's attach handler (target id → enableAsService's promise); resolves with the tab's target
 * id once it is attached and enabled.
 */
export async function openTabAsService(
  cdp: CdpClient,
  failed: Promise<never>,
  until: BrowserWaits['until'],
  enabled: ReadonlyMap<string, Promise<unknown>>,
): Promise<string> {
  await Promise.race([
    failed,
    cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: true }),
  ]);
  const { targetId } = (await Promise.race([failed, cdp.send('Target.createTarget', { url: 'about:blank' })])) as {
    targetId: string;
  };
  await until('attach to the tab', () => enabled.has(targetId));
  await Promise.race([failed, enabled.get(targetId)]);
  return targetId;
}
