// Reading an event's data fields for spans: a field of the wrong type, or an empty string, counts
// as absent (the service's events are not validated field by field before they reach the builder).

export const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
export const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
/** An HTTP status code (100–599); Chromium's 0 for a response it never had is none, as in the records. */
export const httpStatus = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isInteger(v) && v >= 100 && v <= 599 ? v : undefined;
