// Terminal colours for the human-readable commands (tail, pool, check). Colour only where a person
// reads it: on a TTY, or when asked with --color; NO_COLOR (https://no-color.org) turns the
// default off, an explicit --color still wins.

export interface Paint {
  readonly enabled: boolean;
  red: (s: string) => string;
  yellow: (s: string) => string;
  green: (s: string) => string;
  cyan: (s: string) => string;
  magenta: (s: string) => string;
  dim: (s: string) => string;
  bold: (s: string) => string;
}

const wrap =
  (open: number, close: number) =>
  (s: string): string =>
    `\u001b[${open}m${s}\u001b[${close}m`;

const ON: Paint = {
  enabled: true,
  red: wrap(31, 39),
  yellow: wrap(33, 39),
  green: wrap(32, 39),
  cyan: wrap(36, 39),
  magenta: wrap(35, 39),
  dim: wrap(2, 22),
  bold: wrap(1, 22),
};

const same = (s: string): string => s;
const OFF: Paint = {
  enabled: false,
  red: same,
  yellow: same,
  green: same,
  cyan: same,
  magenta: same,
  dim: same,
  bold: same,
};

export function paint(enabled: boolean): Paint {
  return enabled ? ON : OFF;
}

/** --color / --no-color, else a TTY without NO_COLOR. */
export function useColor(
  stream: { isTTY?: boolean },
  flags: { color?: boolean; noColor?: boolean },
  env: Record<string, string | undefined> = process.env,
): boolean {
  if (flags.noColor) return false;
  if (flags.color) return true;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return stream.isTTY === true;
}
