/**
 * The export folder: month files per machine, the archive, and safe appends.
 */
import { appendFileSync, closeSync, existsSync, fstatSync, fsyncSync, ftruncateSync, mkdirSync, openSync, readFileSync, readSync, readdirSync, rmSync, statSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ExportEntry } from '../types.js';
import { encodeEntry, isWholeRecord, monthFileName, monthOf, parseMonthFileName } from './jsonl.js';
import { leftByDeadProcess, withLock, withLockAsync } from './lock.js';

export const ARCHIVE_DIR = 'archive';

export interface ExportFile {
  /** Absolute path. */
  path: string;
  /** Path relative to the export folder, with '/' (stable key for the ingest table). */
  rel: string;
  month: string;
  /** undefined for archive files (every machine folded together). */
  machine?: string;
  size: number;
  mtimeMs: number;
}

/** Every JSONL file of the export folder, archive first, then by name: a stable reading order. */
export function listExportFiles(exportDir: string): ExportFile[] {
  const out: ExportFile[] = [];
  const archive = join(exportDir, ARCHIVE_DIR);
  if (existsSync(archive)) {
    for (const name of readdirSync(archive).sort()) {
      const m = /^(\d{4}-\d{2})\.jsonl$/.exec(name);
      if (!m) continue;
      const path = join(archive, name);
      const st = statSync(path);
      if (st.isFile()) out.push({ path, rel: `${ARCHIVE_DIR}/${name}`, month: m[1] as string, size: st.size, mtimeMs: st.mtimeMs });
    }
  }
  if (existsSync(exportDir)) {
    for (const name of readdirSync(exportDir).sort()) {
      const p = parseMonthFileName(name);
      if (!p) continue;
      const path = join(exportDir, name);
      const st = statSync(path);
      if (st.isFile()) out.push({ path, rel: name, month: p.month, machine: p.machine, size: st.size, mtimeMs: st.mtimeMs });
    }
  }
  return out;
}

/** A file written whole and then renamed into place (`<name>.tmp-<pid>`: monthly-merge's archives). */
const TEMP_WRITE = /\.tmp-(\d+)$/;

/**
 * The `<name>.tmp-<pid>` files of writers that died before their rename (a monthly-merge killed
 * while it wrote an archive): removed, and their names returned. Called under the repository
 * lock, which every such writer holds; a file whose process still runs is left alone.
 */
export function removeStaleWrites(exportDir: string): string[] {
  const removed: string[] = [];
  for (const [dir, prefix] of [[exportDir, ''], [join(exportDir, ARCHIVE_DIR), `${ARCHIVE_DIR}/`]] as const) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      if (!leftByDeadProcess(Number(TEMP_WRITE.exec(name)?.[1] ?? 0))) continue;
      try {
        rmSync(join(dir, name), { force: true });
        removed.push(`${prefix}${name}`);
      } catch {
        /* left for next time: it is never committed (sync/commit.ts) */
      }
    }
  }
  return removed;
}

export function appendLockPath(exportDir: string): string {
  return join(exportDir, '.append.lock');
}

/**
 * A last line without its newline, judged by the one rule (jsonl.ts isWholeRecord): a whole
 * record gets its newline; half a record is cut off and kept verbatim in the month's rejects
 * file (`archive/<YYYY-MM>.rejects.jsonl`, which status counts and monthly-merge keeps) —
 * closing it with a newline would commit and push garbage. The capture that was writing it is
 * still queued and writes the record again.
 */
function cutTornLine(fd: number, size: number, exportDir: string, fileName: string): void {
  const start = lastLineStart(fd, size);
  const buf = Buffer.alloc(size - start);
  readSync(fd, buf, 0, buf.length, start);
  const tail = buf.toString('utf8');
  if (isWholeRecord(tail)) {
    writeSync(fd, '\n', size);
    return;
  }
  keepRejected(exportDir, monthOfFile(fileName), [tail]);
  ftruncateSync(fd, start);
}

/** Offset just after the file's last newline (0 if none), read backwards from the end. */
function lastLineStart(fd: number, size: number): number {
  const chunk = Buffer.alloc(64 * 1024);
  for (let end = size; end > 0; ) {
    const from = Math.max(0, end - chunk.length);
    const n = readSync(fd, chunk, 0, end - from, from);
    const nl = chunk.subarray(0, n).lastIndexOf(10);
    if (nl !== -1) return from + nl + 1;
    end = from;
  }
  return 0;
}

/** The month a memory file holds (`<month>_<machine>.jsonl`, `archive/<month>.jsonl`). */
export function monthOfFile(path: string): string {
  const name = path.split(/[\\/]/).pop() ?? '';
  return parseMonthFileName(name)?.month ?? /^(\d{4}-\d{2})\.jsonl$/.exec(name)?.[1] ?? 'unknown';
}

/** The rejects file of a month: `archive/<YYYY-MM>.rejects.jsonl`, unusable lines kept verbatim (status counts them). */
export const REJECTS_SUFFIX = '.rejects.jsonl';

export function rejectsPath(exportDir: string, month: string): string {
  return join(exportDir, ARCHIVE_DIR, `${month}${REJECTS_SUFFIX}`);
}

/** Keep unusable lines verbatim in the month's rejects file, each once. */
export function keepRejected(exportDir: string, month: string, lines: string[]): void {
  const rejects = rejectsPath(exportDir, month);
  const known = new Set(existsSync(rejects) ? readFileSync(rejects, 'utf8').split('\n') : []);
  const fresh = [...new Set(lines)].filter((l) => l.length > 0 && !known.has(l));
  if (fresh.length === 0) return;
  mkdirSync(dirname(rejects), { recursive: true });
  appendFileSync(rejects, fresh.map((l) => `${l}\n`).join(''));
}

/**
 * Run `fn` (staging and committing) while no append can start, after every memory file's torn
 * last line was dealt with as an append would (cutTornLine): a writer mid-line holds the
 * append lock, so a torn line seen under it is one a dead writer left, and half a record is
 * never committed. Appends wait for `fn`; it must be short.
 */
export async function withWholeLines<T>(exportDir: string, fn: () => Promise<T>): Promise<T> {
  if (!existsSync(exportDir)) return fn();
  return withLockAsync(appendLockPath(exportDir), { purpose: 'committing the export folder' }, async () => {
    for (const f of listExportFiles(exportDir)) {
      if (f.size === 0) continue;
      const fd = openSync(f.path, 'r+');
      try {
        const last = Buffer.alloc(1);
        readSync(fd, last, 0, 1, f.size - 1);
        if (last[0] !== 10) cutTornLine(fd, f.size, exportDir, f.path);
      } finally {
        closeSync(fd);
      }
    }
    return fn();
  });
}

/**
 * Append whole lines to one file under the export folder's lock, after cutting off a torn
 * final line (see cutTornLine), so a crash mid-write never glues two records nor commits half
 * of one.
 */
export function appendEntries(exportDir: string, fileName: string, entries: ExportEntry[]): { path: string; bytes: number } {
  const path = join(exportDir, fileName);
  if (entries.length === 0) return { path, bytes: 0 };
  mkdirSync(exportDir, { recursive: true });
  const payload = Buffer.from(entries.map((e) => `${encodeEntry(e)}\n`).join(''), 'utf8');
  withLock(appendLockPath(exportDir), { purpose: 'appending to the export folder' }, () => {
    const fd = openSync(path, 'a+'); // O_APPEND: every write lands at the end, after a cut too
    try {
      const size = fstatSync(fd).size;
      if (size > 0) {
        const last = Buffer.alloc(1);
        readSync(fd, last, 0, 1, size - 1);
        if (last[0] !== 10) cutTornLine(fd, size, exportDir, fileName);
      }
      let off = 0;
      while (off < payload.length) off += writeSync(fd, payload, off, payload.length - off);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  });
  return { path, bytes: payload.length };
}

/** Append each entry to `<month>_<machine>.jsonl` where month comes from `monthFor(entry)`. */
export function appendByMonth(exportDir: string, machine: string, entries: ExportEntry[], monthFor: (e: ExportEntry) => string): string[] {
  const groups = new Map<string, ExportEntry[]>();
  for (const e of entries) {
    const name = monthFileName(monthFor(e), machine);
    const g = groups.get(name);
    if (g) g.push(e);
    else groups.set(name, [e]);
  }
  const written: string[] = [];
  for (const [name, group] of [...groups].sort(([a], [b]) => a.localeCompare(b))) {
    written.push(appendEntries(exportDir, name, group).path);
  }
  return written;
}

/** Re-embedded versions, tombstones and scrubbed versions go to this machine's file of the month they are written in. */
export function appendToCurrentMonth(exportDir: string, machine: string, now: Date, entries: ExportEntry[]): string {
  return appendEntries(exportDir, monthFileName(monthOf(now.toISOString()), machine), entries).path;
}
