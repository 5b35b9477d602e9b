/** A configuration problem, reported with the key that caused it; the CLI exits with code 2. */
export class ConfigError extends Error {
  readonly key: string;
  constructor(key: string, message: string) {
    super(`${key}: ${message}`);
    this.name = 'ConfigError';
    this.key = key;
  }
}
