/**
 * The SQLite cache: memories + FTS5 word index (analyze.ts) + vec0. Derived from JSONL only, so any doubt
 * about it (schema, model, corruption) is answered by rebuilding it. Vectors arrive as
 * Float32Array; this module never loads the embedding model. Persistence only: no folder or
 * `.git` is read here. Its other concerns live beside it: the connection (database.ts), filing
 * under projects (projects.ts), file states (file-states.ts), the keyword index
 * (keyword-index.ts).
 */
import type Database from 'better-sqlite3';
import { beats, orderTime, versionTime } from '../export/jsonl.js';
import { isTombstone, type ExportEntry, type MemoryRecord, type SearchFilters } from '../types.js';
import { analysisFeed } from './analyze-feed.js';
import { bulkOrder, KeywordIndex, neighbourKey, type BulkRow } from './keyword-index.js';
import { ProjectFiling } from './projects.js';
import { FileStates } from './file-states.js';
import { fileKey, FileIndex, recordedPaths } from './file-index.js';
import { TermDocs } from './term-docs.js';
import { BASE_DDL, bm25Of, COLUMN_WEIGHTS, KEYWORD_TOKENIZER, LIVE_COUNTS_DDL, rankFunction, STORE_VERSION, vecDdl, type ColumnWeights } from './schema.js';
import { indexText } from './analyze.js';

export { HOOK_BUSY_TIMEOUT_MS, isSqliteError, nativeModuleProblem, newConnection, openDatabase, type DB } from './database.js';
import type { DB } from './database.js';
import { preparedOnUse } from './prepared.js';
import { repoKey } from '../project/remote-url.js';

export interface IngestRow {
  file: string;
  offset: number;
  size: number;
  mtime_ms: number;
  fingerprint: string;
}

export interface MemoryRow {
  rowid: number;
  id: string;
  deleted: number;
  session_id: string | null;
  project: string | null;
  project_raw: string | null;
  repo: string | null;
  repo_here: string | null;
  machine: string;
  timestamp: string;
  ts_ms: number;
  updated_at: string | null;
  version_ms: number;
  question: string;
  answer: string;
  cwd: string | null;
  git_branch: string | null;
  files: string | null;
  source: string | null;
  model: string | null;
  dim: number | null;
  has_vector: number;
  extra: string | null;
  file: string | null;
  /** Which neighbours its keyword-index entry holds (keyword-index.ts); NULL: not indexed yet. */
  ctx: string | null;
}

export interface StoreIdentity {
  /** Model id whose vectors go into vec0. */
  model: string;
  /** Vector size from config; 0 = take it from the first matching record. */
  dim: number;
  /** Export folder the cache was built from. */
  exportDir: string;
  /**
   * The repository a folder is in on this machine (project/repository.ts), for memories that
   * name none (from before repositories were recorded): asked after an ingest, never during
   * it. Absent: such memories are filed by the name they were captured under.
   */
  repoOfFolder?: (cwd: string) => string | undefined;
}

export type { ProjectInfo } from './projects.js';

/**
 * How a line stands against the version that wins now (last-write-wins, apply() and a full
 * rebuild alike): the same version read again (same time, machine and content), a later
 * one that replaces it (a different text under the same version counts as later), or older.
 */
function against(entry: ExportEntry, cur: { version_ms: number; machine: string; deleted: boolean; question: string; answer: string }): 'same' | 'newer' | 'older' {
  if (versionTime(entry) === cur.version_ms && entry.machine === cur.machine) {
    const same = isTombstone(entry) ? cur.deleted : !cur.deleted && cur.question === entry.question && cur.answer === entry.answer;
    if (same) return 'same';
  }
  const current = { v: 1, id: entry.id, deleted: true, machine: cur.machine, updated_at: new Date(cur.version_ms).toISOString() } as const;
  return beats(entry, current) ? 'newer' : 'older';
}

/** A winning line of a fresh load, and the file it was read from. */
export interface FreshEntry {
  entry: ExportEntry;
  file: string;
}

export type ApplyOutcome = 'inserted' | 'updated' | 'deleted' | 'unchanged' | 'older';

export interface ApplyStats {
  /** Vectors not indexed because their size differs from the cache's dim. */
  dimMismatch: number;
}

export class Store {
  private vecDim: number;
  private readonly stmts;
  private vecStmts: { insert: Database.Statement; remove: Database.Statement } | undefined;
  readonly stats: ApplyStats = { dimMismatch: 0 };
  /** The keyword index: apply() feeds it, flushIndex() indexes the sessions a batch touched. */
  private readonly keywords: KeywordIndex;
  /** What keyword matches are ordered by: bm25 with the columns' weights (schema.ts bm25Of). */
  private columnWeights: ColumnWeights = COLUMN_WEIGHTS;

  constructor(
    readonly db: DB,
    readonly identity: StoreIdentity,
  ) {
    this.vecDim = 0;
    this.keywords = new KeywordIndex(db);
    this.stmts = preparedOnUse({
      byId: () => db.prepare<[string], Pick<MemoryRow, 'rowid' | 'version_ms' | 'machine' | 'deleted' | 'question' | 'answer' | 'has_vector' | 'session_id' | 'ctx'>>(
        'SELECT rowid, version_ms, machine, deleted, question, answer, has_vector, session_id, ctx FROM memories WHERE id = ?',
      ),
      insert: () => db.prepare(
        // rowid NULL: the next one; ctx NULL: not in the keyword index yet (a full rebuild gives both).
        `INSERT INTO memories (rowid, id, deleted, session_id, project, project_raw, repo, repo_here, machine, timestamp, ts_ms, updated_at, version_ms, question, answer,
           cwd, git_branch, files, source, model, dim, has_vector, extra, file, prompt_uuid, ctx)
         VALUES (@rowid, @id, @deleted, @session_id, @project, @project_raw, @repo, @repo_here, @machine, @timestamp, @ts_ms, @updated_at, @version_ms, @question, @answer,
           @cwd, @git_branch, @files, @source, @model, @dim, @has_vector, @extra, @file, @prompt_uuid, @ctx)`,
      ),
      update: () => db.prepare(
        `UPDATE memories SET deleted=@deleted, session_id=@session_id, project=@project, project_raw=@project_raw, repo=@repo,
           repo_here=@repo_here, machine=@machine, timestamp=@timestamp,
           ts_ms=@ts_ms, updated_at=@updated_at, version_ms=@version_ms, question=@question, answer=@answer, cwd=@cwd,
           git_branch=@git_branch, files=@files, source=@source, model=@model, dim=@dim, has_vector=@has_vector,
           extra=@extra, file=@file, prompt_uuid=COALESCE(@prompt_uuid, prompt_uuid), ctx=NULL WHERE rowid=@rowid`,
      ),
      setFile: () => db.prepare('UPDATE memories SET file = ? WHERE rowid = ?'),
      projectOfRow: () => db.prepare('SELECT project FROM memories WHERE rowid = ?'),
      setVector: () => db.prepare('UPDATE memories SET has_vector = 1, model = ?, dim = ?, file = ? WHERE rowid = ?'),
      getMeta: () => db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?'),
      setMeta: () => db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value'),
      ingestAll: () => db.prepare<[], IngestRow>('SELECT file, offset, size, mtime_ms, fingerprint FROM ingest'),
      ingestSet: () => db.prepare(
        `INSERT INTO ingest (file, offset, size, mtime_ms, fingerprint) VALUES (@file, @offset, @size, @mtime_ms, @fingerprint)
         ON CONFLICT(file) DO UPDATE SET offset=excluded.offset, size=excluded.size, mtime_ms=excluded.mtime_ms, fingerprint=excluded.fingerprint`,
      ),
    });
    const dim = Number(this.meta('dim') ?? 0);
    if (dim > 0 && this.hasVecTable()) this.vecDim = dim;
    this.projects = new ProjectFiling(db, this, identity.exportDir, identity.repoOfFolder);
    this.fileStates = new FileStates(db);
    this.files = new FileIndex(db);
    this.terms = new TermDocs(db, this);
  }

  // ---- projects (store/projects.ts) ------------------------------------------------------
  // A memory is filed under its repository's name (project/registry.ts). The record keeps the
  // name it was captured under (`project_raw`) and its repository (`repo`); the name it is
  // filed under here (`project`) follows the registry, the aliases of `memory projects
  // merge`, and for memories from before repositories were recorded, the repository their
  // folder is in on this machine (`repo_here`: NULL until asked after an ingest, '' none).

  readonly projects: ProjectFiling;
  /** Where this machine's checkouts are and the blob ids of their files (store/file-states.ts). */
  readonly fileStates: FileStates;
  /** Each memory's files by repository and path (store/file-index.ts). */
  readonly files: FileIndex;
  /** The keyword index's common terms, counted now and then (store/term-docs.ts). */
  readonly terms: TermDocs;

  /** vec0 cannot update a partition key: the vector is read, deleted and inserted again. */
  movePartition(rowid: number, project: string): void {
    if (this.vecDim === 0) return;
    const r = this.db
      .prepare<[bigint], { embedding: Buffer; machine: string; ts_ms: bigint }>('SELECT embedding, machine, ts_ms FROM memories_vec WHERE memory_rowid = ?')
      .safeIntegers(true)
      .get(BigInt(rowid));
    if (!r) return;
    this.vec().remove.run(BigInt(rowid));
    this.vec().insert.run(BigInt(rowid), r.embedding, project, r.machine, BigInt(r.ts_ms));
  }

  /**
   * The configured model or dim differs from the vectors in the cache: say why. Texts and
   * keyword search are unaffected; only vectors need re-reading.
   */
  vectorMismatch(): string | undefined {
    const model = this.meta('model');
    if (model !== this.identity.model) return `model changed (${model ?? 'none'} → ${this.identity.model})`;
    if (this.identity.dim > 0 && this.vecDim > 0 && this.vecDim !== this.identity.dim) return `dim changed (${this.vecDim} → ${this.identity.dim})`;
    return undefined;
  }

  /** Create tables in an empty database and stamp it with what it was built from. */
  static create(db: DB, identity: StoreIdentity): Store {
    db.exec(BASE_DDL);
    const store = new Store(db, identity);
    store.setMeta('schema_version', String(STORE_VERSION));
    store.setMeta('model', identity.model);
    store.setMeta('export_dir', identity.exportDir);
    store.setMeta('dim', '0');
    if (identity.dim > 0) store.ensureVecTable(identity.dim);
    return store;
  }

  /** Why an existing cache cannot serve this identity, or undefined when it can. */
  static mismatch(db: DB, identity: StoreIdentity): string | undefined {
    const tables = new Set(db.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type IN ('table')").all().map((r) => r.name));
    for (const t of ['meta', 'ingest', 'memories', 'memories_fts']) if (!tables.has(t)) return `table ${t} is missing`;
    const get = (k: string) => db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?').get(k)?.value;
    const version = get('schema_version');
    if (version !== String(STORE_VERSION)) return `cache schema ${version ?? 'unknown'} differs from ${STORE_VERSION}`;
    if (get('export_dir') !== identity.exportDir) return 'export folder changed';
    return undefined;
  }

  meta(key: string): string | undefined {
    return this.stmts.getMeta.get(key)?.value;
  }

  setMeta(key: string, value: string): void {
    this.stmts.setMeta.run(key, value);
  }

  get dim(): number {
    return this.vecDim;
  }

  private hasVecTable(): boolean {
    return this.db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'memories_vec'").get() !== undefined;
  }

  private ensureVecTable(dim: number): void {
    if (this.vecDim > 0) return;
    this.db.exec(vecDdl(dim));
    this.vecDim = dim;
    this.setMeta('dim', String(dim));
  }

  ingestRows(): Map<string, IngestRow> {
    return new Map(this.stmts.ingestAll.all().map((r) => [r.file, r]));
  }

  setIngest(row: IngestRow): void {
    this.stmts.ingestSet.run(row);
  }

  /** One write transaction, taking the write lock up front so busy_timeout applies. */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }

  /** Apply one JSONL entry with last-write-wins; keeps FTS and vec0 in step. */
  apply(entry: ExportEntry, file: string): ApplyOutcome {
    const cur = this.stmts.byId.get(entry.id);
    if (cur) {
      const rel = against(entry, { version_ms: cur.version_ms, machine: cur.machine, deleted: cur.deleted === 1, question: cur.question, answer: cur.answer });
      if (rel === 'same') {
        // The same version read again (a file re-read after monthly-merge, a torn tail, a
        // model change): re-indexing the text would cost ~0.3 ms per memory, so only the
        // parts that can differ are updated.
        if (!isTombstone(entry) && cur.has_vector === 0 && entry.embedding && this.vectorUsable(entry)) {
          this.insertVector(cur.rowid, entry, entry.embedding);
          this.stmts.setVector.run(entry.model ?? null, entry.embedding.length, file, cur.rowid);
          return 'updated';
        }
        this.stmts.setFile.run(file, cur.rowid);
        return 'unchanged';
      }
      if (rel === 'older') return 'older';
      if (cur.deleted === 0) {
        this.keywords.remove(cur);
        if (cur.has_vector) this.deleteVector(cur.rowid);
      }
    }
    const params = this.rowParams(entry, file);
    let rowid: number;
    if (cur) {
      rowid = cur.rowid;
      this.stmts.update.run({ ...params, rowid });
    } else {
      rowid = Number(this.stmts.insert.run({ ...params, rowid: null, ctx: null }).lastInsertRowid);
    }
    this.files.set(rowid, params.repo, recordedPaths(entry), params.ts_ms);
    if (isTombstone(entry)) return 'deleted';
    this.keywords.add({ rowid, session_id: params.session_id, question: params.question, answer: params.answer, ts_ms: params.ts_ms });
    if (params.has_vector && entry.embedding) this.insertVector(rowid, entry, entry.embedding);
    return cur ? 'updated' : 'inserted';
  }

  /**
   * Fold one line into the winners of a fresh load (a full rebuild): the same last-write-wins
   * as apply(), decided before anything is inserted, so a superseded version is never
   * inserted and deleted again.
   */
  foldFresh(winners: Map<string, FreshEntry>, entry: ExportEntry, file: string): void {
    const cur = winners.get(entry.id);
    if (!cur) {
      winners.set(entry.id, { entry, file });
      return;
    }
    const c = cur.entry;
    const live = !isTombstone(c);
    const rel = against(entry, { version_ms: versionTime(c), machine: c.machine, deleted: !live, question: live ? c.question : '', answer: live ? c.answer : '' });
    if (rel === 'same') {
      // The same version read again: keep it, taking a usable vector it lacked (as apply() does).
      if (!isTombstone(entry) && live && !this.usableShape(c) && this.usableShape(entry)) {
        winners.set(entry.id, { entry: { ...c, embedding: entry.embedding as Float32Array, ...(entry.model !== undefined ? { model: entry.model } : {}) }, file });
      } else cur.file = file;
      return;
    }
    if (rel === 'newer') winners.set(entry.id, { entry, file });
  }

  private usableShape(e: ExportEntry): boolean {
    return !isTombstone(e) && e.embedding !== undefined && e.model === this.identity.model && (this.identity.dim === 0 || e.embedding.length === this.identity.dim);
  }

  /**
   * Fill an empty cache with the winners of foldFresh, in bulkOrder (the order they were first
   * read, a session's turns together), each memory indexed once with its neighbours; the
   * keyword analysis runs ahead in a worker thread while the rows and vectors go in.
   */
  loadFresh(winners: Map<string, FreshEntry>, opts: { worker?: boolean } = {}): void {
    const all = [...winners.values()];
    const params = all.map((w) => this.rowParams(w.entry, w.file));
    const liveAt: number[] = [];
    params.forEach((p, i) => {
      if (p.deleted === 0) liveAt.push(i);
    });
    const order = bulkOrder(liveAt.map((i) => params[i] as (typeof params)[number]));
    // Rowids in that order (live memories, then tombstones): neighbours are adjacent rows.
    const at = (k: number) => params[liveAt[(order[k] as (typeof order)[number]).i] as number] as (typeof params)[number];
    const bulk: BulkRow[] = order.map((o, k) => ({ rowid: k + 1, prev: o.prev ? k - 1 : -1, next: o.next ? k + 1 : -1 }));
    const feed = analysisFeed(order.map((_, k) => [at(k).question, at(k).answer]), opts);
    try {
      const insert = this.stmts.insert;
      const side = (k: number) => (k < 0 ? undefined : { rowid: k + 1, version_ms: at(k).version_ms });
      order.forEach((o, k) => {
        const p = at(k);
        const rowid = k + 1;
        insert.run({ ...p, rowid, ctx: p.session_id === null ? '' : neighbourKey(side(o.prev ? k - 1 : -1), side(o.next ? k + 1 : -1)) });
        const e = (all[liveAt[o.i] as number] as FreshEntry).entry;
        if (p.has_vector && !isTombstone(e) && e.embedding) this.insertVector(rowid, e, e.embedding, p.project ?? '');
        this.files.set(rowid, p.repo, recordedPaths(e), p.ts_ms, true);
      });
      let rowid = order.length;
      params.forEach((p) => {
        if (p.deleted === 1) insert.run({ ...p, rowid: ++rowid, ctx: null });
      });
      this.keywords.bulk(bulk, (k) => feed.get(k));
    } finally {
      feed.close();
    }
  }

  /** Index the sessions the applied lines touched (their turns' neighbours); call before the batch commits. */
  flushIndex(): number {
    return this.keywords.flush();
  }

  /** The indexed vector of a memory, if it has one. */
  vectorOf(rowid: number): Float32Array | undefined {
    if (this.vecDim === 0) return undefined;
    const r = this.db.prepare<[bigint], { embedding: Buffer }>('SELECT embedding FROM memories_vec WHERE memory_rowid = ?').get(BigInt(rowid));
    if (!r) return undefined;
    const out = new Float32Array(r.embedding.length / 4);
    new Uint8Array(out.buffer).set(r.embedding);
    return out;
  }

  /** Live memories in rowid order, a page at a time. */
  liveRows(afterRowid: number, limit: number): MemoryRow[] {
    return this.db
      .prepare<[number, number], MemoryRow>('SELECT * FROM memories WHERE deleted = 0 AND rowid > ? ORDER BY rowid LIMIT ?')
      .all(afterRowid, limit);
  }

  /** How many live memories come after this rowid, counting up to `limit`. */
  liveCountAfter(afterRowid: number, limit: number): number {
    return this.db.prepare<[number, number], { n: number }>('SELECT count(*) AS n FROM (SELECT 1 FROM memories WHERE deleted = 0 AND rowid > ? LIMIT ?)').get(afterRowid, limit)?.n ?? 0;
  }

  /** The highest rowid in the cache (0 when empty). */
  lastRowid(): number {
    return this.db.prepare<[], { n: number | null }>('SELECT max(rowid) AS n FROM memories').get()?.n ?? 0;
  }

  /** Every id with the version (ms) that currently wins for it, tombstones included. */
  winningVersions(): Map<string, number> {
    return new Map(
      this.db
        .prepare<[], { id: string; version_ms: number }>('SELECT id, version_ms FROM memories')
        .all()
        .map((r) => [r.id, r.version_ms]),
    );
  }

  /** Ids whose winning version was read from one of these files. */
  idsFromFiles(files: string[]): string[] {
    if (files.length === 0) return [];
    return this.db
      .prepare<[string], { id: string }>('SELECT id FROM memories WHERE file IN (SELECT value FROM json_each(?))')
      .all(JSON.stringify(files))
      .map((r) => r.id);
  }

  /** Drop every vector (the configured model changed); texts and FTS stay. */
  resetVectors(): void {
    this.db.exec('DROP TABLE IF EXISTS memories_vec');
    this.db.exec('UPDATE memories SET has_vector = 0 WHERE has_vector = 1');
    this.vecStmts = undefined;
    this.vecDim = 0;
    this.setMeta('dim', '0');
    this.setMeta('model', this.identity.model);
    if (this.identity.dim > 0) this.ensureVecTable(this.identity.dim);
  }

  deleteIngest(file: string): void {
    this.db.prepare('DELETE FROM ingest WHERE file = ?').run(file);
  }

  private vectorUsable(r: MemoryRecord): boolean {
    if (!r.embedding || r.model !== this.identity.model) return false;
    if (this.vecDim === 0) {
      if (this.identity.dim > 0 && r.embedding.length !== this.identity.dim) {
        this.stats.dimMismatch++;
        return false;
      }
      this.ensureVecTable(r.embedding.length);
    }
    if (r.embedding.length !== this.vecDim) {
      this.stats.dimMismatch++;
      return false;
    }
    return true;
  }

  private rowParams(entry: ExportEntry, file: string) {
    const version_ms = versionTime(entry);
    if (isTombstone(entry)) {
      const ts = entry.timestamp ?? entry.updated_at;
      return {
        id: entry.id, deleted: 1, session_id: null, project: null, project_raw: null, repo: null, repo_here: null, machine: entry.machine, timestamp: ts, ts_ms: orderTime(ts),
        updated_at: entry.updated_at, version_ms, question: '', answer: '', cwd: null, git_branch: null, files: null,
        source: null, model: null, dim: null, has_vector: 0, extra: null, file, prompt_uuid: null,
      };
    }
    const usable = this.vectorUsable(entry);
    // Composed (repoKey): a record a Mac wrote with its folder's name decomposed is of the same repository.
    const repo = typeof entry.extra?.repo === 'string' && entry.extra.repo !== '' ? repoKey(entry.extra.repo) : null;
    // Its folder's repository is asked after the ingest (fileByFolder), never while reading.
    const here = repo || !entry.cwd ? (repo ? null : '') : null;
    return {
      id: entry.id,
      deleted: 0,
      session_id: entry.session_id ?? null,
      project: this.projects.projectOf(entry.project ?? null, repo, here, entry.cwd),
      project_raw: entry.project ?? null,
      repo,
      repo_here: here,
      machine: entry.machine,
      timestamp: entry.timestamp,
      // A machine whose clock ran ahead: in time order as of when it was first read here.
      ts_ms: orderTime(entry.timestamp),
      updated_at: entry.updated_at ?? null,
      version_ms,
      question: entry.question,
      answer: entry.answer,
      cwd: entry.cwd ?? null,
      git_branch: entry.git_branch ?? null,
      files: entry.files ? JSON.stringify(entry.files) : null,
      source: entry.source ?? null,
      model: entry.embedding ? (entry.model ?? null) : null,
      dim: entry.embedding ? entry.embedding.length : null,
      has_vector: usable ? 1 : 0,
      extra: entry.extra ? JSON.stringify(entry.extra) : null,
      file,
      prompt_uuid: typeof entry.extra?.prompt_uuid === 'string' ? entry.extra.prompt_uuid : null,
    };
  }

  private vec(): { insert: Database.Statement; remove: Database.Statement } {
    this.vecStmts ??= {
      insert: this.db.prepare('INSERT INTO memories_vec (memory_rowid, embedding, project, machine, ts_ms) VALUES (?, ?, ?, ?, ?)'),
      remove: this.db.prepare('DELETE FROM memories_vec WHERE memory_rowid = ?'),
    };
    return this.vecStmts;
  }

  private insertVector(rowid: number, r: MemoryRecord, v: Float32Array, knownProject?: string): void {
    // vec0 keys and integer metadata must be BigInt: a JS number binds as REAL and is refused.
    // vec0 has no upsert ("INSERT OR REPLACE" fails on an existing key): callers delete first.
    const project = knownProject ?? (this.stmts.projectOfRow.get(rowid) as { project: string | null } | undefined)?.project ?? '';
    this.vec().insert.run(BigInt(rowid), Buffer.from(v.buffer, v.byteOffset, v.byteLength), project, r.machine, BigInt(orderTime(r.timestamp)));
  }

  private deleteVector(rowid: number): void {
    if (this.vecDim > 0) this.vec().remove.run(BigInt(rowid));
  }

  // ---- queries -------------------------------------------------------------------------

  private filterSql(f: SearchFilters, alias: string): { sql: string; params: Array<string | number> } {
    const parts: string[] = [];
    const params: Array<string | number> = [];
    if (f.project !== undefined) {
      parts.push(`${alias}.project = ?`);
      params.push(f.project);
    }
    if (f.machine !== undefined) {
      parts.push(`${alias}.machine = ?`);
      params.push(f.machine);
    }
    if (f.sinceMs !== undefined) {
      parts.push(`${alias}.ts_ms >= ?`);
      params.push(f.sinceMs);
    }
    if (f.untilMs !== undefined) {
      parts.push(`${alias}.ts_ms < ?`);
      params.push(f.untilMs);
    }
    if (f.source !== undefined) {
      parts.push(f.source === 'claude-code' ? `(${alias}.source = ? OR ${alias}.source IS NULL)` : `${alias}.source = ?`);
      params.push(f.source);
    }
    if (f.notSession !== undefined) {
      parts.push(`(${alias}.session_id IS NULL OR ${alias}.session_id != ?)`);
      params.push(f.notSession);
    }
    if (f.file !== undefined) {
      // A file: its names, each for the time the file held it (changes/renames.ts), else the path
      // alone. A folder: every path under it (a range of the index: '/' + 1 is '0'), and the
      // names what is under it had elsewhere, each for its time.
      const names = f.file.folder ? [{ path: f.file.path, folder: true }, ...(f.file.names ?? [])] : (f.file.names ?? [{ path: f.file.path }]);
      const one = (n: { folder?: boolean }) => (n.folder ? '(path >= ? AND path < ? AND ts_ms >= ? AND ts_ms < ?)' : '(path = ? AND ts_ms >= ? AND ts_ms < ?)');
      parts.push(`${alias}.rowid IN (SELECT memory_rowid FROM memory_files WHERE repo = ? AND (${names.map(one).join(' OR ')}))`);
      const key = (n: { path: string }) => fileKey(n.path);
      params.push(f.file.repo, ...names.flatMap((n: { path: string; afterMs?: number; beforeMs?: number; folder?: boolean }) => [key(n), ...(n.folder ? [`${key(n).slice(0, -1)}0`] : []), n.afterMs ?? 0, n.beforeMs ?? Number.MAX_SAFE_INTEGER]));
    }
    return { sql: parts.map((p) => ` AND ${p}`).join(''), params };
  }

  /** Live memories under the filters. */
  countUnder(f: SearchFilters): number {
    if (onlyNotSession(f)) {
      // Every live memory (one row, liveCounts), less the session's (an index lookup): per-prompt
      // recall asks this on every prompt, and `session_id != ?` read the whole table (~140 ms at 100k).
      return this.liveCounts().records - this.sessionSize(f.notSession as string);
    }
    const { sql, params } = this.filterSql(f, 'm');
    return this.db.prepare<unknown[], { n: number }>(`SELECT count(*) AS n FROM memories m WHERE m.deleted = 0${sql}`).get(...params)?.n ?? 0;
  }

  /** The memories of a session that an FTS5 expression matches (a seek per memory of the session). */
  ftsCountInSession(match: string, session: string): number {
    return this.db
      .prepare<[string, string], { n: number }>('SELECT count(*) AS n FROM memories_fts WHERE memories_fts MATCH ? AND rowid IN (SELECT rowid FROM memories WHERE session_id = ? AND +deleted = 0)')
      .get(match, session)?.n ?? 0;
  }

  /** How many indexed memories an FTS5 expression matches, counting no further than `cap` (a walk of at most that many postings). */
  ftsCountUpTo(match: string, cap: number): number {
    return this.db.prepare<[string, number], { n: number }>('SELECT count(*) AS n FROM (SELECT rowid FROM memories_fts WHERE memories_fts MATCH ? LIMIT ?)').get(match, cap)?.n ?? 0;
  }

  /** Live memories under the filters that an FTS5 expression matches (a term's document frequency). */
  ftsCount(match: string, f: SearchFilters): number {
    if (onlyNotSession(f)) {
      // The index holds live memories only: its count (no join, a doclist walk), less the session's (a seek per row).
      const all = this.db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM memories_fts WHERE memories_fts MATCH ?').get(match)?.n ?? 0;
      return all - this.ftsCountInSession(match, f.notSession as string);
    }
    const { sql, params } = this.filterSql(f, 'm');
    if (sql.length === 0) return this.db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM memories_fts WHERE memories_fts MATCH ?').get(match)?.n ?? 0;
    return (
      this.db
        .prepare<unknown[], { n: number }>(`SELECT count(*) AS n FROM memories_fts f JOIN memories m ON m.rowid = f.rowid WHERE f.memories_fts MATCH ? AND m.deleted = 0${sql}`)
        .get(match, ...params)?.n ?? 0
    );
  }

  /** Live memories under the filters, newest first (browsing without a query). */
  browse(f: SearchFilters, offset: number, limit: number): MemoryRow[] {
    const { sql, params } = this.filterSql(f, 'm');
    return this.db
      .prepare<unknown[], MemoryRow>(`SELECT m.* FROM memories m WHERE m.deleted = 0${sql} ORDER BY m.ts_ms DESC, m.id LIMIT ? OFFSET ?`)
      .all(...params, limit, offset);
  }

  /** How many live memories the filters hold, and their ids (for "forget everything listed"). */
  idsUnder(f: SearchFilters, limit: number): string[] {
    const { sql, params } = this.filterSql(f, 'm');
    return this.db.prepare<unknown[], { id: string }>(`SELECT m.id FROM memories m WHERE m.deleted = 0${sql} ORDER BY m.ts_ms DESC LIMIT ?`).all(...params, limit).map((r) => r.id);
  }

  /** Ids of every keyword match of an FTS5 expression under the filters. */
  ftsIds(match: string, f: SearchFilters, limit: number): string[] {
    const { sql, params } = this.filterSql(f, 'm');
    return this.db
      .prepare<unknown[], { id: string }>(`SELECT m.id FROM memories_fts f JOIN memories m ON m.rowid = f.rowid WHERE f.memories_fts MATCH ?${sql} ORDER BY ${bm25Of(this.columnWeights, 'f.memories_fts')}, f.rowid LIMIT ?`)
      .all(match, ...params, limit)
      .map((r) => r.id);
  }

  /** The turns before and after a memory in its session. */
  neighbours(row: MemoryRow, n: number): { before: MemoryRow[]; after: MemoryRow[] } {
    if (!row.session_id) return { before: [], after: [] };
    const before = this.db
      .prepare<[string, number, number, number, number], MemoryRow>(
        'SELECT * FROM memories WHERE session_id = ? AND +deleted = 0 AND (ts_ms < ? OR (ts_ms = ? AND rowid < ?)) ORDER BY ts_ms DESC, rowid DESC LIMIT ?',
      )
      .all(row.session_id, row.ts_ms, row.ts_ms, row.rowid, n)
      .reverse();
    const after = this.db
      .prepare<[string, number, number, number, number], MemoryRow>(
        'SELECT * FROM memories WHERE session_id = ? AND +deleted = 0 AND (ts_ms > ? OR (ts_ms = ? AND rowid > ?)) ORDER BY ts_ms ASC, rowid ASC LIMIT ?',
      )
      .all(row.session_id, row.ts_ms, row.ts_ms, row.rowid, n);
    return { before, after };
  }

  /** Live memories per machine and month (the viewer's overview). */
  perMachineMonth(): Array<{ machine: string; month: string; n: number }> {
    return this.db
      .prepare<[], { machine: string; month: string; n: number }>("SELECT machine, substr(timestamp, 1, 7) AS month, count(*) AS n FROM memories WHERE deleted = 0 GROUP BY machine, month ORDER BY month DESC, machine")
      .all();
  }

  /** Distinct values for the viewer's filters. */
  facets(): { projects: string[]; machines: string[]; sources: string[] } {
    const col = (c: 'project' | 'machine' | 'source') =>
      this.db.prepare<[], { v: string | null }>(`SELECT DISTINCT ${c} AS v FROM memories WHERE deleted = 0 ORDER BY v`).all().map((r) => r.v ?? (c === 'source' ? 'claude-code' : '-'));
    return { projects: col('project'), machines: col('machine'), sources: [...new Set(col('source'))] };
  }

  /** Other bm25 weights for the columns, for this connection's keyword queries and the table's rank (bench:quality --columns). */
  weighColumns(w: ColumnWeights): void {
    this.db.prepare("INSERT INTO memories_fts (memories_fts, rank) VALUES ('rank', ?)").run(rankFunction(w));
    this.columnWeights = w;
  }

  /**
   * FTS5 search; `match` must come from the safe query builder. Lower score = better
   * (bm25, the question weighing most: COLUMN_WEIGHTS); equal scores, the older row first.
   * Every match is ranked: no recency window, so a memory from long ago competes on
   * relevance alone.
   */
  fts(match: string, f: SearchFilters, limit: number): Array<{ rowid: number; score: number }> {
    const ranked = this.db.prepare<unknown[], { rowid: number; score: number }>(
      `SELECT rowid, ${bm25Of(this.columnWeights)} AS score FROM memories_fts WHERE memories_fts MATCH ? ORDER BY score, rowid LIMIT ?`,
    );
    if (onlyNotSession(f)) {
      // Leaving one session out: rank the whole index (no join: every match would read its
      // memory's row) for as many more as the session holds, then drop the session's.
      const mine = new Set(this.sessionRowids(f.notSession as string));
      return ranked.all(match, limit + mine.size).filter((r) => !mine.has(r.rowid)).slice(0, limit);
    }
    const { sql, params } = this.filterSql(f, 'm');
    if (sql.length === 0) return ranked.all(match, limit);
    return this.db
      .prepare<unknown[], { rowid: number; score: number }>(
        `SELECT f.rowid AS rowid, ${bm25Of(this.columnWeights, 'f.memories_fts')} AS score FROM memories_fts f JOIN memories m ON m.rowid = f.rowid
         WHERE f.memories_fts MATCH ?${sql} ORDER BY score, f.rowid LIMIT ?`,
      )
      .all(match, ...params, limit);
  }

  /** Up to `limit` matches of an FTS5 expression under the filters, in no particular order (no ranking: the first found). */
  ftsUnranked(match: string, f: SearchFilters, limit: number): number[] {
    const { sql, params } = this.filterSql(f, 'm');
    const rows = sql.length === 0
      ? this.db.prepare<unknown[], { rowid: number }>('SELECT rowid FROM memories_fts WHERE memories_fts MATCH ? LIMIT ?').all(match, limit)
      : this.db.prepare<unknown[], { rowid: number }>(`SELECT f.rowid AS rowid FROM memories_fts f JOIN memories m ON m.rowid = f.rowid WHERE f.memories_fts MATCH ?${sql} LIMIT ?`).all(match, ...params, limit);
    return rows.map((r) => r.rowid);
  }

  /** How many live memories a session holds (an index lookup). */
  sessionSize(session: string): number {
    return this.db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM memories WHERE session_id = ? AND +deleted = 0').get(session)?.n ?? 0;
  }

  /** The live memories of a session. */
  sessionRowids(session: string): number[] {
    return this.db.prepare<[string], { rowid: number }>('SELECT rowid FROM memories WHERE session_id = ? AND +deleted = 0').all(session).map((r) => r.rowid);
  }

  /** Cosine KNN with every filter inside vec0's query (partition key + metadata). */
  knn(q: Float32Array, f: SearchFilters, k: number): Array<{ rowid: number; distance: number }> {
    if (this.vecDim === 0 || q.length !== this.vecDim) return [];
    if (f.file !== undefined) return this.distancesUnder(q, f, k);
    const parts: string[] = [];
    const params: Array<string | bigint> = [];
    if (f.project !== undefined) {
      parts.push('project = ?');
      params.push(f.project);
    }
    if (f.machine !== undefined) {
      parts.push('machine = ?');
      params.push(f.machine);
    }
    if (f.sinceMs !== undefined) {
      parts.push('ts_ms >= ?');
      params.push(BigInt(f.sinceMs));
    }
    if (f.untilMs !== undefined) {
      parts.push('ts_ms < ?');
      params.push(BigInt(f.untilMs));
    }
    const where = parts.map((p) => ` AND ${p}`).join('');
    return this.db
      .prepare<unknown[], { rowid: number; distance: number }>(
        `SELECT memory_rowid AS rowid, distance FROM memories_vec WHERE embedding MATCH ? AND k = ?${where} ORDER BY distance`,
      )
      .all(Buffer.from(q.buffer, q.byteOffset, q.byteLength), k, ...params)
      .map((r) => ({ rowid: Number(r.rowid), distance: r.distance }));
  }

  /**
   * The nearest of the memories of a file (vec0 cannot hold a file inside its KNN): each of the
   * file's newest FILE_VECTORS_MAX memories under the filters, its vector read by its rowid.
   */
  private distancesUnder(q: Float32Array, f: SearchFilters, k: number): Array<{ rowid: number; distance: number }> {
    const { sql, params } = this.filterSql(f, 'm');
    const rowids = this.db.prepare<unknown[], { rowid: number }>(`SELECT m.rowid AS rowid FROM memories m WHERE m.deleted = 0${sql} ORDER BY m.ts_ms DESC LIMIT ?`).all(...params, FILE_VECTORS_MAX);
    const one = this.db.prepare<[Buffer, bigint], { distance: number }>('SELECT vec_distance_cosine(embedding, ?) AS distance FROM memories_vec WHERE memory_rowid = ?');
    const vec = Buffer.from(q.buffer, q.byteOffset, q.byteLength);
    const out: Array<{ rowid: number; distance: number }> = [];
    for (const { rowid } of rowids) {
      const r = one.get(vec, BigInt(rowid));
      if (r) out.push({ rowid, distance: r.distance });
    }
    return out.sort((a, b) => a.distance - b.distance).slice(0, k);
  }

  rowsByRowid(rowids: number[]): Map<number, MemoryRow> {
    const out = new Map<number, MemoryRow>();
    if (rowids.length === 0) return out;
    const stmt = this.db.prepare<[string], MemoryRow>('SELECT * FROM memories WHERE rowid IN (SELECT value FROM json_each(?))');
    for (const r of stmt.all(JSON.stringify(rowids))) out.set(r.rowid, r);
    return out;
  }

  /**
   * Which of `rows` each FTS5 query matches, in their own text (question and answer) as the
   * keyword index holds it. The rows are indexed again, the same way, in a small temporary
   * table: asked of the index itself, a query restricted to a few rowids still cost about a
   * millisecond for a term most memories hold (52 of a long Japanese prompt's 94 ms at 100k,
   * bench/RESULTS.md); here it reads the few rows only.
   */
  matchesAmong(rows: Array<Pick<MemoryRow, 'rowid' | 'question' | 'answer'>>, matches: string[]): number[][] {
    this.db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.own_text USING fts5(question, answer, tokenize='${KEYWORD_TOKENIZER}')`);
    try {
      const insert = this.db.prepare('INSERT INTO temp.own_text (rowid, question, answer) VALUES (?, ?, ?)');
      for (const r of rows) insert.run(r.rowid, indexText(r.question), indexText(r.answer));
      const query = this.db.prepare<[string], { rowid: number }>('SELECT rowid FROM temp.own_text WHERE own_text MATCH ?');
      return matches.map((m) => query.all(m).map((r) => r.rowid));
    } finally {
      this.db.exec('DELETE FROM temp.own_text');
    }
  }

  /** The memory captured from a transcript entry (its prompt uuid), live or forgotten. */
  idByPromptUuid(uuid: string): string | undefined {
    return this.db.prepare<[string], { id: string }>('SELECT id FROM memories WHERE prompt_uuid = ? ORDER BY rowid LIMIT 1').get(uuid)?.id;
  }

  /** The memory of a session's turn at that instant with that question, if one was stored under another id. */
  idBySessionTurn(sessionId: string, timestamp: string, question: string): string | undefined {
    return this.db
      .prepare<[string, string, string], { id: string }>('SELECT id FROM memories WHERE session_id = ? AND timestamp = ? AND substr(question, 1, 200) = substr(?, 1, 200) ORDER BY rowid LIMIT 1')
      .get(sessionId, timestamp, question)?.id;
  }

  byId(id: string): MemoryRow | undefined {
    return this.db.prepare<[string], MemoryRow>('SELECT * FROM memories WHERE id = ?').get(id);
  }

  /** Ids starting with a prefix (for `show`/`forget` with a short id). */
  idsWithPrefix(prefix: string, limit = 5): string[] {
    return this.db
      .prepare<[string, string, number], { id: string }>("SELECT id FROM memories WHERE id >= ? AND id < ? || char(1114111) AND deleted = 0 LIMIT ?")
      .all(prefix, prefix, limit)
      .map((r) => r.id);
  }

  recent(project: string | undefined, limit: number): MemoryRow[] {
    if (project === undefined) {
      return this.db.prepare<[number], MemoryRow>('SELECT * FROM memories WHERE deleted = 0 ORDER BY ts_ms DESC LIMIT ?').all(limit);
    }
    return this.db
      .prepare<[string, number], MemoryRow>('SELECT * FROM memories WHERE project = ? AND +deleted = 0 ORDER BY ts_ms DESC LIMIT ?')
      .all(project, limit);
  }

  /** Live memories of a repository captured on a branch, newest first. */
  onBranch(repo: string, branch: string, limit: number): MemoryRow[] {
    return this.db
      .prepare<[string, string, number], MemoryRow>('SELECT * FROM memories WHERE repo = ? AND git_branch = ? AND +deleted = 0 ORDER BY ts_ms DESC LIMIT ?')
      .all(repo, branch, limit);
  }

  /** Live memories captured on `machine` in these repositories (what a team outbox looks at), oldest first. */
  liveOfMachineIn(machine: string, repos: string[]): MemoryRow[] {
    if (repos.length === 0) return [];
    const marks = repos.map(() => '?').join(', ');
    return this.db.prepare<unknown[], MemoryRow>(`SELECT * FROM memories WHERE machine = ? AND repo IN (${marks}) AND +deleted = 0 ORDER BY ts_ms, id`).all(machine, ...repos);
  }

  /** Which of these ids are forgotten (a tombstone wins). */
  forgottenAmong(ids: string[]): Set<string> {
    const out = new Set<string>();
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      const rows = this.db.prepare<unknown[], { id: string }>(`SELECT id FROM memories WHERE deleted = 1 AND id IN (${chunk.map(() => '?').join(', ')})`).all(...chunk);
      for (const r of rows) out.add(r.id);
    }
    return out;
  }

  /** Live memories with no vector for the configured model (need `rebuild --with-model`). */
  pendingRows(limit: number, afterRowid = 0): MemoryRow[] {
    return this.db
      .prepare<[number, number], MemoryRow>('SELECT * FROM memories WHERE deleted = 0 AND has_vector = 0 AND rowid > ? ORDER BY rowid LIMIT ?')
      .all(afterRowid, limit);
  }

  /**
   * Live memories, and those without a vector: what every rebuild reports, a no-op one
   * included, and what recall's idf counts from. One row the triggers keep (schema.ts
   * LIVE_COUNTS_DDL); in a cache from before it not yet migrated, two index counts (4 ms at
   * 100k with the disk cache warm, 0.4 s cold; `counts` takes 45 ms warm).
   */
  liveCounts(): { records: number; pending: number } {
    if (this.hasLiveCounts()) {
      const row = this.db.prepare<[], { records: number; pending: number }>('SELECT records, pending FROM live_counts WHERE id = 1').get();
      if (row) return row;
    }
    return this.countLive();
  }

  private countLive(): { records: number; pending: number } {
    const n = (sql: string) => this.db.prepare<[], { n: number }>(sql).get()?.n ?? 0;
    return {
      records: n('SELECT count(*) AS n FROM memories INDEXED BY memories_stats WHERE deleted = 0'),
      pending: n('SELECT count(*) AS n FROM memories INDEXED BY memories_stats WHERE deleted = 0 AND has_vector = 0'),
    };
  }

  private liveCountsKept: boolean | undefined;

  private hasLiveCounts(): boolean {
    this.liveCountsKept ??= this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'live_counts'").get() !== undefined;
    return this.liveCountsKept;
  }

  /** A cache without the live_counts table (one from before it, or one just built) gains it, counted once. Call inside a write transaction: no write may fall between the count and the triggers. */
  ensureLiveCounts(): void {
    if (this.hasLiveCounts()) return;
    const c = this.countLive();
    this.db.exec(LIVE_COUNTS_DDL);
    this.db.prepare('UPDATE live_counts SET records = ?, pending = ? WHERE id = 1').run(c.records, c.pending);
    this.liveCountsKept = true;
  }

  counts(): { records: number; pending: number; tombstones: number; machines: string[]; projects: number; oldest?: string; newest?: string } {
    // Every query here is answered from an index (memories_stats, memories_ts): `status` must
    // not read 100k rows of text. (A rebuild reports liveCounts, one row.)
    const c = this.db
      .prepare<[], { records: number | null; pending: number | null; tombstones: number | null; projects: number }>(
        `SELECT SUM(deleted = 0) AS records, SUM(deleted = 0 AND has_vector = 0) AS pending, SUM(deleted = 1) AS tombstones,
           COUNT(DISTINCT CASE WHEN deleted = 0 THEN project END) AS projects
         FROM memories INDEXED BY memories_stats`,
      )
      .get();
    const machines = this.db
      .prepare<[], { machine: string }>('SELECT DISTINCT machine FROM memories INDEXED BY memories_stats WHERE deleted = 0 ORDER BY machine')
      .all()
      .map((r) => r.machine);
    const edge = (dir: 'ASC' | 'DESC') =>
      this.db.prepare<[], { timestamp: string }>(`SELECT timestamp FROM memories WHERE deleted = 0 ORDER BY deleted, ts_ms ${dir} LIMIT 1`).get()?.timestamp;
    const oldest = edge('ASC');
    const newest = edge('DESC');
    return {
      records: c?.records ?? 0,
      pending: c?.pending ?? 0,
      tombstones: c?.tombstones ?? 0,
      machines,
      projects: c?.projects ?? 0,
      ...(oldest ? { oldest } : {}),
      ...(newest ? { newest } : {}),
    };
  }

  close(): void {
    this.db.close();
  }
}

/** The memories of one file whose vectors a search reads (newest first): a file's history, not a corpus. */
const FILE_VECTORS_MAX = 2000;

/** Rebuild the JSONL record of a cached row (for re-embedding and `show --json`). */
/** Filters that only leave a session out. */
function onlyNotSession(f: SearchFilters): boolean {
  return f.notSession !== undefined && Object.entries(f).every(([k, v]) => k === 'notSession' || v === undefined);
}

export function rowToRecord(row: MemoryRow): MemoryRecord {
  const r: MemoryRecord = { v: 1, id: row.id, machine: row.machine, timestamp: row.timestamp, question: row.question, answer: row.answer };
  if (row.session_id !== null) r.session_id = row.session_id;
  if (row.project_raw !== null) r.project = row.project_raw;
  if (row.updated_at !== null) r.updated_at = row.updated_at;
  if (row.cwd !== null) r.cwd = row.cwd;
  if (row.git_branch !== null) r.git_branch = row.git_branch;
  if (row.files !== null) r.files = JSON.parse(row.files) as string[];
  if (row.source !== null) r.source = row.source;
  if (row.model !== null) r.model = row.model;
  if (row.extra !== null) r.extra = JSON.parse(row.extra) as Record<string, unknown>;
  return r;
}
