/**
 * Bring the SQLite cache up to date with the JSONL export — incrementally when it can,
 * from scratch when it must (schema/model change, a file that shrank or was rewritten,
 * a damaged database). Never loads the embedding model.
 */
import { closeSync, existsSync, openSync, readdirSync, readSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { ensureCacheDir } from '../config/paths.js';
import { listExportFiles, type ExportFile } from '../export/files.js';
import { acquireLock, acquireLockAsync, leftByDeadProcess, type Release } from '../export/lock.js';
import { readEntries, type Skip } from '../export/read.js';
import { errorMessage, UserError } from '../errors.js';
import type { ExportEntry } from '../types.js';
import { HOOK_BUSY_TIMEOUT_MS, Store, isSqliteError, openDatabase, type FreshEntry, type IngestRow, type StoreIdentity } from './store.js';
import { sha1 } from '../later.js';

export interface CacheOptions extends StoreIdentity {
  dbPath: string;
  /** Force a rebuild from scratch. */
  full?: boolean;
  /** Diagnostics (stderr/log). */
  warn?: (message: string) => void;
  /** Called after each file with bytes done/total (for a progress bar). */
  progress?: (done: number, total: number) => void;
  /** How long to wait for another process updating the cache (ms). */
  lockTimeoutMs?: number;
  /** The memory files of the folder (default: a memory home's layout, export/files.ts; a team's: team/files.ts). */
  listFiles?: (exportDir: string) => ExportFile[];
  /**
   * Each entry read, with its file: returned as kept (a team's renames to `<author>/<id>`), or
   * undefined — set aside (a line not where its author may write), counted in `set_aside`.
   */
  admit?: (entry: ExportEntry, file: ExportFile) => ExportEntry | undefined;
  /**
   * More than this many bytes to read (new files, appended lines, files to read again): the
   * cache as it is, `deferred` — a background run catches up (a hook never ingests a team's
   * project in its own time). With no cache yet, CacheDeferred is thrown.
   */
  maxBytes?: number;
}

/** The cache would have to read more than `maxBytes` and does not exist yet. */
export class CacheDeferred extends Error {}

export interface RebuildResult {
  full: boolean;
  /** Why a full rebuild happened. */
  reason?: string;
  /** Live memories after last-write-wins and tombstones. */
  records: number;
  pending: number;
  files: number;
  files_read: number;
  lines_read: number;
  bytes_read: number;
  skipped_lines: number;
  /** The first few skipped lines, for the user to look at. */
  skipped: Skip[];
  /** Every skipped line counted by why. */
  skipped_by_reason: Partial<Record<Skip['reason'], number>>;
  repaired_utf8_lines: number;
  dim_mismatch: number;
  /** More to read than `maxBytes`: served as it was, for a background run to catch up. */
  deferred?: boolean;
  /** Lines `admit` set aside in this run (a team's: not where their author may write). */
  set_aside?: number;
  /** Another process held the cache: served as it was. */
  stale?: boolean;
  /** Why the cache could not be written (a full disk): served as it was. */
  unwritable?: string;
  ms: number;
}

/**
 * Hash of every byte before `offset`. A same-size rewrite anywhere in the file (a rebase
 * that replaced a line in the middle, an editor) changes it; hashing runs at ~1 GB/s, so
 * even a large month file costs milliseconds, and an unchanged file (same size and mtime)
 * is never hashed at all.
 */
export function fingerprint(path: string, offset: number): string {
  const h = sha1();
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(Math.min(1 << 20, Math.max(offset, 1)));
    let pos = 0;
    while (pos < offset) {
      const n = readSync(fd, buf, 0, Math.min(buf.length, offset - pos), pos);
      if (n <= 0) break;
      h.update(buf.subarray(0, n));
      pos += n;
    }
    h.update(`|${offset}`);
  } finally {
    closeSync(fd);
  }
  return h.digest('hex');
}

interface Plan {
  /** Files to read from an offset (new files from 0, grown files from where we stopped). */
  work: Array<{ file: ExportFile; from: number }>;
  /** Files whose bytes changed under us (monthly-merge rewrote an archive): read again whole. */
  reread: ExportFile[];
  /** Files gone since last time (folded into the archive by monthly-merge). */
  removed: string[];
  /** Same bytes, new mtime (git checkout, touch): only the bookkeeping changes. */
  touched: Array<{ file: ExportFile; row: IngestRow }>;
}

function plan(store: Store, files: ExportFile[]): Plan {
  const rows = store.ingestRows();
  const p: Plan = { work: [], reread: [], removed: [], touched: [] };
  const present = new Set(files.map((f) => f.rel));
  for (const rel of rows.keys()) if (!present.has(rel)) p.removed.push(rel);
  for (const file of files) {
    const row = rows.get(file.rel);
    if (!row) p.work.push({ file, from: 0 });
    else if (file.size === row.size && file.mtimeMs === row.mtime_ms) continue;
    else if (file.size < row.offset || fingerprint(file.path, row.offset) !== row.fingerprint) p.reread.push(file);
    else if (file.size === row.size) p.touched.push({ file, row });
    else p.work.push({ file, from: row.offset });
  }
  return p;
}

/** Bytes a plan reads. */
function planBytes(p: Plan): number {
  return p.work.reduce((n, w) => n + (w.file.size - w.from), 0) + p.reread.reduce((n, f) => n + f.size, 0);
}

function resetCounters(res: RebuildResult): void {
  Object.assign(res, { files_read: 0, lines_read: 0, bytes_read: 0, skipped_lines: 0, skipped: [], skipped_by_reason: {}, repaired_utf8_lines: 0, dim_mismatch: 0 });
}

function ingestFiles(store: Store, work: Plan['work'], res: RebuildResult, opts: CacheOptions, seen?: Set<string>, fresh?: Map<string, FreshEntry>): void {
  const total = work.reduce((s, w) => s + (w.file.size - w.from), 0);
  let done = 0;
  for (const { file, from } of work) {
    let r;
    try {
      const admit = opts.admit;
      const keep = (e: ExportEntry): ExportEntry | undefined => {
        if (!admit) return e;
        const a = admit(e, file);
        if (!a) res.set_aside = (res.set_aside ?? 0) + 1;
        return a;
      };
      r = readEntries(file.path, {
        fromOffset: from,
        onEntry: fresh
          ? (raw) => {
              const e = keep(raw);
              if (e) store.foldFresh(fresh, e, file.rel);
            }
          : (raw) => {
              const e = keep(raw);
              if (!e) return;
              store.apply(e, file.rel);
              seen?.add(e.id);
            },
      });
    } catch (err) {
      if (isSqliteError(err)) throw err; // the cache's trouble, not the file's
      // An unreadable file costs that file only; the next run tries again.
      opts.warn?.(`cannot read ${file.path}: ${errorMessage(err)}`);
      continue;
    }
    res.files_read++;
    res.lines_read += r.lines;
    res.bytes_read += r.size - from;
    res.skipped_lines += r.skipped.length;
    res.repaired_utf8_lines += r.repairedUtf8;
    for (const s of r.skipped) {
      if (res.skipped.length < 20) res.skipped.push(s);
      res.skipped_by_reason[s.reason] = (res.skipped_by_reason[s.reason] ?? 0) + 1;
    }
    store.setIngest({ file: file.rel, offset: r.endOffset, size: r.size, mtime_ms: file.mtimeMs, fingerprint: fingerprint(file.path, r.endOffset) });
    done += file.size - from;
    opts.progress?.(done, total);
  }
  if (fresh) store.loadFresh(fresh);
  else store.flushIndex();
}

/**
 * Apply what changed since last time. Returns why a rebuild from scratch is needed
 * instead (a memory whose winning line vanished and was not read again elsewhere: only a
 * full rebuild can tell what, if anything, should take its place), or undefined.
 */
function ingestIncrementally(s: Store, files: ExportFile[], p: Plan, modelChange: string | undefined, res: RebuildResult, opts: CacheOptions): string | undefined {
  if (modelChange) {
    // New model: keep every text and the FTS index, re-read only for vectors.
    s.resetVectors();
    res.reason = `${modelChange}: vectors re-read`;
    p.work = files.map((file) => ({ file, from: 0 }));
    p.reread = [];
    p.touched = [];
  }
  const suspects = s.idsFromFiles([...p.removed, ...p.reread.map((f) => f.rel)]);
  for (const rel of p.removed) s.deleteIngest(rel);
  const seen = new Set<string>();
  ingestFiles(s, [...p.reread.map((file) => ({ file, from: 0 })), ...p.work], res, opts, seen);
  for (const { file, row } of p.touched) s.setIngest({ ...row, mtime_ms: file.mtimeMs });
  const orphans = suspects.filter((id) => !seen.has(id));
  return orphans.length > 0 ? `${orphans.length} memories lost their source line (${p.removed[0] ?? p.reread[0]?.rel ?? ''})` : undefined;
}

function removeDbFiles(path: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${path}${suffix}`, { force: true });
}

/**
 * A build's file whose process is gone (killed, its machine switched off): as large as the
 * cache itself, some 900 MB at 100k memories, and nothing else would ever remove it. Called
 * under the cache lock; a live process's file is left alone (its lock was taken over).
 */
function removeStaleBuilds(dbPath: string): void {
  const prefix = `${basename(dbPath)}.building-`;
  let names: string[];
  try {
    names = readdirSync(dirname(dbPath));
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(/^(\d+)(?:-journal|-wal|-shm)?$/.exec(name.startsWith(prefix) ? name.slice(prefix.length) : '')?.[1] ?? 0);
    if (!leftByDeadProcess(pid)) continue;
    try {
      removeDbFiles(join(dirname(dbPath), `${prefix}${pid}`));
    } catch {
      /* not ours to remove after all (permissions): it costs disk space, not memories */
    }
  }
}

function buildFromScratch(opts: CacheOptions, files: ExportFile[], res: RebuildResult): void {
  const tmp = `${opts.dbPath}.building-${process.pid}`;
  removeDbFiles(tmp);
  const db = openDatabase(tmp, { fast: true });
  try {
    const store = Store.create(db, opts);
    // Last-write-wins is resolved while reading; then every winner is inserted once.
    store.transaction(() => {
      ingestFiles(store, files.map((file) => ({ file, from: 0 })), res, opts, undefined, new Map());
      // Counted once the memories are in; kept by triggers from then on (schema.ts LIVE_COUNTS_DDL).
      store.ensureLiveCounts();
    });
    res.dim_mismatch += store.stats.dimMismatch;
    db.close();
  } catch (err) {
    if (db.open) db.close();
    removeDbFiles(tmp);
    throw err;
  }
  // Readers keep their old snapshot; a stale WAL must not be replayed onto the new file.
  rmSync(`${opts.dbPath}-wal`, { force: true });
  rmSync(`${opts.dbPath}-shm`, { force: true });
  renameSync(tmp, opts.dbPath);
}

/**
 * The cache as it is, not caught up with the export (per-prompt recall must not wait): undefined
 * when absent or of another schema. `vectors: false`: for a reader that never touches the vectors
 * and writes nothing (the extension is not loaded). A hook's read: it waits at most
 * HOOK_BUSY_TIMEOUT_MS for another process's lock, then gets undefined; `told` hears why, when
 * the cache could not be read (held, damaged).
 */
export function openCacheAsIs(opts: CacheOptions, read: { vectors?: boolean } = {}, told?: (why: string) => void): Store | undefined {
  const { store, reason, unreadable } = openExisting(opts, { ...read, busyTimeoutMs: HOOK_BUSY_TIMEOUT_MS });
  if (unreadable && reason) told?.(reason);
  return store;
}

function openExisting(opts: CacheOptions, read: { vectors?: boolean; busyTimeoutMs?: number } = {}): { store?: Store; reason?: string; unreadable?: boolean } {
  if (!existsSync(opts.dbPath)) return { reason: 'no cache yet' };
  let db;
  try {
    db = openDatabase(opts.dbPath, read);
    const why = Store.mismatch(db, opts);
    if (why) {
      db.close();
      return { reason: why };
    }
    return { store: new Store(db, opts) };
  } catch (err) {
    if (db?.open) db.close();
    return { reason: `cache unreadable (${errorMessage(err)})`, unreadable: true };
  }
}

/**
 * Update the cache and return it open. When another process holds the cache lock longer
 * than `lockTimeoutMs`, serve the cache as it is (marked stale) rather than fail. Waits for
 * the lock by blocking: for a process that serves nothing meanwhile (a command, a hook).
 */
export function openCache(opts: CacheOptions): { store: Store; result: RebuildResult } {
  const started = performance.now();
  ensureCacheDir(dirname(opts.dbPath));
  let release: Release;
  try {
    release = acquireLock(cacheLockPath(opts), cacheLockOptions(opts));
  } catch (err) {
    return servedAsIs(opts, err, started);
  }
  return openHeld(opts, release, started);
}

/** The same, waiting for the lock without blocking the event loop: the viewer and the MCP server go on serving. */
export async function openCacheAsync(opts: CacheOptions): Promise<{ store: Store; result: RebuildResult }> {
  const started = performance.now();
  ensureCacheDir(dirname(opts.dbPath));
  let release: Release;
  try {
    release = await acquireLockAsync(cacheLockPath(opts), cacheLockOptions(opts));
  } catch (err) {
    return servedAsIs(opts, err, started);
  }
  return openHeld(opts, release, started);
}

const cacheLockPath = (opts: CacheOptions) => `${opts.dbPath}.lock`;
const cacheLockOptions = (opts: CacheOptions) => ({ timeoutMs: opts.lockTimeoutMs ?? 60_000, purpose: 'the memory cache' });

function emptyResult(): RebuildResult {
  return {
    full: false, records: 0, pending: 0, files: 0, files_read: 0, lines_read: 0, bytes_read: 0,
    skipped_lines: 0, skipped: [], skipped_by_reason: {}, repaired_utf8_lines: 0, dim_mismatch: 0, ms: 0,
  };
}

/** The lock stayed held past the wait: the cache as it is, marked stale (or the error, with no cache). */
function servedAsIs(opts: CacheOptions, err: unknown, started: number): { store: Store; result: RebuildResult } {
  const existing = openExisting(opts);
  if (!existing.store) throw err;
  opts.warn?.(`${errorMessage(err)}; searching the cache as it is`);
  const res = emptyResult();
  res.stale = true;
  return { store: existing.store, result: finish(existing.store, res, started) };
}

/** Update the cache while holding its lock, then release it. */
function openHeld(opts: CacheOptions, release: Release, started: number): { store: Store; result: RebuildResult } {
  const res = emptyResult();
  try {
    removeStaleBuilds(opts.dbPath);
    const files = (opts.listFiles ?? listExportFiles)(opts.exportDir);
    res.files = files.length;
    let store: Store | undefined;
    let reason = opts.full ? 'requested' : undefined;
    if (!opts.full) {
      const existing = openExisting(opts);
      store = existing.store;
      reason = existing.reason;
    }
    if (store) {
      const s = store;
      const why = s.vectorMismatch();
      const p = plan(s, files);
      if (opts.maxBytes !== undefined && !why && planBytes(p) > opts.maxBytes) {
        res.deferred = true;
        return { store: s, result: finish(s, res, started) };
      }
      let orphanReason: string | undefined;
      try {
        orphanReason = s.transaction(() => {
          s.ensureLiveCounts();
          return ingestIncrementally(s, files, p, why, res, opts);
        });
      } catch (err) {
        const full = cannotWrite(err);
        if (!full && !(isSqliteError(err) && /BUSY|LOCKED/.test(err.code))) throw err;
        // Another process holds the database longer than busy_timeout, or the disk is full:
        // answer from the cache as it is rather than fail (the transaction left it whole);
        // the next run catches up.
        if (full) {
          res.unwritable = full;
          opts.warn?.(`the cache cannot be updated (${full}); serving it as it was — free some space, and the next run catches up`);
        } else opts.warn?.(`the cache is busy (${(err as { code?: string }).code}); serving it as it is`);
        res.stale = true;
        resetCounters(res);
        return { store: s, result: finish(s, res, started) };
      }
      res.dim_mismatch += s.stats.dimMismatch;
      if (orphanReason) {
        reason = orphanReason;
        s.close();
        store = undefined;
        resetCounters(res);
      }
    }
    if (!store) {
      if (opts.maxBytes !== undefined && files.reduce((n, f) => n + f.size, 0) > opts.maxBytes) throw new CacheDeferred(`the cache at ${opts.dbPath} is to be built by a background run`);
      res.full = true;
      if (reason) res.reason = reason;
      try {
        buildFromScratch(opts, files, res);
      } catch (err) {
        const full = cannotWrite(err);
        if (!full) throw err;
        throw new UserError(`the memory cache cannot be built at ${opts.dbPath} (${full}); your memories are safe in ${opts.exportDir}`, 'free some space on that disk (or point [general] db_path elsewhere), then run this again');
      }
      store = new Store(openDatabase(opts.dbPath), opts);
    }
    // Repository names and aliases (memory projects merge) decide each memory's project.
    store.projects.refreshProjects(res.full || res.lines_read > 0);
    const counts = store.liveCounts();
    if (res.full || res.lines_read > 0) countTerms(store, counts.records, res.full, opts);
    return { store, result: finish(store, res, started, counts) };
  } finally {
    release();
  }
}

/** Count the keyword index's common terms when due (store/term-docs.ts); a disk that says no costs speed only. */
function countTerms(store: Store, live: number, full: boolean, opts: CacheOptions): void {
  if (!store.terms.due(live, full)) return;
  try {
    store.terms.refresh(live);
  } catch (err) {
    const why = cannotWrite(err);
    if (!why) throw err;
    opts.warn?.(`common terms not counted (${why})`);
  }
}

/** The disk said no (full, over quota, over a size limit): a reason to say, else undefined. */
function cannotWrite(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  if (isSqliteError(err) && /^SQLITE_(?:FULL|IOERR)/.test(err.code)) return err.code === 'SQLITE_FULL' ? 'the disk is full' : `the disk refused a write: ${err.code}`;
  if (code === 'ENOSPC' || code === 'EDQUOT') return 'the disk is full';
  if (code === 'EFBIG') return 'a file size limit was reached';
  return undefined;
}

function finish(store: Store, res: RebuildResult, started: number, c: { records: number; pending: number } = store.liveCounts()): RebuildResult {
  res.records = c.records;
  res.pending = c.pending;
  res.ms = Math.round(performance.now() - started);
  return res;
}

export function dbBytes(dbPath: string): number {
  let total = 0;
  for (const suffix of ['', '-wal']) {
    try {
      total += statSync(`${dbPath}${suffix}`).size;
    } catch {
      /* absent */
    }
  }
  return total;
}
