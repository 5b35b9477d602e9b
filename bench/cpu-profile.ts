// A V8 CPU profile of exactly the measured phase of a scenario (not its setup, nor the ceiling
// passes during which the bridge's process only waits), taken in-process through the inspector.
// Active only when the runner was given --cpu-prof DIR (it passes BENCH_CPU_PROF); otherwise free.
import { Session } from 'node:inspector/promises';
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

export interface CpuProfileRun {
  /** Stops profiling and writes DIR/<name>.cpuprofile; returns its path, or undefined when off. */
  stop(name: string): Promise<string | undefined>;
}

export async function startCpuProfile(): Promise<CpuProfileRun> {
  const dir = process.env.BENCH_CPU_PROF;
  if (!dir) return { stop: async () => undefined };
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 500 });
  await session.post('Profiler.start');
  return {
    async stop(name) {
      const { profile } = await session.post('Profiler.stop');
      session.disconnect();
      mkdirSync(dir, { recursive: true });
      const file = join(dir, `${name}.cpuprofile`);
      writeFileSync(file, JSON.stringify(profile));
      return file;
    },
  };
}
