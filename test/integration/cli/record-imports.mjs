// Preloaded (NODE_OPTIONS=--import) into a `run` child by sidecar-modules.test.ts: records which
// modules the bridge's own files import and which optional packages anything resolves, and at exit
// writes them, with the built-in modules the process loaded, to RECORD_IMPORTS_TO as JSON.
import { writeFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
import process from 'node:process';

const imports = [];
registerHooks({
  resolve(specifier, context, next) {
    const parent = context.parentURL ?? '';
    const i = parent.indexOf('/src/');
    // A compiled copy of src/ (test/helpers/compiled-sources.ts) is named by its source file.
    const from = i >= 0 ? parent.slice(i + 1).replace(/\.js$/, '.ts') : parent;
    if (i >= 0 || !specifier.startsWith('.')) imports.push({ specifier, from });
    return next(specifier, context);
  },
});
process.on('exit', () => {
  const builtins = process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice(13));
  writeFileSync(process.env.RECORD_IMPORTS_TO, JSON.stringify({ imports, builtins }));
});
