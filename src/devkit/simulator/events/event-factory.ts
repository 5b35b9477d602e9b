// Turns the catalogue into a stream of realistic events for one session.
//
// Selection alternates between two modes so that both properties hold for any seed: even draws go
// round-robin over every "kind" (each type, and each cdp_command method separately), so emitting
// about twice the number of kinds is enough to see all of them; odd draws are weighted-random, so a
// long run has a realistic mix. A pool's telemetry config narrows the kinds (Capture rules 1-2 and
// control.cdp.excluded_methods).
//
// monitor_screenshot is no kind of its own: like the service, the factory takes one right after a
// page load or an uncaught exception, when the screenshot category is captured and the session's
// last screenshot is at least 2 s (of event time) old. The heavy mix (mix.ts) replaces that cadence
// with a small screenshot every HEAVY_SCREENSHOT_EVERY events and lengthens console texts.
import type { EventSource, TelemetryEvent } from '../../../upstream/envelope.js';
import type { CaptureFilter } from '../pools.js';
import { CATALOGUE, CDP_METHODS, EVENT_TYPES, categoryOf } from './catalogue.js';
import { cdpCommand } from './cdp-command.js';
import { SCREENSHOT_INTERVAL_MICROS, monitorScreenshot } from './monitor.js';
import { screenshotsBase64, smallScreenshotsBase64 } from './png.js';
import { HEAVY_SCREENSHOT_EVERY, heavyConsoleText, type EventMix } from './mix.js';
import type { GenResult, GenState } from './context.js';
import { initialState } from './context.js';
import type { Rng } from './rng.js';

/** Serialised events kept per session for bulk production, and how often a fresh one is made. */
const TEMPLATES = 32;
const REFRESH_EVERY = 8;

/** performance.timeOrigin is a getter into the runtime, and it never changes: read it once. */
const TIME_ORIGIN = performance.timeOrigin;

/**
 * One event of bulk production: its ts and the UTF-8 bytes of its JSON after the ts
 * (`,"type":...}`, in one or more parts), to be sent behind `{"ts":<ts>`; a template's bytes when
 * it reuses one. Its category goes with it: the simulator's frame log files frames by category,
 * and reading it back out of the bytes was a walk over every frame (~6 % of the simulator's CPU in
 * the heavy mix).
 */
export interface BulkEvent {
  ts: number;
  tail: readonly Buffer[];
  category: string;
}

/** A drawn event kept to be sent again behind a fresh ts. */
interface Template {
  tail: readonly Buffer[];
  category: string;
}

interface Kind {
  type: string;
  method?: string;
  weight: number;
}

export class EventFactory {
  private readonly g: GenState;
  private readonly kinds: Kind[];
  private readonly cumulative: number[];
  private rr = 0;
  private draws = 0;
  private lastTs = 0;
  private readonly templates: Template[] = [];
  private templateSlot = 0;
  private typedKinds: { key: string; kinds: Kind[] } | undefined;
  /** Share of cdp_command methods the pool excludes. */
  private readonly excludedShare: number;
  /** The CDP event that triggered a screenshot still to be emitted, if any. */
  private screenshotTrigger: string | undefined;
  private lastScreenshotTs = -Infinity;
  private screenshots = 0;
  /** Events drawn without a type list (the heavy mix's screenshot count runs on it). */
  private untyped = 0;

  constructor(
    rng: Rng,
    sessionId: string,
    private readonly capture: CaptureFilter,
    private readonly mix: EventMix = 'catalogue',
  ) {
    this.g = initialState(rng, sessionId);
    this.kinds = this.kindsFor(EVENT_TYPES).filter((k) => k.weight > 0);
    this.excludedShare = CDP_METHODS.filter((m) => !capture.cdpMethod(m)).length / CDP_METHODS.length;
    this.cumulative = [];
    let sum = 0;
    for (const k of this.kinds) this.cumulative.push((sum += k.weight));
  }

  /** False when the pool's config captures nothing at all (an empty stream, like telemetry off). */
  get capturesAnything(): boolean {
    return this.kinds.length > 0;
  }

  /** The next generated event, or undefined when nothing (of `types`) is captured. */
  next(types?: readonly string[]): TelemetryEvent | undefined {
    if (!types && this.heavyScreenshotDue()) return this.heavyScreenshot();
    return this.draw(types);
  }

  private draw(types?: readonly string[]): TelemetryEvent | undefined {
    const trigger = this.screenshotTrigger;
    if (trigger !== undefined) {
      this.screenshotTrigger = undefined;
      // The picture rotates by count, not by the session's rng: whether a screenshot is due depends
      // on wall-clock time, and it must not change the rest of a seed's events.
      const shots = screenshotsBase64();
      const png = shots[this.screenshots++ % shots.length] as string;
      if (!types || types.includes('monitor_screenshot'))
        return this.build('monitor_screenshot', monitorScreenshot(this.g, trigger, png));
    }
    let kind: Kind | undefined;
    if (types) {
      const kinds = this.kindsForTypes(types);
      kind = kinds[this.rr++ % Math.max(1, kinds.length)];
    } else if (this.draws++ % 2 === 0) {
      kind = this.kinds[this.rr++ % Math.max(1, this.kinds.length)];
    } else {
      kind = this.weightedPick();
    }
    if (!kind) return undefined;
    const result = kind.method
      ? cdpCommand(this.g, kind.method)
      : (CATALOGUE[kind.type]?.generate(this.g) as GenResult);
    if (this.mix === 'heavy' && kind.type === 'console_log') lengthenConsoleText(this.g.rng, result);
    // Commands of excluded methods produce no event but are counted in cdp_disconnect.telemetry_excluded.
    if (kind.method && this.excludedShare > 0 && this.g.rng.chance(this.excludedShare)) this.g.excludedCommands++;
    return this.build(kind.type, result);
  }

  /**
   * The next event for bulk production (SimSession.produce). Most draws reuse the data of a
   * recently generated event of this session with a fresh ts: generating and serialising a new
   * event costs ~10 µs, which would make the simulator, not the bridge, the bottleneck of the
   * benchmark. One draw in REFRESH_EVERY is new, so the mix keeps changing. `prepare` runs on every
   * event before it is serialised (the session puts the service's source on it there), so a
   * template is kept as the bytes it is sent as, and a reuse copies them behind a new ts.
   */
  nextBulk(prepare: (event: TelemetryEvent) => void = () => {}): BulkEvent | undefined {
    // The heavy mix's screenshots are counted over every event, template or fresh, so 3 % holds.
    if (this.heavyScreenshotDue()) {
      const shot = this.heavyScreenshot();
      prepare(shot);
      return { ts: shot.ts, tail: screenshotTail(shot), category: shot.category };
    }
    const fresh = this.templates.length < TEMPLATES || this.g.rng.next() < 1 / REFRESH_EVERY;
    if (fresh) {
      const event = this.draw();
      if (!event) return undefined;
      prepare(event);
      // A screenshot is never a template: reusing it would defeat the service's cadence.
      if (event.type === 'monitor_screenshot')
        return { ts: event.ts, tail: screenshotTail(event), category: event.category };
      const json = JSON.stringify(event);
      // Everything after ts: `,"type":...}` (ts is the first key, see build()).
      const template: Template = {
        tail: [Buffer.from(json.slice(json.indexOf(',"type":')))],
        category: event.category,
      };
      if (this.templates.length < TEMPLATES) this.templates.push(template);
      else this.templates[this.templateSlot++ % TEMPLATES] = template;
      return { ts: event.ts, tail: template.tail, category: template.category };
    }
    const template = this.templates[Math.floor(this.g.rng.next() * this.templates.length)]!;
    return { ts: this.nowMicros(), tail: template.tail, category: template.category };
  }

  /** The JSON text of nextBulk's event (the same event as its bytes would make). */
  nextJson(prepare?: (event: TelemetryEvent) => void): string | undefined {
    const e = this.nextBulk(prepare);
    if (e === undefined) return undefined;
    return '{"ts":' + e.ts + Buffer.concat(e.tail).toString();
  }

  /** Drops the bulk path's templates: what `prepare` put in them no longer holds (a new process id). */
  forgetTemplates(): void {
    this.templates.length = 0;
    this.templateSlot = 0;
  }

  /** Fills ts, category and source of a caller-supplied event (SimSession.emitEvent). */
  complete(partial: Partial<TelemetryEvent> & { type: string }): TelemetryEvent {
    const source: EventSource = partial.source ?? {
      kind: 'cdp',
      event: 'Runtime.consoleAPICalled',
      metadata: { cdp_session_id: this.g.page.cdpSessionId, target_id: this.g.page.targetId },
    };
    const event: TelemetryEvent = {
      ts: partial.ts ?? this.nowMicros(),
      type: partial.type,
      category: partial.category ?? categoryOf(partial.type),
      source,
    };
    if (partial.data !== undefined) event.data = partial.data;
    if (partial.truncated !== undefined) event.truncated = partial.truncated;
    return event;
  }

  /** Unix microseconds, strictly increasing per session so events of a batch keep their order. */
  nowMicros(): number {
    const now = Math.floor((TIME_ORIGIN + performance.now()) * 1000);
    this.lastTs = now > this.lastTs ? now : this.lastTs + 1;
    return this.lastTs;
  }

  private build(type: string, r: GenResult): TelemetryEvent {
    // Key order mirrors the envelope's field table (docs/service-api.md "Envelope"); serialised once by the session.
    const event: TelemetryEvent = {
      ts: this.nowMicros(),
      type,
      category: r.category ?? categoryOf(type),
      source: r.source,
    };
    if (r.data) event.data = r.data;
    if (r.truncated) event.truncated = true;
    if (type === 'monitor_screenshot') this.lastScreenshotTs = event.ts;
    else this.maybeScreenshotAfter(event);
    return event;
  }

  /** The service's triggers: a (main-frame) load, an uncaught exception; rate-limited to one per 2 s. */
  private maybeScreenshotAfter(event: TelemetryEvent): void {
    const trigger =
      event.type === 'page_load'
        ? 'Page.loadEventFired'
        : event.type === 'console_error' && event.source.event === 'Runtime.exceptionThrown'
          ? 'Runtime.exceptionThrown'
          : undefined;
    if (trigger === undefined || this.mix === 'heavy' || !this.capture.category('screenshot')) return;
    if (event.ts - this.lastScreenshotTs < SCREENSHOT_INTERVAL_MICROS) return;
    this.screenshotTrigger = trigger;
    this.lastScreenshotTs = event.ts;
  }

  /** Counts an untyped draw; true when the heavy mix wants a screenshot now (and screenshots are captured). */
  private heavyScreenshotDue(): boolean {
    if (this.mix !== 'heavy') return false;
    return ++this.untyped % HEAVY_SCREENSHOT_EVERY === 0 && this.capture.category('screenshot');
  }

  private heavyScreenshot(): TelemetryEvent {
    const shots = smallScreenshotsBase64();
    const png = shots[this.screenshots++ % shots.length] as string;
    return this.build('monitor_screenshot', monitorScreenshot(this.g, 'Page.loadEventFired', png));
  }

  /** kindsFor, cached for the last list asked for (emit(count, { types }) asks once per event). */
  private kindsForTypes(types: readonly string[]): Kind[] {
    const key = types.join(',');
    if (this.typedKinds?.key !== key) {
      const unknown = types.filter((t) => !CATALOGUE[t]);
      if (unknown.length > 0) throw new Error(`unknown event type(s): ${unknown.join(', ')}`);
      this.typedKinds = { key, kinds: this.kindsFor(types) };
    }
    return this.typedKinds.kinds;
  }

  private kindsFor(types: readonly string[]): Kind[] {
    const kinds: Kind[] = [];
    for (const type of types) {
      const entry = CATALOGUE[type];
      if (!entry || !this.capture.category(entry.category)) continue;
      if (type === 'cdp_command') {
        const methods = CDP_METHODS.filter((m) => this.capture.cdpMethod(m));
        for (const method of methods) kinds.push({ type, method, weight: entry.weight / methods.length });
      } else kinds.push({ type, weight: entry.weight });
    }
    return kinds;
  }

  private weightedPick(): Kind | undefined {
    const total = this.cumulative[this.cumulative.length - 1] ?? 0;
    const r = this.g.rng.next() * total;
    let lo = 0;
    let hi = this.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (r < (this.cumulative[mid] as number)) hi = mid;
      else lo = mid + 1;
    }
    return this.kinds[lo];
  }
}

/** The heavy mix's console_log: text and first argument of several KB for some of them. */
function lengthenConsoleText(rng: Rng, result: GenResult): void {
  const text = heavyConsoleText(rng);
  if (text === undefined || !result.data) return;
  result.data.text = text;
  result.data.args = [text];
}

/**
 * The bytes after ts of the JSON of one of the factory's screenshot events, without running the
 * serialiser over its 20 KB–1 MB of base64 (it checks every character for escapes: ~70 µs for
 * 30 KB) nor encoding it again: the factory's PNGs are base64 by construction (png.ts), which needs
 * no escape and is ASCII, so their bytes are made once (pngBytes) and the frame copies them in.
 * `data` is the last member and `png` its only one, hence lastIndexOf.
 */
function screenshotTail(event: TelemetryEvent): readonly Buffer[] {
  const data = event.data as { png: string };
  const png = data.png;
  data.png = '';
  const json = JSON.stringify(event);
  data.png = png;
  const at = json.lastIndexOf('"png":""') + '"png":"'.length;
  return [Buffer.from(json.slice(json.indexOf(',"type":'), at)), pngBytes(png), Buffer.from(json.slice(at))];
}

/**
 * The bytes of each PNG's base64 text. The factory's screenshots are a handful of strings built
 * once per process (png.ts), so the map stays that small; the same string objects come back, whose
 * hash V8 keeps, so a lookup does not read the text.
 */
const PNG_BYTES = new Map<string, Buffer>();

function pngBytes(png: string): Buffer {
  let bytes = PNG_BYTES.get(png);
  if (bytes === undefined) {
    bytes = Buffer.from(png, 'latin1');
    PNG_BYTES.set(png, bytes);
  }
  return bytes;
}
