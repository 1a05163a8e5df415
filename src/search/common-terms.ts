/**
 * A query's terms that carry no weight: held by at least half the memories in the keyword
 * index. FTS5's bm25 clamps such a term's idf to 1e-6, so leaving it out of the ranked query
 * changes no score beyond that, while scoring every row that holds it was most of the time of
 * such a query (bench/RESULTS.md). Only the ranking over the whole index may leave them out:
 * restricted to a memory's own text, a term's idf is its own (search.ts `own`).
 */
import type { Store } from '../store/store.js';

export interface SplitTerms {
  /** The terms that rank. */
  kept: string[];
  /** Terms in at least half the indexed memories (never all of the query's terms). */
  common: string[];
}

export function splitCommon(store: Store, terms: string[]): SplitTerms {
  // Listed terms are single tokens as the index holds them: a phrase or a prefix never is.
  const docs = store.terms.docsOf(terms.filter((t) => !t.includes(' ') && !t.endsWith('*')));
  if (docs.size === 0) return { kept: terms, common: [] };
  const half = store.terms.indexedBound() / 2;
  const common = terms.filter((t) => (docs.get(t) ?? 0) >= half);
  // Nothing but weightless terms: the query stays as it was written.
  if (common.length === 0 || common.length === terms.length) return { kept: terms, common: [] };
  const dropped = new Set(common);
  return { kept: terms.filter((t) => !dropped.has(t)), common };
}
