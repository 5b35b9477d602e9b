// Fault injection settings: defaults and validated merging of a JSON patch (PUT /_sim/faults).
import type { Faults } from './types.js';
import { isRecord } from '../../util/guards.js';

export function defaultFaults(): Faults {
  return {
    failNext: [],
    wrongContentType: 0,
    crlf: false,
    splitData: false,
    crOnly: false,
    staleResume: 'wait',
    endedServerErrors: 1,
    listFailNext: [],
    archiveFailNext: [],
  };
}

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;

/**
 * Merges `patch` into `faults` (JSON merge: present keys replace, null clears an optional one).
 * Returns an error message and changes nothing when the patch is invalid.
 */
export function mergeFaults(faults: Faults, patch: unknown): string | undefined {
  if (!isRecord(patch)) return 'faults patch must be a JSON object';
  const next: Faults = {
    ...faults,
    failNext: [...faults.failNext],
    listFailNext: [...(faults.listFailNext ?? [])],
    archiveFailNext: [...(faults.archiveFailNext ?? [])],
  };
  for (const [key, value] of Object.entries(patch)) {
    switch (key) {
      case 'failNext': {
        if (!Array.isArray(value)) return 'failNext must be an array';
        const list: Faults['failNext'] = [];
        for (const item of value) {
          if (
            !isRecord(item) ||
            !Number.isInteger(item.status) ||
            (item.status as number) < 100 ||
            (item.status as number) > 599
          ) {
            return 'failNext items need an HTTP status';
          }
          if (item.retryAfterSeconds !== undefined && !isCount(item.retryAfterSeconds))
            return 'retryAfterSeconds must be a non-negative integer';
          if (item.code !== undefined && typeof item.code !== 'string') return 'code must be a string';
          list.push({
            status: item.status as number,
            ...(item.retryAfterSeconds !== undefined ? { retryAfterSeconds: item.retryAfterSeconds } : {}),
            ...(item.code !== undefined ? { code: item.code } : {}),
          });
        }
        next.failNext = list;
        break;
      }
      case 'listFailNext':
      case 'archiveFailNext': {
        if (!Array.isArray(value)) return `${key} must be an array`;
        const list: NonNullable<Faults['listFailNext']> = [];
        for (const item of value) {
          if (
            !isRecord(item) ||
            !Number.isInteger(item.status) ||
            (item.status as number) < 100 ||
            (item.status as number) > 599
          ) {
            return `${key} items need an HTTP status`;
          }
          if (item.retryAfterSeconds !== undefined && !isCount(item.retryAfterSeconds))
            return 'retryAfterSeconds must be a non-negative integer';
          list.push({
            status: item.status as number,
            ...(item.retryAfterSeconds !== undefined ? { retryAfterSeconds: item.retryAfterSeconds } : {}),
          });
        }
        next[key] = list;
        break;
      }
      case 'listRefusedStatuses': {
        const ok = ['active', 'deleted', 'all'];
        if (!Array.isArray(value) || !value.every((v) => typeof v === 'string' && ok.includes(v)))
          return 'listRefusedStatuses must be a list of active, deleted or all';
        next.listRefusedStatuses = value as NonNullable<Faults['listRefusedStatuses']>;
        break;
      }
      case 'listOrder':
        if (value !== 'newest' && value !== 'oldest') return 'listOrder must be newest or oldest';
        next.listOrder = value;
        break;
      case 'wrongContentType':
      case 'endedServerErrors':
        if (!isCount(value)) return `${key} must be a non-negative integer`;
        next[key] = value;
        break;
      case 'cutAfterFrames':
      case 'chunkSize':
        if (value === null) delete next[key];
        else if (!isCount(value) || (key === 'chunkSize' && value === 0))
          return `${key} must be a positive integer or null`;
        else next[key] = value;
        break;
      case 'staleResume':
        if (value !== 'wait' && value !== 'replay') return 'staleResume must be wait or replay';
        next.staleResume = value;
        break;
      case 'crlf':
      case 'crOnly':
      case 'splitData':
      case 'listHold':
        if (typeof value !== 'boolean') return `${key} must be a boolean`;
        next[key] = value;
        break;
      default:
        return `unknown fault ${key}`;
    }
  }
  Object.assign(faults, next);
  if (!('cutAfterFrames' in next)) delete faults.cutAfterFrames;
  if (!('chunkSize' in next)) delete faults.chunkSize;
  return undefined;
}
