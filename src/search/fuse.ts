/** Reciprocal-rank fusion and time decay. Pure maths. */

/**
 * RRF with 1-based ranks: score(d) = Σ over lists 1 / (k + rank(d)). A document absent
 * from a list gets nothing from it.
 */
export function fuseRanks<K>(lists: K[][], k: number): Map<K, number> {
  const scores = new Map<K, number>();
  for (const list of lists) {
    list.forEach((key, i) => {
      scores.set(key, (scores.get(key) ?? 0) + 1 / (k + i + 1));
    });
  }
  return scores;
}

const DAY_MS = 86_400_000;

/** 0.5^(age_days / half_life_days); half-life 0 disables decay; future timestamps count as age 0. */
export function decayFactor(timestampMs: number, nowMs: number, halfLifeDays: number): number {
  if (halfLifeDays <= 0) return 1;
  const ageDays = Math.max(0, (nowMs - timestampMs) / DAY_MS);
  return 0.5 ** (ageDays / halfLifeDays);
}
