/**
 * Hybrid search: safe FTS5 keyword query + vec0 KNN, fused with RRF, then a bounded
 * recency prior.
 * The query embedding is passed in as a function, so keyword mode never loads a model and
 * tests hand in the real tiny model or none at all.
 */
import { UserError } from '../errors.js';
import type { MemoryRow, Store } from '../store/store.js';
import type { SearchFilters, SearchHit, SearchMode } from '../types.js';
import { fuseRanks, recencyBoost, scoreRanks, type Ranking } from './fuse.js';
import { buildKeywordQuery } from './query.js';
import { withChanges, type Staleness } from './staleness.js';

export interface SearchOptions {
  query: string;
  mode: SearchMode;
  filters: SearchFilters;
  topK: number;
  /** Half-life of the recency prior in days; 0 ranks by relevance alone. */
  halfLifeDays: number;
  /** How much a brand-new memory can gain over an old one (×(1 + weight)); see fuse.ts. */
  recencyWeight?: number;
  /** Effective-rank spread of the keyword list (tuning; default KEYWORD_RANK_SPREAD). */
  keywordSpread?: number;
  rrfK: number;
  /** Candidates taken from each ranked list before fusion. */
  candidates?: number;
  /** Memories never shown (an excluded project), dropped before the top-k is taken. */
  hide?: (row: MemoryRow) => boolean;
}

export interface SearchDeps {
  store: Store;
  /** Returns the query vector; throws ModelUnavailable when the model cannot load. */
  embedQuery?: (text: string) => Promise<Float32Array>;
  now: number;
  /** Compare each hit's recorded files with this machine's checkout (changed_files). */
  staleness?: Staleness;
}

/** The default recency weight ([search] recency_weight): chosen on the development set, bench/QUALITY.md. */
export const DEFAULT_RECENCY_WEIGHT = 0.1;

export interface SearchResult {
  hits: SearchHit[];
  /** Set when hybrid search fell back to keywords only, with the reason. */
  degraded?: string;
}

export function toHit(row: MemoryRow, score: number, s?: Staleness): SearchHit {
  const hit: SearchHit = {
    id: row.id,
    score,
    timestamp: row.timestamp,
    machine: row.machine,
    project: row.project,
    source: row.source,
    question: row.question,
    answer: row.answer,
  };
  return s ? withChanges(hit, s, row) : hit;
}

function vectorCandidates(deps: SearchDeps, vec: Float32Array, opts: SearchOptions, k: number): number[] {
  // Every vector is a candidate: recency is a bounded prior, so an old memory can win.
  return deps.store.knn(vec, opts.filters, k).map((r) => r.rowid);
}

export async function search(deps: SearchDeps, opts: SearchOptions): Promise<SearchResult> {
  const k = opts.candidates ?? 50;
  const lists: Array<number[] | Ranking<number>> = [];
  let degraded: string | undefined;
  if (opts.query.trim().length === 0) throw new UserError('empty query', 'give some words to search for');

  if (opts.mode !== 'vector') lists.push(...keywordLists(deps.store, opts.query, opts.filters, k, opts.keywordSpread));
  if (opts.mode !== 'keyword') {
    if (deps.store.dim === 0) {
      if (opts.mode === 'vector') {
        throw new UserError('no embedded memories yet: vector search has nothing to search', 'run `memory rebuild --with-model`, or use --mode keyword');
      }
      degraded = 'no embedded memories yet; keyword results only';
    } else if (!deps.embedQuery) {
      degraded = 'no embedding model; keyword results only';
    } else {
      let vec: Float32Array | undefined;
      try {
        vec = await deps.embedQuery(opts.query);
      } catch (err) {
        if (opts.mode === 'vector') throw new UserError(err instanceof Error ? err.message : String(err), 'use --mode keyword');
        degraded = `${err instanceof Error ? err.message : String(err)}; keyword results only`;
      }
      if (vec) {
        if (vec.length !== deps.store.dim) {
          const msg = `the model gives ${vec.length}-d vectors but the cache holds ${deps.store.dim}-d ones`;
          if (opts.mode === 'vector') throw new UserError(msg, 'run `memory rebuild --full`');
          degraded = `${msg}; keyword results only`;
        } else {
          lists.push(vectorCandidates(deps, vec, opts, k));
        }
      }
    }
  }

  const fused = fuseRanks(lists, opts.rrfK);
  // The vector index has no source column: a source filter applies to its candidates here.
  const src = opts.filters.source;
  const wrongSource = src === undefined ? undefined : (row: MemoryRow) => (row.source ?? 'claude-code') !== src;
  const rows = deps.store.rowsByRowid([...fused.keys()]);
  const scored: Array<{ row: MemoryRow; score: number }> = [];
  for (const [rowid, s] of fused) {
    const row = rows.get(rowid);
    if (!row || opts.hide?.(row) || wrongSource?.(row)) continue;
    scored.push({ row, score: s * recencyBoost(row.ts_ms, deps.now, opts.halfLifeDays, opts.recencyWeight ?? DEFAULT_RECENCY_WEIGHT) });
  }
  scored.sort((a, b) => b.score - a.score || b.row.ts_ms - a.row.ts_ms || a.row.id.localeCompare(b.row.id));
  const hits = scored.slice(0, opts.topK).map(({ row, score }) => toHit(row, Number(score.toPrecision(6)), deps.staleness));
  return degraded ? { hits, degraded } : { hits };
}

/** How many RRF ranks a keyword match falls behind the best one per unit of lost bm25: bench/QUALITY.md. */
export const KEYWORD_RANK_SPREAD = 30;

/** The keyword ranking (rowids, best first): FTS5 bm25 over the word index, its gaps kept as effective ranks. */
function keywordLists(store: Store, query: string, filters: SearchFilters, k: number, spread = KEYWORD_RANK_SPREAD): Array<Ranking<number>> {
  const q = buildKeywordQuery(query);
  if (!q.match) return [];
  const rows = store.fts(q.match, filters, k);
  // FTS5's bm25 is negative: more negative is better.
  return [{ keys: rows.map((r) => r.rowid), ranks: scoreRanks(rows.map((r) => -r.score), spread) }];
}

/** Keyword hits by relevance alone (for `forget --query`). */
export function keywordHits(store: Store, query: string, filters: SearchFilters, k: number): MemoryRow[] {
  const fused = [...fuseRanks(keywordLists(store, query, filters, k), 60)].sort((a, b) => b[1] - a[1]).slice(0, k);
  const rows = store.rowsByRowid(fused.map(([id]) => id));
  return fused.map(([id]) => rows.get(id)).filter((r): r is MemoryRow => r !== undefined);
}
