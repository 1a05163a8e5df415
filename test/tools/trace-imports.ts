/**
 * Test tool: `node --import dist/test/tools/trace-imports.js …` appends every module URL
 * the process resolves to $TRACE_IMPORTS_FILE. Used to prove that rebuild, keyword search
 * and session-start never load the embedding library.
 */
import { register } from 'node:module';

register('./trace-imports-hooks.js', import.meta.url);
