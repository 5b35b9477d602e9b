// What a session's spans need to survive a restart, as the text stored beside its checkpoint
// (docs/traces.md "After a crash"): the builder's open state at the checkpoint, and the spans
// already finished but not yet acknowledged by the traces endpoint, encoded exactly as they are sent
// so that sending them again after a restart repeats the same bytes.
import { isRecord } from '../util/guards.js';
import type { SpanBuilderState } from './open-state.js';

export interface SpanState {
  open: SpanBuilderState;
  /** Encoded spans (framed ScopeSpans entries) finished and not yet acknowledged, oldest first. */
  unsent: Buffer[];
}

/**
 * The stored text from the open state (already JSON: `JSON.stringify(builder.snapshot())`, taken
 * where the builder runs, a worker thread included) and the unsent spans (known where they are sent).
 */
export function encodeSpanState(openJson: string, unsent: Iterable<Buffer>): string {
  const spans = JSON.stringify(Array.from(unsent, (b) => b.toString('base64')));
  return `{"v":1,"open":${openJson},"unsent":${spans}}`;
}

/** The stored state, or undefined when there is none or it is not one this bridge wrote (started afresh). */
export function decodeSpanState(text: string | undefined): SpanState | undefined {
  if (text === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(parsed) || parsed.v !== 1 || !isRecord(parsed.open) || parsed.open.v !== 1) return undefined;
  const unsent = Array.isArray(parsed.unsent) ? parsed.unsent.filter((u) => typeof u === 'string') : [];
  return { open: parsed.open as unknown as SpanBuilderState, unsent: unsent.map((u) => Buffer.from(u, 'base64')) };
}
