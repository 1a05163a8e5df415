/** Forget memories everywhere: tombstones appended to this machine's current month file. */
import { supersedingTime } from '../export/jsonl.js';
import type { MemoryRow, Store } from '../store/store.js';
import type { Tombstone } from '../types.js';

export interface ResolvedIds {
  rows: MemoryRow[];
  unknown: string[];
  ambiguous: Array<{ given: string; matches: string[] }>;
}

/** Full ids, or unique prefixes of at least 6 characters (as `search` prints them). */
export function resolveIds(store: Store, given: string[]): ResolvedIds {
  const out: ResolvedIds = { rows: [], unknown: [], ambiguous: [] };
  const seen = new Set<string>();
  for (const g of given) {
    let row = store.byId(g);
    if (row?.deleted === 1) row = undefined;
    if (!row && g.length >= 6) {
      const matches = store.idsWithPrefix(g, 5);
      if (matches.length > 1) {
        out.ambiguous.push({ given: g, matches });
        continue;
      }
      if (matches[0]) row = store.byId(matches[0]);
    }
    if (!row) out.unknown.push(g);
    else if (!seen.has(row.id)) {
      seen.add(row.id);
      out.rows.push(row);
    }
  }
  return out;
}

export function tombstonesFor(rows: MemoryRow[], machine: string, now: Date): Tombstone[] {
  return rows.map((r) => ({
    v: 1,
    id: r.id,
    deleted: true,
    machine,
    timestamp: r.timestamp,
    // Must beat the version it forgets even if that machine's clock ran ahead of ours.
    updated_at: supersedingTime(r.version_ms, now.getTime()),
  }));
}

