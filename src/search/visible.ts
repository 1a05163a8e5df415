/**
 * Hidden memories (an excluded project, a glob over project and folder) never use up a limit:
 * the first `want` candidates of a ranking that are shown, reading further down it until
 * enough pass or it ends. One helper for search (keyword and vector lists) and recall.
 */
import type { MemoryRow, Store } from '../store/store.js';
import type { SearchFilters } from '../types.js';

/** How far down a ranking hidden memories are skipped at most. */
const READ_AT_MOST = 20_000;

export function shownRanked<T extends { rowid: number }>(store: Store, fetch: (limit: number) => T[], want: number, hide?: (row: MemoryRow) => boolean): T[] {
  // Nothing hidden: the ranking as it is (its candidates are live memories), no row read.
  if (!hide) return fetch(want);
  for (let limit = want * 2; ; limit *= 4) {
    const ranked = fetch(limit);
    const rows = store.rowsByRowid(ranked.map((r) => r.rowid));
    const out: T[] = [];
    for (const item of ranked) {
      const row = rows.get(item.rowid);
      if (!row || row.deleted || hide(row)) continue;
      out.push(item);
      if (out.length >= want) break;
    }
    if (out.length >= want || ranked.length < limit || limit >= READ_AT_MOST) return out;
  }
}

/** The newest `want` memories under `filters` that are shown: a listing (search's, recall's). */
export function newestShown(store: Store, filters: SearchFilters, want: number, hide?: (row: MemoryRow) => boolean): MemoryRow[] {
  return shownRanked(store, (limit) => store.browse(filters, 0, limit), want, hide);
}
