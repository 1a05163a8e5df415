/**
 * A module loaded when first used rather than at start-up. The hooks run on every prompt and
 * every file the agent touches, so their paths do not pay for what only other commands call
 * (git processes, a worker thread, the vector extension): measured in bench/RESULTS.md.
 */
import { createRequire } from 'node:module';

const load = createRequire(import.meta.url);

/** `require` from this package's own place (a package of its dependencies, a subpath they export). */
export function loadHere(id: string): unknown {
  return load(id);
}

export function later<T>(id: string): () => T {
  let m: T | undefined;
  return () => (m ??= load(id) as T);
}

const crypto = later<typeof import('node:crypto')>('node:crypto');

/** A SHA-1 hash; node:crypto loads on first use, since loading it at start costs a hook ~5 ms (bench/RESULTS.md). */
export function sha1(): import('node:crypto').Hash {
  return crypto().createHash('sha1');
}
