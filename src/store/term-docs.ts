/**
 * How many memories hold each of the keyword index's common terms, counted once in a while.
 *
 * bm25 gives a term found in at least half the indexed rows no weight at all (FTS5 clamps its
 * idf to 1e-6), yet ranking an OR query over it scores every row that holds it: in a cache
 * where a katakana word's bigrams are in most memories, nearly all of a query's time
 * (bench/RESULTS.md). Knowing those terms lets a query leave them out (search/common-terms.ts).
 *
 * Counting is a scan of the whole index (fts5vocab: about a second at 100k memories), so it
 * runs after a full rebuild and when the number of memories has moved by a quarter since the
 * last count, never on a no-op. Between counts a listed term's number is a lower bound (rows
 * only grow it, but for forgetting), which is what leaving a term out needs.
 */
import type { DB } from './database.js';
import type { FilingHost } from './projects.js';

/** Terms held by at least this share of the memories are listed (room to grow towards one half). */
const LISTED_SHARE = 0.05;
/** Below this many memories every query is fast: nothing is listed. */
const MIN_MEMORIES = 1000;
/** Recount when the number of memories moved by this factor since the last count. */
const RECOUNT_FACTOR = 1.25;
/** The meta key holding the number of memories at the last count. */
const COUNTED_AT = 'term_docs_n';

export class TermDocs {
  constructor(
    private readonly db: DB,
    private readonly host: Pick<FilingHost, 'meta' | 'setMeta'>,
  ) {}

  /** The number of memories at the last count, if any. */
  private countedAt(): number | undefined {
    const v = this.host.meta(COUNTED_AT);
    return v === undefined ? undefined : Number(v);
  }

  /** Whether a count is due for `live` memories. */
  due(live: number, full: boolean): boolean {
    const at = this.countedAt();
    if (live < MIN_MEMORIES) return at !== undefined; // too few: clear an old list
    if (full || at === undefined) return true;
    return live >= at * RECOUNT_FACTOR || live * RECOUNT_FACTOR <= at;
  }

  /** Count again (inside the caller's lock). Returns the number of listed terms. */
  refresh(live: number): number {
    return this.db.transaction(() => {
      this.db.exec('DELETE FROM term_docs');
      if (live < MIN_MEMORIES) {
        this.db.prepare('DELETE FROM meta WHERE key = ?').run(COUNTED_AT);
        return 0;
      }
      // In the connection's temp schema: nothing about the scan is kept in the cache file.
      this.db.exec('CREATE VIRTUAL TABLE IF NOT EXISTS temp.memories_vocab USING fts5vocab(main, memories_fts, row)');
      const n = this.db
        .prepare('INSERT INTO term_docs (term, docs) SELECT term, doc FROM temp.memories_vocab WHERE doc >= ?')
        .run(Math.max(2, Math.ceil(live * LISTED_SHARE))).changes;
      this.host.setMeta(COUNTED_AT, String(live));
      return n;
    })();
  }

  /** The listed terms among `terms` (as the index holds them), with how many memories hold each. */
  docsOf(terms: string[]): Map<string, number> {
    if (terms.length === 0) return new Map();
    const rows = this.db
      .prepare<[string], { term: string; docs: number }>('SELECT term, docs FROM term_docs WHERE term IN (SELECT value FROM json_each(?))')
      .all(JSON.stringify(terms));
    return new Map(rows.map((r) => [r.term, r.docs]));
  }

  /** At least as many as the rows of the keyword index (its rowids are memories' rowids). */
  indexedBound(): number {
    return this.db.prepare<[], { n: number | null }>('SELECT max(rowid) AS n FROM memories').get()?.n ?? 0;
  }
}
