/**
 * Test tool: `node --import dist/test/tools/trace-imports.js …` appends every module URL
 * the process resolves to $TRACE_IMPORTS_FILE: imports and require() alike (simple-git is
 * required at the first git call, src/sync/process.ts). Used to prove that rebuild, keyword search
 * and session-start never load the embedding library, and the hooks' light paths no git.
 * With $TRACE_OPENS set to a file's path, each time the process opens that file (fs.openSync, as
 * a hook reads a file whole to hash it) appends `open <path>` too.
 */
import fs, { appendFileSync } from 'node:fs';
import { registerHooks, syncBuiltinESMExports } from 'node:module';

const watched = process.env.TRACE_OPENS;
if (watched) {
  const open = fs.openSync;
  fs.openSync = function (this: unknown, ...args: Parameters<typeof fs.openSync>) {
    const file = process.env.TRACE_IMPORTS_FILE;
    if (file && String(args[0]) === watched) appendFileSync(file, `open ${String(args[0])}\n`);
    return open.apply(this, args);
  } as typeof fs.openSync;
  // The modules that import openSync by name (ES modules) see it too.
  syncBuiltinESMExports();
}

registerHooks({
  resolve(specifier, context, next) {
    const result = next(specifier, context);
    const file = process.env.TRACE_IMPORTS_FILE;
    if (file) appendFileSync(file, `${result.url}\n`);
    return result;
  },
});
