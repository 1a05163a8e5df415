/**
 * What the cache keeps for "files changed since this memory" (changes/staleness.ts): where
 * this machine has seen each repository checked out, and the blob ids of files already hashed.
 */
import type Database from 'better-sqlite3';
import type { DB } from './database.js';

export class FileStates {
  /** Statements of the per-hit paths, prepared once per connection. */
  private readonly prepared = new Map<string, Database.Statement>();

  constructor(private readonly db: DB) {}

  private stmt(sql: string): Database.Statement {
    let st = this.prepared.get(sql);
    if (!st) {
      st = this.db.prepare(sql);
      this.prepared.set(sql, st);
    }
    return st;
  }

  /** A session was seen in this checkout of a repository (its top folder). */
  noteCheckout(repo: string, root: string, nowMs: number): void {
    this.db
      .prepare('INSERT INTO checkouts (repo, root, seen_ms) VALUES (?, ?, ?) ON CONFLICT(repo, root) DO UPDATE SET seen_ms = excluded.seen_ms')
      .run(repo, root, nowMs);
  }

  /**
   * Folders where a repository was seen on this machine, newest first: sessions that started
   * or were captured here, and the folders of this machine's own memories of it (what a
   * rebuilt cache still knows). Another machine's folders are never taken for this one's.
   */
  checkoutCandidates(repo: string, machine: string | undefined): string[] {
    const roots = (this.stmt('SELECT root FROM checkouts WHERE repo = ? ORDER BY seen_ms DESC LIMIT 8').all(repo) as Array<{ root: string }>).map((r) => r.root);
    const cwds =
      machine === undefined
        ? []
        : (
            this.stmt('SELECT DISTINCT cwd FROM (SELECT cwd FROM memories WHERE repo = ? AND machine = ? AND cwd IS NOT NULL ORDER BY ts_ms DESC LIMIT 200) LIMIT 8').all(repo, machine) as Array<{ cwd: string }>
          ).map((r) => r.cwd);
    return [...new Set([...roots, ...cwds])];
  }

  /** A file's blob id hashed earlier, if its size, mtime and inode are still the same. */
  cachedBlob(path: string, size: number, mtimeMs: number, ino: number): string | undefined {
    return (this.stmt('SELECT blob FROM file_hashes WHERE path = ? AND size = ? AND mtime_ms = ? AND ino = ?').get(path, size, mtimeMs, ino) as { blob: string } | undefined)?.blob;
  }

  /**
   * The same, only if the cache takes a write at once: a hook never waits on another process's
   * write (a rebuild, a capture); SQLITE_BUSY then, for the caller to pass over.
   */
  rememberBlobIfFree(path: string, size: number, mtimeMs: number, ino: number, blob: string): void {
    const waits = Number(this.db.pragma('busy_timeout', { simple: true }));
    this.db.pragma('busy_timeout = 0');
    try {
      this.rememberBlob(path, size, mtimeMs, ino, blob);
    } finally {
      this.db.pragma(`busy_timeout = ${waits}`);
    }
  }

  rememberBlob(path: string, size: number, mtimeMs: number, ino: number, blob: string): void {
    this.stmt('INSERT INTO file_hashes (path, size, mtime_ms, ino, blob) VALUES (?, ?, ?, ?, ?) ON CONFLICT(path) DO UPDATE SET size = excluded.size, mtime_ms = excluded.mtime_ms, ino = excluded.ino, blob = excluded.blob').run(
      path,
      size,
      mtimeMs,
      ino,
      blob,
    );
  }
}
