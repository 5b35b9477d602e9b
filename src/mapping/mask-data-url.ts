// Secrets inside a `data:` URL's payload (RFC 2397: `data:[<media type>][;base64],<data>`). A page
// that fetches `data:application/json,{"access_token":…}`, or frames a `data:text/html,` document
// with a password field filled in, hands the whole payload to the browser as the request's URL, and
// so to `url`, `document_url` and the navigation's `url`: query and path parameter masking never
// reaches a payload that holds no `?`. The payload is a body in all but name, so it gets the body
// masking (body-secrets.ts: JSON, urlencoded form, multipart, HTML fields) after it is decoded:
// percent-decoded (leniently), or base64-decoded when the media type says so. A masked payload is
// encoded again (percent-encoding only when it was percent-encoded: a raw one stays raw); a payload
// with nothing to mask keeps its bytes, and so does the URL's fragment (`#…`, masked later as any
// URL's is). Binary payloads (images, fonts, audio, video, or base64 that is no UTF-8 text) are
// not decoded: a page's inline icons are on every event of it, and hold no credentials.
import type { NameMatcher } from './name-matcher.js';
import { maskBodySecrets } from './body-secrets.js';
import { percentDecode, wellFormed } from './redact-url.js';

const DATA_SCHEME = /^data:/i;

/** Media types whose payload is no text. */
const BINARY_TYPE = /^(?:image|font|audio|video)\//i;

/** `url` with the secrets of its payload masked when it is a `data:` URL; `url` itself otherwise. */
export function maskDataUrl(url: string, names: NameMatcher): string {
  if (!DATA_SCHEME.test(url)) return url;
  const comma = url.indexOf(',');
  if (comma === -1) return url;
  const header = url.slice(5, comma);
  if (BINARY_TYPE.test(header)) return url;
  const hash = url.indexOf('#', comma);
  const end = hash === -1 ? url.length : hash;
  const payload = url.slice(comma + 1, end);
  if (payload === '') return url;
  const base64 = /;base64$/i.test(header);
  let text: string;
  if (base64) {
    text = Buffer.from(payload.includes('%') ? percentDecode(payload) : payload, 'base64').toString('utf8');
    // Not UTF-8 text: binary a media type did not name (`application/octet-stream`).
    if (text.includes('\uFFFD')) return url;
  } else text = payload.includes('%') ? percentDecode(payload) : payload;
  const masked = maskBodySecrets(text, names);
  if (masked === text || typeof masked !== 'string') return url;
  const encoded = base64
    ? Buffer.from(masked, 'utf8').toString('base64')
    : payload.includes('%')
      ? encodeURIComponent(wellFormed(masked))
      : masked;
  return url.slice(0, comma + 1) + encoded + url.slice(end);
}
