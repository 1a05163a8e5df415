/**
 * DDL of the disposable cache. Bump STORE_VERSION whenever a table changes: an older
 * cache is then rebuilt from JSONL instead of being migrated.
 */
export const STORE_VERSION = 11; // 11: repository keys composed (project/remote-url.ts repoKey): a folder a Mac names decomposed is one repository; 10: memories of a folder outside git named in letters beyond ASCII filed under its name now (project/label.ts), not `machine`; memory_files keyed in Unicode's composed form (file-index.ts fileKey); 9: memory_files keyed by time too (a file's newest memories from the index alone); 8: memory_files (a memory's files by repository and path, for file recall); 2: word index (porter unicode61 + CJK bigrams + identifier parts) instead of trigram; 3: projects by repository; 4: the neighbour column; 5: repo_here asked after an ingest (NULL: not yet); 6: common terms counted (term_docs), a repository's memories by machine; 7: the ascii tokenizer, non-ASCII text folded in analyze.ts

/** bm25 weights of the keyword index's columns, chosen on the development set: bench/QUALITY.md. */
export interface ColumnWeights {
  question: number;
  answer: number;
  /** The neighbouring turns of the same session. */
  context: number;
}
export const COLUMN_WEIGHTS: ColumnWeights = { question: 2, answer: 0.75, context: 0.3 };

/**
 * The keyword index's tokenizer: FTS5's `ascii` with English stemming. It cuts and folds ASCII
 * only; analyze.ts foldText does the rest, for index and query alike (7: before, unicode61 did,
 * at a third of the index's writing time).
 */
export const KEYWORD_TOKENIZER = 'porter ascii';

function weights(w: ColumnWeights): string {
  for (const v of Object.values(w)) if (!Number.isFinite(v) || v < 0) throw new Error(`invalid column weight ${v}`);
  return `${w.question}, ${w.answer}, ${w.context}`;
}

/** The table's rank function (its `rank` column). */
export function rankFunction(w: ColumnWeights): string {
  return `bm25(${weights(w)})`;
}

/**
 * The same bm25 as an expression to order by (`table`: the keyword index's column, `f.memories_fts` under an alias).
 * Queries order by it rather than by the table's `rank`: at 100k memories FTS5 took about
 * 1.6× as long to sort a match by `rank`, and 2.5× inside a join (bench/RESULTS.md).
 */
export function bm25Of(w: ColumnWeights, table = 'memories_fts'): string {
  return `bm25(${table}, ${weights(w)})`;
}

/** An FTS5 expression restricted to the memory's own text (not its neighbours). */
export function ownText(match: string): string {
  return `{question answer} : (${match})`;
}

/**
 * Live memories and those without a vector, kept by triggers on every write: a no-op rebuild
 * and each prompt's recall read one row instead of counting 100k (which, with the disk cache
 * cold, took 0.4 s: bench/RESULTS.md). Not part of BASE_DDL: every cache gains it through
 * Store.ensureLiveCounts, counted once — a cache from before it in place, a new one once its
 * memories are in. A trigger makes each insert keep a statement journal (a temporary file:
 * 16 KB of writing per page an insert touches), which a full rebuild's 100k inserts need not pay.
 */
export const LIVE_COUNTS_DDL = `
CREATE TABLE IF NOT EXISTS live_counts (id INTEGER PRIMARY KEY CHECK (id = 1), records INTEGER NOT NULL, pending INTEGER NOT NULL);
INSERT OR IGNORE INTO live_counts (id, records, pending) VALUES (1, 0, 0);
CREATE TRIGGER IF NOT EXISTS live_counts_insert AFTER INSERT ON memories BEGIN
  UPDATE live_counts SET records = records + (NEW.deleted = 0), pending = pending + (NEW.deleted = 0 AND NEW.has_vector = 0) WHERE id = 1;
END;
CREATE TRIGGER IF NOT EXISTS live_counts_delete AFTER DELETE ON memories BEGIN
  UPDATE live_counts SET records = records - (OLD.deleted = 0), pending = pending - (OLD.deleted = 0 AND OLD.has_vector = 0) WHERE id = 1;
END;
CREATE TRIGGER IF NOT EXISTS live_counts_update AFTER UPDATE OF deleted, has_vector ON memories BEGIN
  UPDATE live_counts SET
    records = records - (OLD.deleted = 0) + (NEW.deleted = 0),
    pending = pending - (OLD.deleted = 0 AND OLD.has_vector = 0) + (NEW.deleted = 0 AND NEW.has_vector = 0)
  WHERE id = 1;
END;
`;

export const BASE_DDL = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS ingest (
  file TEXT PRIMARY KEY,       -- path relative to the export folder
  offset INTEGER NOT NULL,     -- bytes consumed (just after the last complete line)
  size INTEGER NOT NULL,
  mtime_ms REAL NOT NULL,
  fingerprint TEXT NOT NULL    -- hash of every byte before the offset
);
CREATE TABLE IF NOT EXISTS memories (
  rowid INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  deleted INTEGER NOT NULL DEFAULT 0,
  session_id TEXT,
  project TEXT,                -- the project it is filed under here: its repository's name, an alias applied
  project_raw TEXT,            -- the record's own "project"
  repo TEXT,                   -- the record's "repo" (project/repository.ts key)
  repo_here TEXT,              -- no "repo": the repository its cwd is in on this machine ('' none, NULL not asked yet)
  machine TEXT NOT NULL,
  timestamp TEXT NOT NULL,
  ts_ms INTEGER NOT NULL,
  updated_at TEXT,
  version_ms INTEGER NOT NULL,
  question TEXT NOT NULL,
  answer TEXT NOT NULL,
  cwd TEXT,
  git_branch TEXT,
  files TEXT,                  -- JSON array
  source TEXT,
  model TEXT,                  -- model of the stored embedding (NULL: pending)
  dim INTEGER,
  has_vector INTEGER NOT NULL DEFAULT 0, -- 1 when the vector is in memories_vec
  extra TEXT,                  -- unknown JSONL fields, JSON
  file TEXT,                   -- export file of the winning version
  prompt_uuid TEXT,            -- extra.prompt_uuid: the transcript entry the memory came from
  ctx TEXT                     -- in the keyword index with these neighbours (index.ts neighbourKey); NULL: not indexed yet
);
CREATE INDEX IF NOT EXISTS memories_session ON memories (session_id, ts_ms) WHERE session_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS memories_prompt ON memories (prompt_uuid);
CREATE INDEX IF NOT EXISTS memories_ts ON memories (deleted, ts_ms);
-- Covering index for status/rebuild counts: no need to read 100k rows of text.
CREATE INDEX IF NOT EXISTS memories_stats ON memories (deleted, has_vector, machine, project);
CREATE INDEX IF NOT EXISTS memories_file ON memories (file);
CREATE INDEX IF NOT EXISTS memories_project_ts ON memories (project, ts_ms);
-- A repository's memories by machine, newest first: where this machine checked it out (file-states.ts).
CREATE INDEX IF NOT EXISTS memories_repo ON memories (repo, machine, ts_ms);
-- Memories whose folder's repository is not asked yet (store.ts fileByFolder): few, and only just read.
CREATE INDEX IF NOT EXISTS memories_unfiled ON memories (cwd) WHERE repo IS NULL AND repo_here IS NULL;
-- The files a memory recorded, by repository and path inside it, and its time (store/file-index.ts):
-- file recall reads a file's newest memories from this key alone, never the memories' rows.
CREATE TABLE IF NOT EXISTS memory_files (repo TEXT NOT NULL, path TEXT NOT NULL, ts_ms INTEGER NOT NULL, memory_rowid INTEGER NOT NULL, PRIMARY KEY (repo, path, ts_ms, memory_rowid)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS memory_files_row ON memory_files (memory_rowid);
-- Where a repository is checked out on this machine (seen in sessions), newest first.
CREATE TABLE IF NOT EXISTS checkouts (repo TEXT NOT NULL, root TEXT NOT NULL, seen_ms INTEGER NOT NULL, PRIMARY KEY (repo, root));
-- Terms of the keyword index held by many memories, counted now and then (store/term-docs.ts).
CREATE TABLE IF NOT EXISTS term_docs (term TEXT PRIMARY KEY, docs INTEGER NOT NULL) WITHOUT ROWID;
-- Blob ids of files already hashed, by path: an unchanged file (same size, mtime, inode) is not read again.
CREATE TABLE IF NOT EXISTS file_hashes (path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime_ms REAL NOT NULL, ino INTEGER NOT NULL, blob TEXT NOT NULL);
-- The keyword index holds the analysed text (store/analyze.ts), not the text itself:
-- contentless, with deletes by rowid. Columns: the memory's question and answer, and the
-- beginning of the neighbouring turns of its session (context, a low weight).
-- Weights: COLUMN_WEIGHTS above, the table's rank function.
CREATE VIRTUAL TABLE IF NOT EXISTS memories_fts USING fts5(
  question, answer, context, content='', contentless_delete=1, tokenize='${KEYWORD_TOKENIZER}'
);
INSERT INTO memories_fts (memories_fts, rank) VALUES ('rank', '${rankFunction(COLUMN_WEIGHTS)}');
`;

/**
 * vec0 with the project as partition key (a project-scoped KNN reads only that shard:
 * ~14 ms instead of ~62 ms over 100k 384-d vectors here) and machine/time as metadata
 * columns, so every filter is applied inside the KNN, not after it. chunk_size is lowered
 * from 1024 because every partition allocates at least one whole chunk.
 */
export function vecDdl(dim: number): string {
  if (!Number.isInteger(dim) || dim <= 0 || dim > 8192) throw new Error(`invalid vector dim ${dim}`);
  return `CREATE VIRTUAL TABLE IF NOT EXISTS memories_vec USING vec0(
    memory_rowid INTEGER PRIMARY KEY,
    embedding float[${dim}] distance_metric=cosine,
    project TEXT PARTITION KEY,
    machine TEXT,
    ts_ms INTEGER,
    chunk_size=256
  )`;
}
