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

/**
 * Ranks from distances (lower is better, nearest first) where equal distances share the first
 * one's rank ("1, 1, 3"): two memories the model cannot tell apart, such as the same turn kept in
 * two sessions, get the same part from the list, so the rest of the ranking orders them.
 */
export function tiedRanks(distances: readonly number[]): number[] {
  const out: number[] = [];
  distances.forEach((d, i) => out.push(i > 0 && d === distances[i - 1] ? (out[i - 1] as number) : i + 1));
  return out;
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

/**
 * How much a model's vector list may weigh against the keywords' in fusion, as measured by
 * `npm run bench:quality` on the development set (bench/QUALITY.md): the largest strength at
 * which hybrid stays at or above keyword search alone at hit@1 and hit@10 on every set, the
 * sessions ranked in a history of their own per question included. By the model's name (its
 * last path part); a model not measured here counts as 1.
 */
export const MODEL_STRENGTH: Readonly<Record<string, number>> = {
  // The test model's token vectors are random: it knows nothing the words do not.
  'tiny-model': 0,
  // Universal Sentence Encoder lite, the bench's stand-in for a real but weak English model
  // (0.1, then 0.05: each time the history of its own per question put hybrid one question below
  // keyword alone as the keyword ranking gained).
  'use-lite-en': 0.025,
};

export function modelStrength(model: string | undefined): number {
  if (!model) return 1;
  const name = model.split(/[\\/]/).filter(Boolean).pop() ?? model;
  return MODEL_STRENGTH[name] ?? 1;
}

/** Share of the vector list's weight a question gets even when its top agrees with nothing the keywords found. */
export const VECTOR_FLOOR = 0.25;
const AGREEMENT_TOP = 10;

/**
 * The vector list's weight in fusion for one question: the model's strength, times how far its
 * top agrees with the keyword list's (the share of its top k in the keywords' top k, k at most
 * 10 and the shorter list's length; from VECTOR_FLOOR up to 1). Where the words found nothing
 * the vectors are all there is (1); where they agree, vectors reorder what the words found;
 * where they disagree, the words' order stands.
 */
export function vectorWeight(keywordTop: readonly number[], vectorTop: readonly number[], strength: number, floor = VECTOR_FLOOR): number {
  if (keywordTop.length === 0) return 1;
  if (vectorTop.length === 0 || strength <= 0) return Math.max(0, strength);
  const k = Math.min(AGREEMENT_TOP, keywordTop.length, vectorTop.length);
  const kw = new Set(keywordTop.slice(0, k));
  const agree = vectorTop.slice(0, k).filter((id) => kw.has(id)).length / k;
  return strength * (floor + (1 - floor) * agree);
}
