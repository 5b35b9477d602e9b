// A URL-ish text for a message, below the mapping's redactor in the layer order: configuration
// errors (config/) and pool summaries (upstream/) print URLs that may carry credentials, and they
// cannot reach mapping/display-url.ts. Stricter than it on purpose, since there is no name list
// here: user-info and the value of every query and fragment parameter are masked.

const MASK = 'REDACTED';

/** `text` with user-info and parameter values masked; a plain name (no `scheme://`, `?`, `#`, `@`) is returned as is. */
export function maskUrlText(text: string): string {
  if (!/[?#@]/.test(text)) return text;
  const masked = text
    // user-info: between `//` and the last `@` of the authority.
    .replace(
      /^([A-Za-z][A-Za-z0-9+.-]*:)?\/\/[^/?#]*@/,
      (_m, scheme: string | undefined) => `${scheme ?? ''}//${MASK}@`,
    )
    // every `name=value` after `?` or `#`, and a bare fragment or query value.
    .replace(/([?#&;])([^=&;#?]*)=([^&;#?]*)/g, (_m, sep: string, name: string, value: string) =>
      value === '' ? `${sep}${name}=` : `${sep}${name}=${MASK}`,
    );
  return masked;
}
