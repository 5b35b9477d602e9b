// `perf script` text → samples. The text comes from
//   perf script -F comm,pid,tid,time,ip,sym,dso
// over a recording made with `-g`: each sample is a header line, then one line per frame of its call
// chain, innermost first, then a blank line:
//
//   MainThread 24100/24100 75641.210533:
//   	    7f3a1c0411a4 Builtin:JsonParse (/tmp/perf-24100.map)
//   	    7f3a1c2b0e71 JS:*decode file:///…/src/stream/frame-decoder.js:41:10 (/tmp/perf-24100.map)
//   	ffffffff9a2001b0 entry_SYSCALL_64_after_hwframe ([kernel.kallsyms])
//
// A thread's name (comm, at most 15 characters) may hold spaces ("V8 DefaultWorke"), so the header is
// read from its end. The parser takes one line at a time: a 15 s recording of two busy cores is
// ~100 MB of text, read as a stream and never held whole.

/** One frame of a call chain. */
export interface PerfFrame {
  /** The instruction address, hex, as perf prints it. */
  ip: string;
  /** The symbol ("[unknown]" when perf could not resolve it). */
  sym: string;
  /** The object it belongs to ("/usr/bin/node", "[kernel.kallsyms]", "/tmp/perf-<pid>.map"), when printed. */
  dso?: string;
}

export interface PerfSample {
  comm: string;
  pid: number;
  tid: number;
  /** Seconds, perf's clock. */
  time: number;
  /** Innermost first. */
  frames: PerfFrame[];
}

export interface PerfScriptParser {
  /** One line of the text, without its line break. */
  line(text: string): void;
  /** The text has ended: hands on the last sample if it had no blank line after it. */
  end(): void;
}

// `comm pid/tid time:` and whatever perf adds after the colon (an event name, a period) when asked to.
const HEADER = /^(\S.*?)\s+(-?\d+)\/(-?\d+)\s+(\d+\.\d+):/;
const FRAME = /^\s+([0-9a-f]+)\s+(.*)$/;
// The object in parentheses at the end of a frame line; a C++ symbol's own parentheses (arguments)
// never start with "/" or "[".
const DSO = /\s+\(([/[][^()]*)\)$/;

/** A parser that calls `onSample` for every complete sample, in the order of the text. */
export function createPerfScriptParser(onSample: (sample: PerfSample) => void): PerfScriptParser {
  let current: PerfSample | undefined;
  const flush = (): void => {
    if (current) onSample(current);
    current = undefined;
  };
  return {
    line(text) {
      if (text.trim() === '') return flush();
      const frame = FRAME.exec(text);
      if (frame && current) {
        const rest = frame[2]!;
        const dso = DSO.exec(rest);
        current.frames.push(
          dso ? { ip: frame[1]!, sym: rest.slice(0, dso.index), dso: dso[1]! } : { ip: frame[1]!, sym: rest },
        );
        return;
      }
      const header = HEADER.exec(text);
      if (header) {
        // A header right after a sample without a blank line between them (no call chain printed).
        flush();
        current = {
          comm: header[1]!,
          pid: Number(header[2]),
          tid: Number(header[3]),
          time: Number(header[4]),
          frames: [],
        };
      }
      // Anything else (perf's warnings on stdout, a frame line without a header) is not a sample.
    },
    end: flush,
  };
}

/** Every sample of a whole text (tests and small inputs; the tool streams). */
export function parsePerfScript(text: string): PerfSample[] {
  const samples: PerfSample[] = [];
  const parser = createPerfScriptParser((s) => samples.push(s));
  for (const line of text.split('\n')) parser.line(line);
  parser.end();
  return samples;
}
