/**
 * Fold every machine's file of each closed month into export/archive/<YYYY-MM>.jsonl:
 * winners only (tombstones kept), sorted by (timestamp, id), byte-for-byte deterministic,
 * so two machines merging the same inputs write identical files and their commits rebase
 * cleanly. Pure planning and folding; the command does the locking and git.
 */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ARCHIVE_DIR, listExportFiles, REJECTS_SUFFIX, type ExportFile } from '../export/files.js';
import { encodeEntry, resolveEntries, versionTime } from '../export/jsonl.js';
import { readEntries, type Skip } from '../export/read.js';
import { isTombstone, type ExportEntry } from '../types.js';

export interface MonthFold {
  month: string;
  /** Relative paths read (the existing archive first). */
  inputs: string[];
  /** Per-machine files that disappear into the archive. */
  removed: string[];
  archive: string;
  linesIn: number;
  records: number;
  tombstones: number;
  /** Lines that cannot be folded (invalid JSON, torn, wrong types, a time in the future). */
  dropped: Skip[];
  /** Where those lines are kept verbatim, never deleted: a later reader may recover them. */
  rejectsFile: string;
  /** The rejects file's new content (sorted, unique: identical on every machine); '' = none. */
  rejectsText: string;
  /** Lines of a newer format version, carried over verbatim. */
  carried: number;
  /** Records dropped because a newer version elsewhere (a tombstone, a redacted or re-embedded version) supersedes them. */
  purged: number;
  bytes: number;
  /** The archive's new content. */
  text: string;
  /** True when the archive would be byte-identical and nothing is removed. */
  noop: boolean;
}

/** Months strictly before `currentMonth` that still have per-machine files. */
export function closedMonths(files: ExportFile[], currentMonth: string): string[] {
  return [...new Set(files.filter((f) => f.machine !== undefined && f.month < currentMonth).map((f) => f.month))].sort();
}

function sortKey(e: ExportEntry): string {
  return isTombstone(e) ? (e.timestamp ?? e.updated_at) : e.timestamp;
}

/** Fold one month's files into the archive text. Reads, never writes. */
export function foldMonth(exportDir: string, month: string, files: ExportFile[], newest: ReadonlyMap<string, number> = new Map()): MonthFold {
  const archiveRel = `${ARCHIVE_DIR}/${month}.jsonl`;
  const inputs = files.filter((f) => f.month === month).sort((a, b) => (a.machine === undefined ? -1 : b.machine === undefined ? 1 : a.rel.localeCompare(b.rel)));
  const entries: ExportEntry[] = [];
  const carried = new Set<string>();
  const dropped: Skip[] = [];
  const rejectsRel = `${ARCHIVE_DIR}/${month}${REJECTS_SUFFIX}`;
  const rejects = new Set<string>(readLines(join(exportDir, rejectsRel)));
  let linesIn = 0;
  for (const f of inputs) {
    const r = readEntries(f.path, { onEntry: (e) => entries.push(e) });
    linesIn += r.lines;
    for (const s of r.skipped) {
      if (s.reason === 'unknown-version') carried.add(readLineAt(f.path, s.offset));
      else {
        dropped.push(s);
        rejects.add(readLineAt(f.path, s.offset));
      }
    }
  }
  let purged = 0;
  // A memory superseded by a newer version in another month's file (forgotten, scrubbed,
  // re-embedded) leaves this archive, so forgotten or redacted text does not linger in
  // the export (git history still has it: see README). The winner lives on elsewhere.
  const alive = [...resolveEntries(entries).values()].filter((e) => {
    const t = newest.get(e.id);
    if (!isTombstone(e) && t !== undefined && t > versionTime(e)) {
      purged++;
      return false;
    }
    return true;
  });
  const winners = alive.sort((a, b) => {
    const ka = Date.parse(sortKey(a));
    const kb = Date.parse(sortKey(b));
    return ka - kb || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  });
  const lines = winners.map(encodeEntry);
  // Lines a newer memory-engine wrote: not ours to judge, kept verbatim, in a stable order.
  lines.push(...[...carried].sort());
  const text = lines.length > 0 ? `${lines.join('\n')}\n` : '';
  const removed = inputs.filter((f) => f.machine !== undefined).map((f) => f.rel);
  const existing = inputs.find((f) => f.machine === undefined);
  const same = existing !== undefined && existing.size === Buffer.byteLength(text) && readFileText(existing.path) === text;
  const rejectsText = rejects.size > 0 ? `${[...rejects].sort().join('\n')}\n` : '';
  return {
    month,
    inputs: inputs.map((f) => f.rel),
    removed,
    archive: archiveRel,
    linesIn,
    records: winners.filter((w) => !isTombstone(w)).length,
    tombstones: winners.filter((w) => isTombstone(w)).length,
    dropped,
    rejectsFile: rejectsRel,
    rejectsText,
    carried: carried.size,
    purged,
    bytes: Buffer.byteLength(text),
    text,
    noop: same && removed.length === 0 && purged === 0 && dropped.length === 0,
  };
}


function readFileText(path: string): string {
  return readFileSync(path, 'utf8');
}

function readLines(path: string): string[] {
  if (!existsSync(path)) return [];
  return readFileText(path).split('\n').filter((l) => l.length > 0);
}

function readLineAt(path: string, offset: number): string {
  const fd = openSync(path, 'r');
  try {
    const chunks: Buffer[] = [];
    const buf = Buffer.alloc(65536);
    let pos = offset;
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, pos);
      if (n <= 0) break;
      const nl = buf.subarray(0, n).indexOf(10);
      if (nl >= 0) {
        chunks.push(Buffer.from(buf.subarray(0, nl)));
        break;
      }
      chunks.push(Buffer.from(buf.subarray(0, n)));
      pos += n;
    }
    return Buffer.concat(chunks).toString('utf8').replace(/\r$/, '');
  } finally {
    closeSync(fd);
  }
}

/**
 * Folds for every closed month with per-machine files, and for every archive that still
 * holds a version superseded elsewhere. `newest`: each id's winning version (ms).
 */
export function planMerge(exportDir: string, currentMonth: string, newest: ReadonlyMap<string, number> = new Map()): MonthFold[] {
  const files = listExportFiles(exportDir);
  const months = new Set(closedMonths(files, currentMonth));
  if (newest.size > 0) for (const f of files) if (f.machine === undefined && f.month < currentMonth) months.add(f.month);
  return [...months].sort().map((m) => foldMonth(exportDir, m, files, newest)).filter((f) => !f.noop || f.removed.length > 0);
}

/**
 * Write the archive and the rejects file (atomically, rejects first), then remove the
 * folded per-machine files: a line is never deleted before it is written elsewhere.
 */
export function applyFold(exportDir: string, fold: MonthFold): void {
  mkdirSync(join(exportDir, ARCHIVE_DIR), { recursive: true });
  if (fold.rejectsText) writeIfChanged(join(exportDir, fold.rejectsFile), fold.rejectsText);
  writeIfChanged(join(exportDir, fold.archive), fold.text);
  for (const rel of fold.removed) rmSync(join(exportDir, rel), { force: true });
}

function writeIfChanged(target: string, text: string): void {
  if (existsSync(target) && readFileText(target) === text) return;
  const tmp = `${target}.tmp-${process.pid}`;
  writeFileSync(tmp, text);
  renameSync(tmp, target);
}

/** Lines kept in rejects files (what `status` counts). */
export function countRejects(exportDir: string): number {
  const dir = join(exportDir, ARCHIVE_DIR);
  if (!existsSync(dir)) return 0;
  return readdirSync(dir).filter((n) => n.endsWith(REJECTS_SUFFIX)).reduce((s, n) => s + readLines(join(dir, n)).length, 0);
}
