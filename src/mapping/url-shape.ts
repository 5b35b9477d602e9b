// Where the redaction looks for URLs: under URL-named keys (relative URLs included), and any string
// that starts like an absolute URL, wherever it sits (an array of URLs, a redirect chain, a
// metadata value). Pure and without imports, so both the body walk and the attributes can use it.

/**
 * `url`, `*_url`, `*Url`, and their plurals (`urls`, `*_urls`, `*Urls`) for arrays of URLs. Asked
 * for every string of every event: a key that ends in neither `l` nor `s` (most do) is settled by
 * one character, before six string comparisons.
 */
export const isUrlKey = (key: string): boolean => {
  const last = key.charCodeAt(key.length - 1);
  if (last !== 108 /* l */ && last !== 115 /* s */) return false;
  return (
    key === 'url' ||
    key === 'urls' ||
    key.endsWith('_url') ||
    key.endsWith('Url') ||
    key.endsWith('_urls') ||
    key.endsWith('Urls')
  );
};

/**
 * Whether a string starts like an absolute URL with an authority (`scheme://`): such values are
 * masked wherever they sit, not only under URL-named keys (a redirect chain, a list of URLs, a
 * metadata value). A bounded look at the first characters, no regular expression: it runs for
 * every string of every event.
 */
export function looksLikeUrl(s: string): boolean {
  const c0 = s.charCodeAt(0);
  if (!((c0 >= 65 && c0 <= 90) || (c0 >= 97 && c0 <= 122))) return false;
  const max = Math.min(s.length - 2, 33);
  for (let i = 1; i < max; i++) {
    const c = s.charCodeAt(i);
    if (c === 58 /* : */) return s.charCodeAt(i + 1) === 47 && s.charCodeAt(i + 2) === 47;
    const schemeChar =
      (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 43 || c === 45 || c === 46;
    if (!schemeChar) return false;
  }
  return false;
}
