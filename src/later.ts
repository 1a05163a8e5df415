/**
 * A module loaded when first used rather than at start-up. The hooks run on every prompt and
 * every file the agent touches, so their paths do not pay for what only other commands call
 * (git processes, a worker thread, the vector extension): measured in bench/RESULTS.md.
 */
import { createRequire } from 'node:module';

const load = createRequire(import.meta.url);

export function later<T>(id: string): () => T {
  let m: T | undefined;
  return () => (m ??= load(id) as T);
}
