/**
 * Lines that stopped parsing — a person's hand edit of a month file (`"answer":"` →
 * `"answer":`), a bad tool — are neither a silent loss nor a reason to stop syncing. After
 * a pull, and in the work tree before a commit, each such line is set aside verbatim into its
 * month's rejects file, and the last good version of the memory it replaced is put back in
 * its place; the person is told once (session start, `memory status`). A line of a newer
 * format is not damaged: it is left for the version that reads it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { keepRejected, monthOfFile, REJECTS_SUFFIX } from '../../export/files.js';
import { decodeLine, idEdits } from '../../export/jsonl.js';
import { exportJsonlMatcher } from '../../sync/memory-files.js';
import { idOfWholeLine } from '../../export/jsonl.js';
import { idsPresent, lostLines, type LineChange } from '../../sync/history.js';
import { type Repo } from '../../sync/process.js';
import { updateSyncState } from '../../sync/state.js';
import type { Runtime } from '../runtime.js';

/** A memory line that can never be read: not JSON, or JSON that is not a record of this format. */
export function damagedLine(line: string): boolean {
  if (line.trim().length === 0) return false;
  const d = decodeLine(line);
  return !d.ok && (d.reason === 'invalid-json' || d.reason === 'invalid-record');
}

export interface SetAside {
  files: string[];
  lines: number;
  restored: number;
}

/**
 * Mend the memory files that `changes` touched: damaged added lines out (into the rejects
 * file), and removed good lines whose memory no whole line holds any more back in their
 * place. Writes the work tree only; says what it did, or undefined when nothing was damaged.
 */
export async function mendChanges(rt: Runtime, repo: Repo, rel: string, changes: LineChange[], at: string): Promise<SetAside | undefined> {
  const isMemory = exportJsonlMatcher(repo, rt.config.general.export_dir);
  const damaged = changes
    .filter((c) => isMemory(c.path) && !c.path.endsWith(REJECTS_SUFFIX))
    .map((c) => ({ c, bad: new Set([...c.added.filter(damagedLine), ...idEdits(c.removed, c.added)]) }))
    .filter((d) => d.bad.size > 0);
  if (damaged.length === 0) return undefined;
  const wanted = new Set<string>();
  for (const { c } of damaged) for (const l of c.removed) if (!damagedLine(l)) addId(wanted, l);
  const present = await idsPresent(repo, at, rel, wanted);
  const out: SetAside = { files: [], lines: 0, restored: 0 };
  for (const { c, bad } of damaged) {
    const seen = new Set<string>();
    const restore = c.removed.filter((l) => {
      const id = idOfWholeLine(l);
      if (id === undefined || present.has(id) || seen.has(l)) return false;
      seen.add(l);
      return true;
    });
    const abs = join(repo.root, c.path);
    const lines = readFileSync(abs, 'utf8').split('\n').filter((l) => l.length > 0);
    const kept: string[] = [];
    let placed = false;
    for (const l of lines) {
      if (!bad.has(l)) kept.push(l);
      else if (!placed) {
        kept.push(...restore);
        placed = true;
      }
    }
    if (!placed) kept.push(...restore);
    keepRejected(rt.config.general.export_dir, monthOfFile(c.path), [...bad]);
    writeFileSync(abs, kept.length > 0 ? `${kept.join('\n')}\n` : '');
    out.files.push(c.path);
    out.lines += bad.size;
    out.restored += restore.length;
  }
  tell(rt, repo, out);
  return out;
}

/** Lines the work tree's memory files held that no longer parse (restoreShrunkMemoryFiles took them out): kept in the rejects files, and told. */
export function keepSetAside(rt: Runtime, repo: Repo, setAside: Map<string, string[]>): SetAside {
  const out: SetAside = { files: [...setAside.keys()], lines: 0, restored: 0 };
  for (const [path, lines] of setAside) {
    keepRejected(rt.config.general.export_dir, monthOfFile(path), lines);
    out.lines += lines.length;
  }
  tell(rt, repo, out);
  return out;
}

function tell(rt: Runtime, repo: Repo, s: SetAside): void {
  rt.log.warn(`memory files: ${describeSetAside(s)}`);
  updateSyncState(repo.gitDir, (st) => (st.set_aside = [...(st.set_aside ?? []), { at: rt.now().toISOString(), ...s }].slice(-20)));
}

function addId(into: Set<string>, line: string): void {
  const id = idOfWholeLine(line);
  if (id !== undefined) into.add(id);
}

/** What a pull brought, mended and committed with `commit` (passed to pullRebase as its `repair`); `rel`: the export folder in the repository. */
export function repairPulled(rt: Runtime, repo: Repo, rel: string, commit: (message: string) => Promise<unknown>): (before: string) => Promise<string | undefined> {
  return async (before) => {
    const mended = await mendChanges(rt, repo, rel, await lostLines(repo, before, 'HEAD', rel), 'HEAD');
    if (!mended) return undefined;
    await commit(`memory: ${rt.config.general.machine_name} sets aside ${mended.lines} damaged line(s)`);
    return describeSetAside(mended);
  };
}

export function describeSetAside(s: SetAside): string {
  return `${s.lines} line(s) of ${s.files.join(', ')} no longer parsed (edited by hand?): set aside in the month's rejects file${s.restored > 0 ? `, and the last good version of ${s.restored} memor${s.restored === 1 ? 'y' : 'ies'} kept in force` : ''}`;
}
