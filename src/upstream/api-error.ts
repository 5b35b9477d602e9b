// The service's Error shape (docs/service-api.md "Errors"): {code, message, details?, inner_error?}. Bodies of
// non-2xx answers are parsed into it; anything else becomes a synthetic error that still names the
// status. Never includes request headers, so the API key cannot leak through an error message.

export interface ApiErrorBody {
  code: string;
  message: string;
  details?: Array<{ code: string; message: string }>;
  inner_error?: { code: string; message: string };
}

const MAX_TEXT = 300;

/** Parses a response body into the Error shape; `status` names the fallback code. */
export function parseApiError(status: number, text: string): ApiErrorBody {
  try {
    const v = JSON.parse(text) as unknown;
    if (typeof v === 'object' && v !== null) {
      const o = v as Record<string, unknown>;
      if (typeof o.code === 'string' && typeof o.message === 'string') {
        const out: ApiErrorBody = { code: o.code, message: o.message.slice(0, MAX_TEXT) };
        if (Array.isArray(o.details)) out.details = o.details.filter(isDetail);
        if (isDetail(o.inner_error)) out.inner_error = o.inner_error;
        return out;
      }
    }
  } catch {
    // not JSON: fall through
  }
  const snippet = text.trim().slice(0, MAX_TEXT);
  return { code: `http_${status}`, message: snippet || `HTTP ${status} without a body` };
}

/**
 * The error of a redirect (3xx with a Location), which nothing here follows: the API key goes only to
 * the configured URL. Where it points is said without its query or user-info (a signed URL's token),
 * relative to `requestUrl`; undefined for any other answer.
 */
export function redirectError(
  status: number,
  location: string | undefined,
  requestUrl: string | URL,
  e: ApiErrorBody,
): ApiErrorBody | undefined {
  if (status < 300 || status > 399 || location === undefined) return undefined;
  let to: string;
  try {
    const u = new URL(location, requestUrl);
    to = `${u.origin}${u.pathname}`;
  } catch {
    to = 'a Location that is not a URL';
  }
  return {
    code: e.code,
    message: `redirects to ${to}, which is not followed (the API key goes only to the configured URL): set BROWSER_API_URL (upstream.url) to where the service answers`,
  };
}

function isDetail(v: unknown): v is { code: string; message: string } {
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof (v as { code?: unknown }).code === 'string' &&
    typeof (v as { message?: unknown }).message === 'string'
  );
}

/** One line for logs and status: "401 unauthorized: invalid token". */
export function describeApiError(status: number, e: ApiErrorBody): string {
  return `${status} ${e.code}: ${e.message}`;
}
