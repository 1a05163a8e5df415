/**
 * Re-apply today's privacy rules to what is already exported: every memory whose text
 * changes gets a redacted version (same vector, newer updated_at) appended to this
 * machine's current month file. Old lines stay in git history until it is rewritten.
 */
import { appendToCurrentMonth } from '../export/files.js';
import { supersedingTime } from '../export/jsonl.js';
import { cleanText } from '../privacy/redact.js';
import { rowToRecord, type Store } from '../store/store.js';
import type { MemoryRecord } from '../types.js';

export interface ScrubResult {
  scanned: number;
  changed: number;
  counts: Record<string, number>;
  /** Distinct secret strings found (for a `git filter-repo --replace-text` file). */
  secrets: string[];
  file?: string;
}

export function scrubMemories(store: Store, opts: { exportDir: string; machine: string; redact: boolean; now: Date; dryRun: boolean }): ScrubResult {
  const res: ScrubResult = { scanned: 0, changed: 0, counts: {}, secrets: [] };
  const secrets = new Set<string>();
  const out: MemoryRecord[] = [];
  let after = 0;
  for (;;) {
    const rows = store.liveRows(after, 500);
    if (rows.length === 0) break;
    after = rows[rows.length - 1]?.rowid ?? after;
    for (const row of rows) {
      res.scanned++;
      const q = cleanText(row.question, opts.redact);
      const a = cleanText(row.answer, opts.redact);
      if (q.text === row.question && a.text === row.answer) continue;
      res.changed++;
      for (const c of [q.counts, a.counts]) for (const [k, n] of Object.entries(c)) res.counts[k] = (res.counts[k] ?? 0) + n;
      for (const s of [...q.found, ...a.found]) if (s.trim().length > 0) secrets.add(s);
      if (opts.dryRun) continue;
      const r = rowToRecord(row);
      r.question = q.text;
      r.answer = a.text;
      r.updated_at = supersedingTime(row.version_ms, opts.now.getTime());
      const v = row.has_vector ? store.vectorOf(row.rowid) : undefined;
      if (v) {
        r.embedding = v;
        r.dim = v.length;
      } else {
        delete r.model;
      }
      out.push(r);
    }
  }
  res.secrets = [...secrets].sort();
  if (out.length > 0) {
    res.file = appendToCurrentMonth(opts.exportDir, opts.machine, opts.now, out);
  }
  return res;
}
