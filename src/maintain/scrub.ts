/**
 * Re-apply today's privacy rules to what is already exported: every memory whose text
 * changes gets a redacted version (same vector, newer updated_at) appended to this
 * machine's current month file. Old lines stay in git history until it is rewritten.
 */
import { appendToCurrentMonth } from '../export/files.js';
import { supersedingTime } from '../export/jsonl.js';
import { cleanRecordFields, cleanText, storedFieldsKey, type RedactResult } from '../privacy/redact.js';
import { rowToRecord, type MemoryRow, type Store } from '../store/store.js';
import type { MemoryRecord } from '../types.js';

export interface ScrubResult {
  scanned: number;
  changed: number;
  counts: Record<string, number>;
  /** Distinct secret strings found (for a `git filter-repo --replace-text` file). */
  secrets: string[];
  /** The memories that changed (or would), in the cache's order. */
  ids: string[];
  file?: string;
}

/** A memory as today's rules would store it, with what they found; undefined when they change nothing. */
export function scrubbedVersion(row: MemoryRow, redact: boolean, own: readonly RegExp[] = []): { record: MemoryRecord; results: RedactResult[] } | undefined {
  // Every stored field, as capture does now (redact.ts storedFieldsKey).
  const r = rowToRecord(row);
  const before = storedFieldsKey(r);
  const results: RedactResult[] = [];
  const clean = (s: string) => {
    const c = cleanText(s, redact, own);
    results.push(c);
    // cleanText trims; a field with nothing to redact keeps its exact text.
    return Object.keys(c.counts).length > 0 ? c.text : s;
  };
  r.question = clean(r.question);
  r.answer = clean(r.answer);
  cleanRecordFields(r, clean);
  return storedFieldsKey(r) === before ? undefined : { record: r, results };
}

export function scrubMemories(store: Store, opts: { exportDir: string; machine: string; redact: boolean; own?: readonly RegExp[]; now: Date; dryRun: boolean }): ScrubResult {
  const res: ScrubResult = { scanned: 0, changed: 0, counts: {}, secrets: [], ids: [] };
  const secrets = new Set<string>();
  const out: MemoryRecord[] = [];
  let after = 0;
  for (;;) {
    const rows = store.liveRows(after, 500);
    if (rows.length === 0) break;
    after = rows[rows.length - 1]?.rowid ?? after;
    for (const row of rows) {
      res.scanned++;
      const scrubbed = scrubbedVersion(row, opts.redact, opts.own);
      if (!scrubbed) continue;
      const { record: r, results } = scrubbed;
      res.changed++;
      res.ids.push(r.id);
      for (const c of results) for (const [k, n] of Object.entries(c.counts)) res.counts[k] = (res.counts[k] ?? 0) + n;
      for (const c of results) for (const s of c.found) if (s.trim().length > 0) secrets.add(s);
      if (opts.dryRun) continue;
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

/**
 * The history-rewrite file for `git filter-repo --replace-text`: one `literal==>[REDACTED]`
 * line per form in which git stores each secret. Blobs hold JSONL, where a secret appears
 * JSON-escaped (`"` as `\"`, `\` as `\\`, a newline as `\n`, a tab as `\t`): that form is
 * always one line, so multi-line secrets (key blocks, <private> spans) are covered too; the
 * raw form is listed as well wherever it fits on one line. Longest first, so a secret that
 * contains another is replaced whole.
 */
export function replacementLines(secrets: string[]): string {
  const forms = new Set<string>();
  for (const s of secrets) {
    const escaped = JSON.stringify(s).slice(1, -1);
    if (escaped.length > 0) forms.add(escaped);
    if (!/[\r\n]/.test(s) && s.length > 0) forms.add(s);
  }
  const lines = [...forms].filter((f) => !f.includes('==>')).sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
  return lines.length > 0 ? `${lines.map((f) => `${f}==>[REDACTED]`).join('\n')}\n` : '';
}
