// A command-line mistake is one line that names it in this CLI's words.
import { describe, expect, it } from 'vitest';
import { parseCommand, UsageError } from '../../../src/util/command-line.js';

const OPTIONS = { from: { type: 'string' }, color: { type: 'boolean' } } as const;

describe('parseCommand', () => {
  it.each<[string, string[], string]>([
    ['a mistyped option, with the one meant', ['--form', '1'], 'unknown option --form; did you mean --from?'],
    ['a value missing', ['--from'], 'option --from needs a value'],
    [
      'a value that starts with a dash',
      ['--from', '-3'],
      'option --from needs a value; one that starts with "-" is written --from=-…',
    ],
    ['a value given to a flag', ['--color=yes'], 'option --color takes no value'],
  ])('%s', (_name, argv, message) => {
    expect(() => parseCommand(argv, OPTIONS, 'help')).toThrow(new UsageError(`${message} (--help for the options)`));
  });

  it('--from=-3 reaches the command, which judges the value itself', () => {
    expect(parseCommand(['--from=-3'], OPTIONS, 'help')?.values.from).toBe('-3');
  });
});
