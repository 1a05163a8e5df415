/**
 * Streaming JSONL reader: fixed-size chunks, so memory stays flat on a 500 MB file, and it
 * reports the byte offset after the last complete line (what incremental ingest resumes
 * from). Bad lines are counted and skipped, never fatal.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type { ExportEntry, SkipReason } from '../types.js';
import { decodeLine } from './jsonl.js';

/** Far above any real memory (question ≤ 2000 + answer ≤ 4000 chars + a 1024-d vector). */
export const DEFAULT_MAX_LINE_BYTES = 4 * 1024 * 1024;
const CHUNK = 1 << 20;

export interface Skip {
  file: string;
  /** 1-based, counted from where this read started. */
  line: number;
  offset: number;
  reason: SkipReason;
  message: string;
}

export interface ReadResult {
  /** Non-empty lines seen (including skipped ones). */
  lines: number;
  entries: number;
  skipped: Skip[];
  /** Lines whose bytes were not valid UTF-8: kept, with U+FFFD in place of the bad bytes. */
  repairedUtf8: number;
  /** Offset just after the last newline: everything before it has been read for good. */
  endOffset: number;
  /** Size of the file when read. */
  size: number;
  /** The file ended without a newline (a writer died mid-line, or an editor stripped it). */
  tornTail: boolean;
}

export interface ReadOptions {
  fromOffset?: number;
  maxLineBytes?: number;
  /** Called for each usable line, in file order. `tail` = the unterminated last line. */
  onEntry: (entry: ExportEntry, info: { line: number; offset: number; tail: boolean }) => void;
}

const utf8Strict = new TextDecoder('utf-8', { fatal: true });

export function readEntries(file: string, opts: ReadOptions): ReadResult {
  const maxLine = opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    const res: ReadResult = { lines: 0, entries: 0, skipped: [], repairedUtf8: 0, endOffset: opts.fromOffset ?? 0, size, tornTail: false };
    let pos = opts.fromOffset ?? 0;
    let lineNo = 0;
    // Bytes of the line being assembled across chunk boundaries.
    let pending: Buffer[] = [];
    let pendingLen = 0;
    let lineStart = pos;
    let oversize = false;
    const buf = Buffer.allocUnsafe(CHUNK);

    const handle = (bytes: Buffer, offset: number, tail: boolean): void => {
      let end = bytes.length;
      if (end > 0 && bytes[end - 1] === 13) end--; // tolerate CRLF
      let text = bytes.toString('utf8', 0, end);
      if (text.trim().length === 0) return;
      lineNo++;
      res.lines++;
      let repaired = false;
      if (text.includes('\uFFFD')) {
        try {
          utf8Strict.decode(bytes.subarray(0, end));
        } catch {
          repaired = true;
          text = bytes.toString('utf8', 0, end);
        }
      }
      const d = decodeLine(text);
      if (d.ok) {
        if (repaired) res.repairedUtf8++;
        res.entries++;
        opts.onEntry(d.entry, { line: lineNo, offset, tail });
      } else {
        const reason = tail && d.reason === 'invalid-json' ? 'torn-tail' : d.reason;
        res.skipped.push({ file, line: lineNo, offset, reason, message: d.message });
      }
    };

    while (pos < size) {
      const n = readSync(fd, buf, 0, Math.min(CHUNK, size - pos), pos);
      if (n <= 0) break;
      let start = 0;
      for (;;) {
        const nl = buf.indexOf(10, start);
        if (nl === -1 || nl >= n) break;
        const piece = buf.subarray(start, nl);
        if (oversize) {
          oversize = false;
        } else if (pendingLen + piece.length > maxLine) {
          lineNo++;
          res.lines++;
          res.skipped.push({ file, line: lineNo, offset: lineStart, reason: 'oversize', message: `line longer than ${maxLine} bytes` });
        } else if (pendingLen > 0) {
          handle(Buffer.concat([...pending, piece]), lineStart, false);
        } else {
          handle(piece, lineStart, false);
        }
        pending = [];
        pendingLen = 0;
        start = nl + 1;
        lineStart = pos + start;
        res.endOffset = lineStart;
      }
      if (start < n && !oversize) {
        const rest = Buffer.from(buf.subarray(start, n));
        if (pendingLen + rest.length > maxLine) {
          oversize = true;
          lineNo++;
          res.lines++;
          res.skipped.push({ file, line: lineNo, offset: lineStart, reason: 'oversize', message: `line longer than ${maxLine} bytes` });
          pending = [];
          pendingLen = 0;
        } else {
          pending.push(rest);
          pendingLen += rest.length;
        }
      }
      pos += n;
    }
    if (pendingLen > 0 || oversize) {
      res.tornTail = true;
      if (pendingLen > 0) handle(Buffer.concat(pending), lineStart, true);
    }
    return res;
  } finally {
    closeSync(fd);
  }
}

/** Convenience for small files and tests: every usable entry in order, plus the result. */
export function readAllEntries(file: string, maxLineBytes?: number): { entries: ExportEntry[]; result: ReadResult } {
  const entries: ExportEntry[] = [];
  const result = readEntries(file, { ...(maxLineBytes ? { maxLineBytes } : {}), onEntry: (e) => entries.push(e) });
  return { entries, result };
}
