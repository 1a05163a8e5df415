/**
 * The files each memory records, by repository and path inside it (`memory_files`): what the
 * file-recall hook asks when the agent touches a file — the memories of that file in this
 * repository, whatever machine or checkout folder they came from. Kept in step with the
 * memories by the store's apply and its fresh load.
 */
import type { DB } from './database.js';
import { preparedOnUse } from './prepared.js';
import type { ExportEntry } from '../types.js';

/**
 * A path as the index keys it: Unicode's composed form (NFC). macOS may name a file in the
 * decomposed form (`データ.ts` as `テ` + `゛`: files made in Finder), which Linux, Windows and
 * git's index (core.precomposeUnicode) spell composed: one file, one key, on every machine.
 */
export function fileKey(path: string): string {
  return path.normalize('NFC');
}

/** A path inside a repository: relative, forward slashes, no `..`; its key (fileKey). */
function insideRepository(p: string): string | undefined {
  const s = p.replace(/\\/g, '/').replace(/^\.\//, '');
  if (s === '' || s.startsWith('/') || /^[A-Za-z]:\//.test(s) || s.startsWith('~') || s.split('/').includes('..')) return undefined;
  return fileKey(s);
}

/**
 * The repository-relative paths a record holds: `repo_files` (every file the turn touched in its
 * checkout), `file_blobs` paths (those whose state is known), and relative `files` (a team's
 * records carry them so).
 */
export function recordedPaths(e: ExportEntry): string[] {
  if ('deleted' in e && e.deleted === true) return [];
  const out = new Set<string>();
  const extra = (e as { extra?: Record<string, unknown> }).extra;
  const blobs = extra?.file_blobs;
  if (Array.isArray(blobs)) {
    for (const b of blobs) {
      const p = (b as { path?: unknown } | null)?.path;
      const rel = typeof p === 'string' ? insideRepository(p) : undefined;
      if (rel) out.add(rel);
    }
  }
  if (Array.isArray(extra?.repo_files)) {
    for (const p of extra.repo_files as unknown[]) {
      const rel = typeof p === 'string' ? insideRepository(p) : undefined;
      if (rel) out.add(rel);
    }
  }
  const files = (e as { files?: unknown }).files;
  if (Array.isArray(files)) {
    for (const f of files) {
      const rel = typeof f === 'string' ? insideRepository(f) : undefined;
      if (rel) out.add(rel);
    }
  }
  return [...out];
}

export class FileIndex {
  private readonly stmts;

  constructor(db: DB) {
    this.stmts = preparedOnUse({
      add: () => db.prepare('INSERT OR IGNORE INTO memory_files (repo, path, ts_ms, memory_rowid) VALUES (?, ?, ?, ?)'),
      clear: () => db.prepare('DELETE FROM memory_files WHERE memory_rowid = ?'),
      // A tombstone has no files (recordedPaths), so every entry is a live memory's.
      oldest: () => db.prepare<[string], { ts: number | null }>('SELECT MIN(ts_ms) AS ts FROM memory_files WHERE repo = ?'),
      any: () => db.prepare<[string], { one: number }>('SELECT 1 AS one FROM memory_files WHERE repo = ? LIMIT 1'),
      ofRow: () => db.prepare<[number], { path: string }>('SELECT DISTINCT path FROM memory_files WHERE memory_rowid = ? ORDER BY path'),
      byFile: () =>
        db.prepare<[string, string, number, number, number], { rowid: number }>('SELECT memory_rowid AS rowid FROM memory_files WHERE repo = ? AND path = ? AND ts_ms >= ? AND ts_ms < ? ORDER BY ts_ms DESC, memory_rowid DESC LIMIT ?'),
    });
  }

  /** A memory's files now (none for a tombstone or a memory with no repository), at its time. */
  set(rowid: number, repo: string | null, paths: string[], tsMs: number, fresh = false): void {
    if (!fresh) this.stmts.clear.run(rowid);
    if (!repo) return;
    for (const p of paths) this.stmts.add.run(repo, p, tsMs, rowid);
  }

  /** The time of the repository's oldest memory that recorded a file of it, or undefined when none did. */
  oldest(repo: string): number | undefined {
    return this.stmts.oldest.get(repo)?.ts ?? undefined;
  }

  /** Whether any memory recorded a file of the repository. */
  has(repo: string): boolean {
    return this.stmts.any.get(repo) !== undefined;
  }

  /** The paths inside its repository that a memory recorded (what recall by file finds it by). */
  pathsOf(rowid: number): string[] {
    return this.stmts.ofRow.all(rowid).map((r) => r.path);
  }

  /** The newest `limit` live memories that recorded this file of this repository (from `afterMs` until `beforeMs`: the time a file held that name), newest first. */
  rowidsOf(repo: string, path: string, limit: number, window: { afterMs?: number; beforeMs?: number } = {}): number[] {
    return this.stmts.byFile.all(repo, fileKey(path), window.afterMs ?? 0, window.beforeMs ?? Number.MAX_SAFE_INTEGER, limit).map((r) => r.rowid);
  }
}
