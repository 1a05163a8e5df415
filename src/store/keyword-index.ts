/**
 * The keyword index (memories_fts) kept in step with the memories table. Each memory is
 * indexed with its own question and answer and the beginning of the neighbouring turns of
 * its session (the context column: the turn before and the turn after, by timestamp).
 *
 * A turn's context depends on its neighbours, so memories of a session are indexed when a
 * batch of lines has been applied (flush), not one by one: a new turn is indexed once with
 * its neighbours, and the turn before it is re-indexed (delete and insert: the index is
 * contentless) because its "after" changed. `memories.ctx` records which neighbour versions
 * a row was indexed with (NULL: not in the index yet), so an unchanged row is left alone.
 */
import type Database from 'better-sqlite3';
import { analyseMemory, indexText, type Analysed } from './analyze.js';
import { preparedOnUse } from './prepared.js';

interface SessionRow {
  rowid: number;
  question: string;
  answer: string;
  ts_ms: number;
  version_ms: number;
  ctx: string | null;
}

type Version = Pick<SessionRow, 'rowid' | 'version_ms'>;

/** Which neighbour versions a row is indexed with. */
export function neighbourKey(prev: Version | undefined, next: Version | undefined): string {
  const k = (r: Version | undefined) => (r ? `${r.rowid}:${r.version_ms}` : '');
  return `${k(prev)}|${k(next)}`;
}

/** A live memory of a fresh cache, in index order: its neighbours as positions in the same list (-1 none). */
export interface BulkRow {
  rowid: number;
  prev: number;
  next: number;
}

/**
 * The order a fresh cache's live memories are given their rowids in (a full rebuild): in the
 * order they were first read, except that a session's turns come together, by time, where its
 * first turn was read. A memory's neighbours are then the rows next to it, and the keyword
 * index is written in rowid order (FTS5 takes ascending rowids about 1.7× faster: measured).
 * Returns positions into `rows`, each with whether the row before / after is its neighbour.
 */
export function bulkOrder(rows: Array<{ session_id: string | null; ts_ms: number }>): Array<{ i: number; prev: boolean; next: boolean }> {
  const sessions = new Map<string, number[]>();
  rows.forEach((r, i) => {
    if (r.session_id === null) return;
    let list = sessions.get(r.session_id);
    if (!list) sessions.set(r.session_id, (list = []));
    list.push(i);
  });
  const out: Array<{ i: number; prev: boolean; next: boolean }> = [];
  rows.forEach((r, i) => {
    if (r.session_id === null) {
      out.push({ i, prev: false, next: false });
      return;
    }
    const list = sessions.get(r.session_id);
    if (!list) return; // already placed with its session
    sessions.delete(r.session_id);
    list.sort((a, b) => (rows[a] as (typeof rows)[number]).ts_ms - (rows[b] as (typeof rows)[number]).ts_ms || a - b);
    list.forEach((j, k) => out.push({ i: j, prev: k > 0, next: k + 1 < list.length }));
  });
  return out;
}

/** FTS5's pending-terms limit while a fresh index is written, and its default. */
const BULK_HASH_BYTES = 64 * 1024 * 1024;
const DEFAULT_HASH_BYTES = 1024 * 1024;

export class KeywordIndex {
  private readonly dirty = new Set<string>();
  private readonly stmts;

  constructor(private readonly db: Database.Database) {
    this.stmts = preparedOnUse({
      insert: () => db.prepare('INSERT INTO memories_fts (rowid, question, answer, context) VALUES (?, ?, ?, ?)'),
      remove: () => db.prepare('DELETE FROM memories_fts WHERE rowid = ?'),
      setCtx: () => db.prepare('UPDATE memories SET ctx = ? WHERE rowid = ?'),
      session: () =>
        db.prepare<[string], SessionRow>(
          'SELECT rowid, question, answer, ts_ms, version_ms, ctx FROM memories WHERE session_id = ? AND +deleted = 0 ORDER BY ts_ms, rowid',
        ),
    });
  }

  /** A live memory arrived or its text changed (its row's ctx is NULL: not in the index). */
  add(row: { rowid: number; session_id: string | null; question: string; answer: string; ts_ms: number }): void {
    if (row.session_id !== null) {
      this.dirty.add(row.session_id);
      return;
    }
    this.stmts.insert.run(row.rowid, indexText(row.question), indexText(row.answer), '');
    this.stmts.setCtx.run('', row.rowid);
  }

  /** A memory leaves the index (forgotten or replaced); its session's neighbours change. */
  remove(row: { rowid: number; session_id: string | null; ctx: string | null }): void {
    if (row.ctx !== null) this.stmts.remove.run(row.rowid);
    if (row.session_id !== null) this.dirty.add(row.session_id);
  }

  /**
   * Index a fresh cache's live memories in one pass (a full rebuild): neighbours are known
   * up front, so every memory is inserted once, with its context. `analysed(i)` gives the
   * analysis of rows[i] (computed here, or by a worker thread ahead of the inserts), asked
   * for in order and at most one row ahead.
   */
  bulk(rows: BulkRow[], analysed: (i: number) => Analysed): void {
    // FTS5 writes a segment each time its pending terms pass `hashsize` (1 MB by default) and
    // merges segments as it goes: with 64 MB and no automerge a fresh index is written in a few
    // segments and never merged (a rebuild at 100k: 31 → 24 s, no free pages left behind;
    // bench/RESULTS.md). Set back after: later writes are small, and merge as before.
    this.db.exec(`INSERT INTO memories_fts (memories_fts, rank) VALUES ('hashsize', ${BULK_HASH_BYTES}); INSERT INTO memories_fts (memories_fts, rank) VALUES ('automerge', 0)`);
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i] as BulkRow;
      const own = analysed(i);
      const parts: string[] = [];
      if (r.prev >= 0) parts.push(analysed(r.prev)[2]);
      if (r.next >= 0) parts.push(analysed(r.next)[2]);
      this.stmts.insert.run(r.rowid, own[0], own[1], parts.join('\n'));
    }
    this.db.exec(`INSERT INTO memories_fts (memories_fts, rank) VALUES ('hashsize', ${DEFAULT_HASH_BYTES}); INSERT INTO memories_fts (memories_fts, rank) VALUES ('automerge', 4)`);
  }

  /** Index every session touched since the last flush. Call inside the batch's transaction. */
  flush(): number {
    let indexed = 0;
    for (const session of this.dirty) indexed += this.indexSession(session);
    this.dirty.clear();
    return indexed;
  }

  private indexSession(session: string): number {
    const rows = this.stmts.session.all(session);
    const memo = new Map<number, Analysed>();
    const analysed = (r: SessionRow): Analysed => {
      let a = memo.get(r.rowid);
      if (!a) memo.set(r.rowid, (a = analyseMemory(r.question, r.answer)));
      return a;
    };
    let n = 0;
    rows.forEach((r, i) => {
      const prev = rows[i - 1];
      const next = rows[i + 1];
      const key = neighbourKey(prev, next);
      if (r.ctx === key) return;
      if (r.ctx !== null) this.stmts.remove.run(r.rowid);
      const own = analysed(r);
      const context = [prev, next].filter((x): x is SessionRow => x !== undefined).map((x) => analysed(x)[2]).join('\n');
      this.stmts.insert.run(r.rowid, own[0], own[1], context);
      this.stmts.setCtx.run(key, r.rowid);
      n++;
    });
    return n;
  }
}
