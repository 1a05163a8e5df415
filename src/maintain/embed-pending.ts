/**
 * Embed memories that have no vector for the configured model (written while the model
 * could not load, or by another model) and append the embedded versions to this
 * machine's current-month file.
 */
import { appendToCurrentMonth } from '../export/files.js';
import { supersedingTime } from '../export/jsonl.js';
import { documentText, type Embedder } from '../embed/embedder.js';
import { rowToRecord, type Store } from '../store/store.js';
import type { MemoryRecord } from '../types.js';

export interface EmbedPendingOptions {
  store: Store;
  embedder: Embedder;
  exportDir: string;
  machine: string;
  now: () => Date;
  batch?: number;
  progress?: (done: number, total: number) => void;
}

export async function embedPending(opts: EmbedPendingOptions): Promise<{ embedded: number; file?: string }> {
  const total = opts.store.liveCounts().pending;
  const batch = opts.batch ?? 128;
  let after = 0;
  let embedded = 0;
  let file: string | undefined;
  for (;;) {
    const rows = opts.store.pendingRows(batch, after);
    if (rows.length === 0) break;
    after = rows[rows.length - 1]?.rowid ?? after;
    const vectors = await opts.embedder.embedDocuments(rows.map((r) => documentText(r.question, r.answer)));
    const records: MemoryRecord[] = rows.map((row, i) => {
      const r = rowToRecord(row);
      r.embedding = vectors[i];
      r.model = opts.embedder.model;
      r.dim = opts.embedder.dim;
      r.updated_at = supersedingTime(row.version_ms);
      return r;
    });
    file = appendToCurrentMonth(opts.exportDir, opts.machine, opts.now(), records);
    embedded += records.length;
    opts.progress?.(embedded, total);
  }
  return file ? { embedded, file } : { embedded };
}
