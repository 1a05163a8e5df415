/** Reciprocal-rank fusion and time decay. Pure maths. */

/** A ranking: keys best first, and optionally their (1-based, non-decreasing) effective ranks. */
export interface Ranking<K> {
  keys: K[];
  ranks?: number[];
}

/**
 * RRF with 1-based ranks: score(d) = Σ over lists 1 / (k + rank(d)). A document absent
 * from a list gets nothing from it. A list given with effective ranks uses them instead of
 * positions (see scoreRanks).
 */
export function fuseRanks<K>(lists: Array<K[] | Ranking<K>>, k: number): Map<K, number> {
  const scores = new Map<K, number>();
  for (const list of lists) {
    const keys = Array.isArray(list) ? list : list.keys;
    const ranks = Array.isArray(list) ? undefined : list.ranks;
    keys.forEach((key, i) => {
      scores.set(key, (scores.get(key) ?? 0) + 1 / (k + (ranks?.[i] ?? i + 1)));
    });
  }
  return scores;
}

/**
 * Effective ranks from relevance scores (higher is better, best first): 1 + spread · (1 −
 * s / s_best). A list's confidence survives fusion: near-ties share a rank (so recency may
 * order them), and a match far ahead of the rest stays far ahead, which plain positions
 * (1/61 vs 1/62: under 2% apart whatever the gap) cannot say.
 */
export function scoreRanks(scores: number[], spread: number): number[] {
  const best = scores[0];
  if (best === undefined || !(best > 0)) return scores.map((_, i) => i + 1);
  return scores.map((s) => 1 + spread * (1 - Math.max(0, s) / best));
}

const DAY_MS = 86_400_000;

/** 0.5^(age_days / half_life_days); half-life 0 gives 0 (no recency); future timestamps count as age 0. */
export function freshness(timestampMs: number, nowMs: number, halfLifeDays: number): number {
  if (halfLifeDays <= 0) return 0;
  const ageDays = Math.max(0, (nowMs - timestampMs) / DAY_MS);
  return 0.5 ** (ageDays / halfLifeDays);
}

/**
 * Recency as a bounded prior: a relevance score is multiplied by 1 + weight · freshness,
 * so a memory from today gains at most `weight` over one from years ago. Between
 * comparably relevant memories the newer wins; a clearly better match is never pushed out
 * by newer weak ones, however old it is. (A plain 0.5^(age/half-life) multiplier did push
 * it out: hit@10 0.60 → 0.29 on the English development set, bench/QUALITY.md.)
 */
export function recencyBoost(timestampMs: number, nowMs: number, halfLifeDays: number, weight: number): number {
  return 1 + weight * freshness(timestampMs, nowMs, halfLifeDays);
}
