/**
 * What session start injects, by the work in progress (project/work-tree.ts): memories of work
 * on the files changed in the working tree first (the more of them a memory touched, the
 * earlier; then the newest), then those captured on the branch checked out (not a mainline
 * branch), then the most recent of the project — each with why it is there. A clean tree on a
 * mainline branch gives the most recent, as before.
 */
import { MAINLINE, type WorkInProgress } from '../../project/work-tree.js';
import type { FileName } from '../../changes/renames.js';
import type { MemoryRow, Store } from '../../store/store.js';

export interface Picked {
  row: MemoryRow;
  /** Why it is here ("you are changing src/checkout.ts", "branch feature/retry"); none: recent. */
  why?: string;
}

/** `work.names`: a changed file's names with the time it held each (changes/renames.ts); absent: its path alone. */
export function pickForStart(store: Store, project: string, limit: number, work: { repo: string; wip: WorkInProgress; names?: (path: string) => FileName[] } | undefined): Picked[] {
  if (limit <= 0) return [];
  const recent = () => store.recent(project, limit).map((row) => ({ row }));
  if (!work) return recent();
  const { repo, wip } = work;
  const branch = wip.branch && !MAINLINE.has(wip.branch) ? wip.branch : undefined;
  if (wip.changed.length === 0 && !branch) return recent();
  // Memories of the changed files: how many of them each touched.
  const touched = new Map<number, string[]>();
  for (const path of wip.changed) {
    for (const name of work.names?.(path) ?? [{ path }]) {
      for (const rowid of store.files.rowidsOf(repo, name.path, limit * 2, name)) {
        const paths = touched.get(rowid) ?? [];
        if (!paths.includes(path)) paths.push(path);
        touched.set(rowid, paths);
      }
    }
  }
  const rows = store.rowsByRowid([...touched.keys()]);
  const byFiles = [...touched.entries()]
    .map(([rowid, paths]) => ({ row: rows.get(rowid), paths }))
    .filter((x): x is { row: MemoryRow; paths: string[] } => x.row !== undefined && x.row.deleted === 0)
    .sort((a, b) => b.paths.length - a.paths.length || b.row.ts_ms - a.row.ts_ms);
  const out: Picked[] = [];
  const seen = new Set<string>();
  const add = (row: MemoryRow, why?: string) => {
    if (out.length >= limit || seen.has(row.id)) return;
    seen.add(row.id);
    out.push({ row, ...(why ? { why } : {}) });
  };
  const onBranch = branch ? store.onBranch(repo, branch, limit) : [];
  const branchIds = new Set(onBranch.map((r) => r.id));
  for (const { row, paths } of byFiles) {
    const files = `you are changing ${paths.slice(0, 2).join(', ')}${paths.length > 2 ? ` and ${paths.length - 2} more` : ''}`;
    add(row, branchIds.has(row.id) ? `${files}; branch ${branch}` : files);
  }
  for (const row of onBranch) add(row, `branch ${branch}`);
  for (const { row } of recent()) add(row);
  return out;
}
