/**
 * Test tool: `node --import dist/test/tools/trace-imports.js …` appends every module URL
 * the process resolves to $TRACE_IMPORTS_FILE: imports and require() alike (simple-git is
 * required at the first git call, src/sync/process.ts). Used to prove that rebuild, keyword search
 * and session-start never load the embedding library, and the hooks' light paths no git.
 */
import { appendFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

registerHooks({
  resolve(specifier, context, next) {
    const result = next(specifier, context);
    const file = process.env.TRACE_IMPORTS_FILE;
    if (file) appendFileSync(file, `${result.url}\n`);
    return result;
  },
});
