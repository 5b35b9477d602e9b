// What `run` reads from the environment beside the configuration: LOG_LEVEL and
// BRIDGE_CONTROL_INSECURE. `validate` and `check` read them the same way, so that they refuse what
// `run` refuses, with the same one line and exit code 2 (they accepted BRIDGE_CONTROL_INSECURE=maybe,
// and check a LOG_LEVEL of "loud", that run then refused).
import { envFlag } from '../config/readers.js';
import { INSECURE_ENV } from '../server/control-access.js';
import { configuredLogLevel } from './log-level.js';

export interface RunEnvironment {
  logLevel: string;
  /** BRIDGE_CONTROL_INSECURE: open the control API beyond loopback without a token. */
  insecure: boolean;
}

/** Both settings, or the ConfigError of the first that is invalid. */
export function runEnvironment(env: NodeJS.ProcessEnv = process.env): RunEnvironment {
  const insecure = envFlag(env[INSECURE_ENV], INSECURE_ENV) ?? false;
  return { logLevel: configuredLogLevel(env), insecure };
}
