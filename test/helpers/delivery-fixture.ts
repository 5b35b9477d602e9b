// What the delivery tests build the same way: a record that carries its seq as an attribute (so a
// collector can say which records it saw), a spool in `always` mode on a SQLite store that knows
// session "s", a transport answering from a script, and a Delivery with the test's bounds.
import { Delivery, type DeliveryOptions } from '../../src/export/delivery.js';
import type { ExportOutcome, OtlpTransport } from '../../src/export/otlp-transport.js';
import { decodeProtobufLogsRequest } from '../../src/devkit/receiver/decode.js';
import type { Store } from '../../src/store/store.js';
import { Spool } from '../../src/store/spool.js';
import type { SpoolOptions } from '../../src/store/spool-options.js';
import { createRecordEncoder } from '../../src/wire/encode-record.js';
import { createRequestBuilder, type RequestBody } from '../../src/wire/otlp-request.js';

const encode = createRecordEncoder();

/** OTLP/HTTP protobuf requests with a fixed resource and scope. */
export const testRequests = createRequestBuilder('http/protobuf', {
  resource: { 'service.name': 't' },
  scope: { name: 't', version: '1' },
});

/** Appends to session "s" a record whose attribute `seq` is `seq` (the record's time is `tsMicros`). */
export function appendSeq(spool: Spool, seq: number, tsMicros = seq): void {
  spool.append({
    sessionId: 's',
    seq,
    epoch: 0,
    tsMicros,
    record: encode({
      tsMicros,
      observedMicros: tsMicros,
      eventName: 'browser.x',
      severityNumber: 9,
      severityText: 'INFO',
      body: undefined,
      attributes: { seq },
    }),
  });
}

/** The seqs of the records in one request, in order. */
export function requestSeqs(body: Uint8Array | RequestBody): number[] {
  return decodeProtobufLogsRequest(body instanceof Uint8Array ? body : Buffer.concat(body)).map((r) =>
    Number(r.attributes.seq),
  );
}

/** A collector that answers each request from `answer`, given its records' seqs. */
export function scriptedTransport(
  url: string,
  answer: (seqs: number[]) => ExportOutcome | Promise<ExportOutcome>,
): OtlpTransport {
  return { url, send: async (body) => answer(requestSeqs(body)), close: async () => {} };
}

/** A spool in `always` mode over `store`, with session "s" put first; `opts` override the bounds. */
export async function openTestSpool(store: Store, opts: Partial<Omit<SpoolOptions, 'store'>> = {}): Promise<Spool> {
  await store.putSession({ id: 's', attributes: {} }, 'config');
  return Spool.open({
    store,
    mode: 'always',
    maxBytes: 1 << 24,
    memoryMaxBytes: 1 << 20,
    commitMaxRecords: 1000,
    commitIntervalMs: 5,
    ...opts,
  });
}

/** A Delivery over `spool` and `transport` with test bounds; `opts` override them. */
export function testDelivery(
  spool: Spool,
  transport: OtlpTransport,
  opts: Partial<Omit<DeliveryOptions, 'spool' | 'transport'>> & Pick<DeliveryOptions, 'emit'>,
): Delivery {
  return new Delivery({
    spool,
    transport,
    requests: testRequests,
    batchMaxRecords: 10,
    batchMaxBytes: 1 << 30,
    concurrency: 1,
    backoff: { initialMs: 5, maxMs: 20 },
    ...opts,
  });
}
