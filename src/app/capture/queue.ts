/**
 * Pending capture work: one small file per transcript in <cache>/queue/. The Stop hook
 * writes an entry and leaves; the one worker drains them. Light on purpose (node:fs only):
 * the hook that imports this runs after every turn of every session.
 */
import { readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDir, PRIVATE_FILE_MODE, workDirFor } from '../../config/paths.js';

export interface QueueItem {
  transcript: string;
  session_id?: string;
  cwd?: string;
  push: boolean;
  /** Commit and push as soon as captured (SessionEnd, a run by hand), not at the batch interval. */
  flush: boolean;
  /** When the hook queued it (ISO). */
  at: string;
}

/** `baseDir`: the config file's folder (Config.baseDir), known to the hook without parsing the config. */
export function queueDirFor(baseDir: string): string {
  return join(workDirFor(baseDir), 'queue');
}

export function workerLockFor(baseDir: string): string {
  return join(workDirFor(baseDir), 'worker.lock');
}

/** FNV-1a, twice (64 bits): a stable file name per transcript without loading node:crypto in the hook. */
function nameOf(s: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c, 0x01000193 + 2) >>> 0;
  }
  return `${a.toString(16).padStart(8, '0')}${b.toString(16).padStart(8, '0')}`;
}

function itemFile(dir: string, transcript: string): string {
  return join(dir, `${nameOf(transcript)}.json`);
}

function parseItem(text: string): QueueItem | undefined {
  try {
    const o = JSON.parse(text) as QueueItem;
    return o !== null && typeof o === 'object' && typeof o.transcript === 'string' && typeof o.at === 'string' ? o : undefined;
  } catch {
    return undefined;
  }
}

function readItem(path: string): QueueItem | undefined {
  try {
    return parseItem(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * Record that a transcript has new turns. A second Stop for the same transcript replaces
 * the entry; a flush or a push asked for earlier is kept.
 */
export function enqueue(dir: string, item: QueueItem): void {
  ensurePrivateDir(dir);
  const path = itemFile(dir, item.transcript);
  const prev = readItem(path);
  const merged: QueueItem = prev ? { ...prev, ...item, flush: prev.flush || item.flush, push: prev.push || item.push } : item;
  const tmp = `${path}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
  writeFileSync(tmp, JSON.stringify(merged), { mode: PRIVATE_FILE_MODE });
  renameSync(tmp, path);
}

export interface Queued extends QueueItem {
  /** The entry's file and its text when read: removed only if unchanged since. */
  file: string;
  text: string;
}

/** Entries waiting, oldest first. Unreadable entries are removed (the next Stop writes them again). */
export function readQueue(dir: string, warn?: (message: string) => void): Queued[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.json'));
  } catch {
    return [];
  }
  const out: Queued[] = [];
  for (const n of names) {
    const file = join(dir, n);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    // Parsed from the text just read: one read per entry, and the entry removed later is
    // exactly the one that was captured.
    const item = parseItem(text);
    if (!item) {
      // A damaged entry (cut, hand-edited, from another version) stops nothing: it is set
      // aside where it can be looked at, and the transcript's next Stop queues it again.
      const aside = `${file}.set-aside`;
      try {
        renameSync(file, aside);
      } catch {
        rmSync(file, { force: true });
      }
      warn?.(`a damaged capture queue entry was set aside: ${aside}`);
      continue;
    }
    out.push({ ...item, file, text });
  }
  return out.sort((a, b) => a.at.localeCompare(b.at));
}

/** Remove an entry that was processed, unless a newer Stop rewrote it meanwhile. */
export function dequeue(q: Queued): void {
  try {
    if (readFileSync(q.file, 'utf8') === q.text) rmSync(q.file, { force: true });
  } catch {
    /* already gone */
  }
}
