// LOG_LEVEL read as a configuration key: `run` and `validate` refuse a level pino does not know with
// the same one line and exit code 2 as any other invalid value.
import { ConfigError } from '../config/errors.js';
import { logLevel } from '../util/logger.js';

/** The level LOG_LEVEL names (info when unset or empty); a ConfigError naming LOG_LEVEL otherwise. */
export function configuredLogLevel(env: NodeJS.ProcessEnv = process.env): string {
  try {
    return logLevel(env.LOG_LEVEL);
  } catch (err) {
    throw new ConfigError('LOG_LEVEL', (err as Error).message);
  }
}
