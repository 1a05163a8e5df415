/**
 * Hybrid search: safe FTS5 keyword query + vec0 KNN, fused with RRF, then time decay.
 * The query embedding is passed in as a function, so keyword mode never loads a model and
 * tests hand in the real tiny model or none at all.
 */
import { UserError } from '../errors.js';
import type { MemoryRow, Store } from '../store/store.js';
import type { SearchFilters, SearchHit, SearchMode } from '../types.js';
import { decayFactor, fuseRanks } from './fuse.js';
import { buildKeywordQuery } from './query.js';

export interface SearchOptions {
  query: string;
  mode: SearchMode;
  filters: SearchFilters;
  topK: number;
  halfLifeDays: number;
  rrfK: number;
  /** Candidates taken from each ranked list before fusion. */
  candidates?: number;
}

export interface SearchDeps {
  store: Store;
  /** Returns the query vector; throws ModelUnavailable when the model cannot load. */
  embedQuery?: (text: string) => Promise<Float32Array>;
  now: number;
}

/**
 * With time decay on, a memory older than this many half-lives keeps under 1/1000 of its
 * score: it cannot outrank a fresh memory unless almost nothing fresh matches. Vector KNN
 * is the costly list (a full scan: ~70 ms over 100k 384-d vectors here), so it first
 * searches this window, and searches everything only when the window yields fewer than
 * the candidates it needs.
 */
export const DECAY_WINDOW_HALF_LIVES = 10;

export interface SearchResult {
  hits: SearchHit[];
  /** Set when hybrid search fell back to keywords only, with the reason. */
  degraded?: string;
}

export function toHit(row: MemoryRow, score: number): SearchHit {
  return {
    id: row.id,
    score,
    timestamp: row.timestamp,
    machine: row.machine,
    project: row.project,
    question: row.question,
    answer: row.answer,
  };
}

function vectorCandidates(deps: SearchDeps, vec: Float32Array, opts: SearchOptions, k: number): number[] {
  if (opts.halfLifeDays > 0) {
    const windowStart = deps.now - DECAY_WINDOW_HALF_LIVES * opts.halfLifeDays * 86_400_000;
    if (opts.filters.sinceMs === undefined || opts.filters.sinceMs < windowStart) {
      const recent = deps.store.knn(vec, { ...opts.filters, sinceMs: windowStart }, k);
      if (recent.length >= k) return recent.map((r) => r.rowid);
    }
  }
  return deps.store.knn(vec, opts.filters, k).map((r) => r.rowid);
}

export async function search(deps: SearchDeps, opts: SearchOptions): Promise<SearchResult> {
  const k = opts.candidates ?? 50;
  const lists: number[][] = [];
  let degraded: string | undefined;
  if (opts.query.trim().length === 0) throw new UserError('empty query', 'give some words to search for');

  if (opts.mode !== 'vector') lists.push(...keywordLists(deps.store, opts.query, opts.filters, k));
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
  const rows = deps.store.rowsByRowid([...fused.keys()]);
  const scored: Array<{ row: MemoryRow; score: number }> = [];
  for (const [rowid, s] of fused) {
    const row = rows.get(rowid);
    if (!row) continue;
    scored.push({ row, score: s * decayFactor(row.ts_ms, deps.now, opts.halfLifeDays) });
  }
  scored.sort((a, b) => b.score - a.score || b.row.ts_ms - a.row.ts_ms || a.row.id.localeCompare(b.row.id));
  const hits = scored.slice(0, opts.topK).map(({ row, score }) => toHit(row, Number(score.toPrecision(6))));
  return degraded ? { hits, degraded } : { hits };
}

/** The keyword rankings (rowids, best first): FTS5 bm25, and a substring scan for 1–2 character terms. */
function keywordLists(store: Store, query: string, filters: SearchFilters, k: number): number[][] {
  const q = buildKeywordQuery(query);
  const lists: number[][] = [];
  if (q.match) lists.push(store.fts(q.match, filters, k).map((r) => r.rowid));
  if (q.short.length > 0) lists.push(store.substring(q.short, filters, k).map((r) => r.rowid));
  return lists;
}

/** Keyword hits without time decay (for `forget --query`): FTS and substring lists fused. */
export function keywordHits(store: Store, query: string, filters: SearchFilters, k: number): MemoryRow[] {
  const fused = [...fuseRanks(keywordLists(store, query, filters, k), 60)].sort((a, b) => b[1] - a[1]).slice(0, k);
  const rows = store.rowsByRowid(fused.map(([id]) => id));
  return fused.map(([id]) => rows.get(id)).filter((r): r is MemoryRow => r !== undefined);
}
