import { closest } from '../util/closest-name.js';
import { printable } from '../util/printable.js';

/**
 * A configuration problem, reported with the key that caused it; the CLI exits with code 2. One
 * line: a value quoted in it may hold a line break or an escape sequence (BRIDGE_SESSIONS="a\nb",
 * a pasted value), which would split the report or steer the terminal it is printed on.
 */
export class ConfigError extends Error {
  readonly key: string;
  constructor(key: string, message: string) {
    super(printable(`${key}: ${message}`));
    this.name = 'ConfigError';
    this.key = key;
  }
}

/**
 * A key the schema does not know at `path`, with the known name it is nearest to (a typo such as
 * `api_kye`), and the names that are allowed there. A problem of its own whatever its value holds:
 * an unset variable in that value is reported beside it, not instead of it (load-config.ts).
 */
export class UnknownKeyError extends ConfigError {
  constructor(path: string, allowed: readonly string[]) {
    const name = path.slice(path.lastIndexOf('.') + 1);
    const near = closest(name, allowed);
    super(path, `unknown key${near ? `; did you mean ${near}?` : ''} (expected one of: ${allowed.join(', ')})`);
  }
}

/**
 * A value of the wrong shape (a list written as one value, a section as a scalar), found by the walk
 * of the file against its declared keys before the parsers read it. The parser of that key, when it
 * runs, says the same more precisely ("a list of host names"): its line replaces this one.
 */
export class ShapeError extends ConfigError {}

/**
 * Several problems of one configuration, reported together so the operator fixes them in one go.
 * A ConfigError itself (the first problem's key), so every caller that handles one handles both.
 */
export class ConfigErrors extends ConfigError {
  readonly problems: readonly ConfigError[];
  constructor(problems: readonly ConfigError[]) {
    const first = problems[0]!;
    super(first.key, '');
    this.name = 'ConfigErrors';
    this.problems = problems;
    this.message = `${problems.length} problems:\n${problems.map((p) => `  ${p.message}`).join('\n')}`;
  }
}

/** A problem's message without what it says was written (`… (got "x")`), which both wordings end with. */
function withoutGot(message: string): string {
  const at = message.lastIndexOf(' (got ');
  return at < 0 ? message : message.slice(0, at);
}

/**
 * Collects the problems of independent parts of a configuration: `take` runs one part and returns
 * its value, or records its ConfigError and returns the fallback so the next part is read too.
 */
export class ConfigProblems {
  private readonly list_: ConfigError[] = [];

  add(...problems: ConfigError[]): void {
    for (const p of problems) {
      if (this.list_.some((q) => q.message === p.message)) continue;
      // One line per wrongly shaped key: the parser's wording in the shape walk's place, unless
      // the shape walk's line already says it and more ("must be a mapping with the keys …").
      const shape = this.list_.findIndex((q) => q instanceof ShapeError && q.key === p.key);
      if (shape < 0 || p instanceof ShapeError) this.list_.push(p);
      else if (!this.list_[shape]!.message.startsWith(withoutGot(p.message))) this.list_[shape] = p;
    }
  }

  take<T>(part: () => T, fallback: T): T {
    try {
      return part();
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      this.add(...(err instanceof ConfigErrors ? err.problems : [err]));
      return fallback;
    }
  }

  /** The problems collected so far, in the order they were found. */
  get list(): readonly ConfigError[] {
    return this.list_;
  }

  /** Throws what was collected: the problem itself when there is one, all of them when several. */
  throwIfAny(): void {
    if (this.list_.length === 1) throw this.list_[0]!;
    if (this.list_.length > 1) throw new ConfigErrors(this.list_);
  }
}
