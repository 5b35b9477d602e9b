// pino JSON logs on stderr (stdout is kept for command output: `tail -o json`, `check`, `pool`),
// pretty when stderr is a terminal; level from LOG_LEVEL. Redaction paths are a second line of
// defence: secrets are never passed to the logger in the first place.
import pino, { type Logger } from 'pino';

export type { Logger };

const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];

/**
 * LOG_LEVEL as pino names it: empty is unset (a compose file's `LOG_LEVEL: ${LOG_LEVEL}` with nothing
 * exported), case does not matter. Anything else throws, saying what is allowed: pino's own
 * "default level:verbose must be included in custom levels" stopped the daemon with exit 1.
 */
export function logLevel(text: string | undefined): string {
  const level = (text ?? '').trim().toLowerCase();
  if (level === '') return 'info';
  if (!LEVELS.includes(level)) throw new Error(`must be one of ${LEVELS.join(', ')} (got "${text}")`);
  return level;
}

export function createLogger(opts: { level?: string; pretty?: boolean; name?: string } = {}): Logger {
  const level = logLevel(opts.level ?? process.env.LOG_LEVEL);
  const pretty = opts.pretty ?? Boolean(process.stderr.isTTY);
  const base = {
    level,
    name: opts.name ?? 'bridge',
    redact: {
      paths: ['apiKey', '*.apiKey', 'headers.authorization', '*.headers.authorization', 'controlToken'],
      censor: '[redacted]',
    },
  };
  if (pretty) {
    return pino({
      ...base,
      transport: {
        target: 'pino-pretty',
        options: { destination: 2, colorize: true, translateTime: 'HH:MM:ss.l', ignore: 'pid,hostname,name' },
      },
    });
  }
  return pino(base, pino.destination({ dest: 2, sync: false }));
}

/** A logger that drops everything (tests, and commands whose output is the point). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
