// Where the bearer token comes from: BROWSER_API_KEY, or BROWSER_API_KEY_FILE re-read after a 401
// (a mounted Kubernetes secret is rotated in place; re-reading picks up the new key without a restart).
import { MAX_KEY_FILE_BYTES } from '../config/file-limits.js';
import { readTextFileBounded } from '../util/read-bounded.js';
import { headerValueProblem } from '../util/header-value.js';

export interface ApiKeyProvider {
  get(): string;
  /** Called after a 401: a file-backed key is read again on the next get(). */
  invalidate(): void;
  /** Where the key comes from, for an operator to check after a 401 (never the key itself). */
  readonly source: string;
}

export function createApiKeyProvider(opts: { apiKey?: string; apiKeyFile?: string }): ApiKeyProvider {
  if (opts.apiKey) {
    const key = opts.apiKey;
    return { get: () => key, invalidate: () => {}, source: 'BROWSER_API_KEY (or upstream.api_key)' };
  }
  const file = opts.apiKeyFile;
  if (!file) throw new Error('no API key configured');
  let cached: string | undefined;
  return {
    source: `the key file ${file} (BROWSER_API_KEY_FILE; re-read at every retry)`,
    get() {
      if (cached === undefined) {
        try {
          // Bounded as at start-up: a key file swapped for something else fails the same clear way.
          cached = readTextFileBounded(file, MAX_KEY_FILE_BYTES).trim();
        } catch (err) {
          // Keep the error free of contents; the path is configuration, not a secret.
          throw new Error(`cannot read API key file ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`, {
            cause: err,
          });
        }
      }
      // A key rotated into the file with a line break inside it would fail every request as
      // ERR_INVALID_CHAR, an unreachable service; it is named here instead (the key is not shown).
      const problem = headerValueProblem(cached);
      if (problem) {
        cached = undefined;
        throw new Error(`the key in API key file ${file} ${problem}`);
      }
      return cached;
    },
    invalidate() {
      cached = undefined;
    },
  };
}
