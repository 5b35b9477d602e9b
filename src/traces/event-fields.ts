// Reading an event's data fields for spans: a field of the wrong type, or an empty string, counts
// as absent (the service's events are not validated field by field before they reach the builder).

export const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
export const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
