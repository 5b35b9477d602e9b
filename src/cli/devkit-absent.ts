// The devkit (simulator, receiver, demo) is not part of every installation: the container image
// carries only the daemon (the Dockerfile leaves dist/devkit/ out). A devkit command there must say
// so in words, not fail with a module-resolution stack trace.

/** The commands that live in src/devkit/. */
export const DEVKIT_COMMANDS: readonly string[] = ['demo', 'simulate', 'receive'];

/** Whether loading a command failed because its files (or a package only they use) are absent. */
export function isModuleNotFound(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
}

/** What a devkit command says where the devkit is not installed. */
export function devkitAbsentMessage(command: string): string {
  return (
    `"${command}" belongs to the devkit (simulator, receiver, demo), which this installation does not include: ` +
    'the container image carries only the daemon. Run it from a clone of the repository ' +
    `(npm ci && npx tsx src/cli/main.ts ${command}), from a package built there (npm pack, then ` +
    `browser-telemetry-bridge ${command} once installed), or from the image's devkit target ` +
    '(docker build --target devkit .).'
  );
}
