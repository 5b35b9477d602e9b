// The bulk path (Session.produceBatch, what `produce` and the benchmark drive): frames built from
// template bytes are the envelopes the real service would send, in seq order, with the current
// process's telemetry_session_id, and the archive keeps the same frames.
import { describe, expect, it } from 'vitest';
import { EventFactory } from '../../../../src/devkit/simulator/events/event-factory.js';
import { createRng } from '../../../../src/devkit/simulator/events/rng.js';
import { defaultFaults } from '../../../../src/devkit/simulator/faults.js';
import { CAPTURE_ALL } from '../../../../src/devkit/simulator/pools.js';
import { Producer } from '../../../../src/devkit/simulator/producer.js';
import { Session } from '../../../../src/devkit/simulator/session.js';
import { formatFrame, frameData } from '../../../../src/devkit/simulator/sse-format.js';
import { validateEnvelope, type Envelope } from '../../../../src/upstream/envelope.js';

function session(mix: 'heavy' | 'catalogue'): Session {
  return new Session('s', {
    bufferSize: 5000,
    archiveSize: 5000,
    faults: defaultFaults,
    factory: new EventFactory(createRng(3), 's', CAPTURE_ALL, mix),
    producer: new Producer(),
    telemetry: true,
  });
}

/** Every frame the replay buffer holds, as text, oldest first. */
function frames(s: Session): string[] {
  const out: string[] = [];
  for (let seq = s.buffer.oldestSeq; seq <= s.buffer.lastSeq; seq++) out.push((s.buffer.get(seq) as Buffer).toString());
  return out;
}

describe('bulk production', () => {
  it.each(['heavy', 'catalogue'] as const)('%s mix: each frame is the default frame of a valid envelope', (mix) => {
    const s = session(mix);
    s.produceBatch(1500);
    const texts = frames(s);
    expect(texts).toHaveLength(1500);
    let lastTs = 0;
    for (const [i, text] of texts.entries()) {
      const data = frameData(text);
      const env = JSON.parse(data) as Envelope;
      expect(text).toBe(formatFrame(i + 1, JSON.stringify(env)));
      expect(validateEnvelope(env).ok).toBe(true);
      expect(env.seq).toBe(i + 1);
      expect(env.event.ts).toBeGreaterThan(lastTs);
      lastTs = env.event.ts;
      expect(env.event.source.metadata?.telemetry_session_id).toBe(s.telemetrySessionId);
      expect(env.event.truncated).toBeUndefined();
    }
    expect(s.emitted).toBe(1500);
  });

  it('after a service restart the templates carry the new telemetry_session_id, and the archive keeps both epochs', () => {
    const s = session('heavy');
    s.produceBatch(300);
    const before = s.telemetrySessionId;
    s.restartService();
    s.produceBatch(300);
    const ids = frames(s).map(
      (t) => (JSON.parse(frameData(t)) as Envelope).event.source.metadata?.telemetry_session_id,
    );
    expect(new Set(ids)).toEqual(new Set([s.telemetrySessionId]));
    expect(s.telemetrySessionId).not.toBe(before);
    expect(s.archive.size).toBe(600);
  });
});
