/**
 * Statements prepared on first use, each once: a hook that asks two questions of the cache does
 * not prepare the thirty that a rebuild needs (~1.5 ms of every hook's start: bench/RESULTS.md).
 */
export function preparedOnUse<T extends object>(make: { [K in keyof T]: () => T[K] }): T {
  const out = {} as T;
  for (const key of Object.keys(make) as Array<keyof T>) {
    let made: T[typeof key] | undefined;
    Object.defineProperty(out, key, { get: () => (made ??= make[key]()), enumerable: true });
  }
  return out;
}
