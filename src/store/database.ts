/**
 * The cache's SQLite connection: better-sqlite3 with sqlite-vec loaded, WAL, a busy timeout,
 * a private file; and what to say when the native module does not load.
 */
import { chmodSync, closeSync, existsSync, openSync, statSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { packageRoot } from '../config/paths.js';
import { UserError } from '../errors.js';
import { later, loadHere } from '../later.js';

const sqliteVec = later<typeof import('sqlite-vec')>('sqlite-vec');

export type DB = Database.Database;
type DatabaseClass = typeof Database;

/** How long a connection waits for another process's write (SQLite's busy timeout). */
const BUSY_TIMEOUT_MS = 10_000;

/**
 * How long a hook reading the cache as it is waits for another process's lock: well inside the
 * time an agent gives a hook (Codex: 10 s for a prompt's, then the hook is killed and shown as
 * failed). Past it the hook says nothing this time.
 */
export const HOOK_BUSY_TIMEOUT_MS = 2_000;

/** better-sqlite3's class by the entry asked for (the main entry where that one did not serve). */
const sqliteClasses = new Map<string, DatabaseClass>();

/**
 * A connection through better-sqlite3's entry for this platform (`better-sqlite3/linux-x64`, one
 * of the entries it exports for bundlers), which loads its prebuilt binary at once: the main entry
 * first looks for binaries compiled on the spot and reads /proc/self/maps to tell musl from glibc,
 * ~0.7 ms of every hook (bench/RESULTS.md). Where that entry is missing or its binary does not
 * load (a musl system, a platform without one), the main entry serves, as before, for the rest of
 * the process; its error is the one told. `entry`: another platform's name, for tests.
 */
export function newConnection(path: string, entry = `${process.platform}-${process.arch}`, timeout = BUSY_TIMEOUT_MS): DB {
  let cls = sqliteClasses.get(entry);
  if (!cls) {
    try {
      const platformClass = loadHere(`better-sqlite3/${entry}`) as DatabaseClass;
      const db = new platformClass(path, { timeout });
      sqliteClasses.set(entry, platformClass);
      return db;
    } catch {
      cls = loadHere('better-sqlite3') as DatabaseClass;
      sqliteClasses.set(entry, cls);
    }
  }
  return new cls(path, { timeout });
}

/** Whether `err` is SQLite's own error: better-sqlite3's SqliteError, one class whichever entry made the connection. */
export function isSqliteError(err: unknown): err is InstanceType<DatabaseClass['SqliteError']> {
  const cls = sqliteClasses.values().next().value;
  return cls !== undefined && err instanceof cls.SqliteError;
}

/** Page size of a new cache file. */
export const PAGE_SIZE = 16384;

/**
 * better-sqlite3 13 loads a prebuilt N-API binary from its own package: nothing is compiled at
 * install. When the binary is missing (a platform it has none for, a copy without its
 * prebuilds/) or does not load, its error is a path; say instead what is wrong and what fixes it.
 */
export function nativeModuleProblem(err: unknown): UserError | undefined {
  const msg = err instanceof Error ? err.message : String(err);
  const missing = /Could not locate the bindings file|Cannot find module .*better_sqlite3\.node/i.test(msg);
  const mismatch = /NODE_MODULE_VERSION|was compiled against a different Node\.js version|invalid ELF header|wrong ELF class|Module did not self-register/i.test(msg);
  if (!missing && !mismatch) return undefined;
  const what = missing ? `has no binary for this platform (${process.platform}-${process.arch})` : `does not load in this Node.js (${process.version})`;
  return new UserError(
    `the SQLite native module (better-sqlite3) ${what}`,
    `reinstall memory-engine (cd ${JSON.stringify(packageRoot())} && npm ci --ignore-scripts): better-sqlite3 ships prebuilt binaries for Linux, macOS and Windows on x64 and arm64, for Node.js 22 and later`,
    1,
  );
}

/**
 * The cache holds every conversation: its file is this user's only (0600), and SQLite gives
 * its -wal and -shm files the database file's permissions. Earlier versions created it with
 * the umask's default, so an existing one is tightened too.
 */
function makePrivate(path: string): void {
  if (path === ':memory:' || path === '') return;
  if (!existsSync(path)) {
    closeSync(openSync(path, 'a', 0o600));
    return;
  }
  for (const p of [path, `${path}-wal`, `${path}-shm`]) {
    try {
      if ((statSync(p).mode & 0o077) !== 0) chmodSync(p, 0o600);
    } catch {
      /* absent, or not ours */
    }
  }
}

/**
 * Open a connection with sqlite-vec loaded (`vectors: false`: not loaded, for a reader of an
 * existing cache that never touches the vectors), WAL and a busy timeout (`busyTimeoutMs`, 10 s
 * unless given). Throws on a damaged file.
 */
export function openDatabase(path: string, opts: { fast?: boolean; vectors?: boolean; busyTimeoutMs?: number } = {}): DB {
  makePrivate(path);
  let db: DB;
  try {
    db = newConnection(path, undefined, opts.busyTimeoutMs);
  } catch (err) {
    throw nativeModuleProblem(err) ?? err;
  }
  try {
    const reader = opts.vectors === false;
    if (!reader) sqliteVec().load(db);
    const pragmas = reader
      ? // A hook reading the cache as it is: the file keeps the journal mode it was made with
        // (setting WAL again costs a hook ~0.5 ms).
        ['synchronous = NORMAL']
      : [
          // 16 KB pages for a new file (an existing one keeps its own): a memory's row is a few KB, so
          // 4 KB pages left much of each page unused (cache 919 → 874 MB at 100k: bench/RESULTS.md).
          `page_size = ${PAGE_SIZE}`,
          // A brand-new cache built into a temp file: a crash just discards it. No journal on disk:
          // better-sqlite3 runs SQLite in defensive mode, which refuses `journal_mode = OFF` (it
          // stayed DELETE, a -journal file beside each build); MEMORY is allowed, and a fresh file
          // has next to nothing to journal.
          ...(opts.fast ? ['journal_mode = MEMORY', 'synchronous = OFF'] : ['journal_mode = WAL', 'synchronous = NORMAL']),
        ];
    pragmas.push('cache_size = -65536');
    // Vector KNN reads every vector blob: through mmap it is ~25% faster (76 vs 107 ms
    // over 100k 384-d vectors here) than through the page cache.
    pragmas.push('mmap_size = 1073741824');
    // One call: each `db.pragma()` prepares a statement of its own from JavaScript.
    db.exec(pragmas.map((p) => `PRAGMA ${p};`).join('\n'));
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

