/**
 * A team remote's memory files: `<project>/<handle>/<YYYY-MM>_<machine>.jsonl`, and each
 * person's monthly archive `<project>/<handle>/archive/<YYYY-MM>.jsonl`. Who may write a line is
 * where it is: the handle of its folder. A line whose `author` names someone else, whose
 * machine is not its file's, or that a commit added without that author's word (team/verify.ts)
 * is set aside — counted, never ingested — and a team cache keys every memory by
 * `<author>/<id>`, so a line in bob's folder can never replace or tombstone alice's.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ARCHIVE_DIR, type ExportFile } from '../export/files.js';
import { parseMonthFileName } from '../export/jsonl.js';
import { FILE_NAME_SAFE } from '../config/schema.js';
import type { ExportEntry } from '../types.js';

const safe = (n: string) => FILE_NAME_SAFE.test(n) && n !== '.' && n !== '..' && !n.startsWith('.');

function dirs(p: string): string[] {
  try {
    return readdirSync(p, { withFileTypes: true }).filter((d) => d.isDirectory() && safe(d.name)).map((d) => d.name).sort();
  } catch {
    return [];
  }
}

/** Every memory file of a team clone, archives first per folder, in a stable order. */
export function listTeamFiles(root: string): ExportFile[] {
  const out: ExportFile[] = [];
  for (const project of dirs(root)) {
    for (const handle of dirs(join(root, project))) {
      const base = join(root, project, handle);
      const archive = join(base, ARCHIVE_DIR);
      if (existsSync(archive)) {
        for (const name of readdirSync(archive).sort()) {
          const m = /^(\d{4}-\d{2})\.jsonl$/.exec(name);
          if (!m) continue;
          const st = statSync(join(archive, name));
          if (st.isFile()) out.push({ path: join(archive, name), rel: `${project}/${handle}/${ARCHIVE_DIR}/${name}`, month: m[1] as string, size: st.size, mtimeMs: st.mtimeMs });
        }
      }
      for (const name of readdirSync(base).sort()) {
        const p = parseMonthFileName(name);
        if (!p) continue;
        const st = statSync(join(base, name));
        if (st.isFile()) out.push({ path: join(base, name), rel: `${project}/${handle}/${name}`, month: p.month, machine: p.machine, size: st.size, mtimeMs: st.mtimeMs });
      }
    }
  }
  return out;
}

/** Project and handle of a team file, from its path. */
export function folderOf(rel: string): { project: string; handle: string } {
  const [project = '', handle = ''] = rel.split('/');
  return { project, handle };
}

/** The key a set-aside line is known by: its file, id, version time and whether it is a tombstone. */
export function lineKey(rel: string, e: Pick<ExportEntry, 'id' | 'updated_at' | 'machine'> & { deleted?: boolean }): string {
  return `${rel}\u0000${e.id}\u0000${e.updated_at ?? ''}\u0000${e.machine}\u0000${e.deleted === true ? 'x' : ''}`;
}

/** The id a team memory has in a team cache: its author's handle, then its own id. */
export function teamId(handle: string, id: string): string {
  return `${handle}/${id}`;
}

/** The memory's own id and author from a team cache's id. */
export function splitTeamId(id: string): { author: string; id: string } | undefined {
  const i = id.indexOf('/');
  return i > 0 ? { author: id.slice(0, i), id: id.slice(i + 1) } : undefined;
}

/**
 * What a team cache keeps of a line read from `file`: renamed to `<author>/<id>` and attributed,
 * or undefined — set aside — when it is not where its author may write.
 */
export function admitTeamLine(entry: ExportEntry, file: ExportFile, setAside: ReadonlySet<string>): ExportEntry | undefined {
  const { project, handle } = folderOf(file.rel);
  if (!project || !handle) return undefined;
  const author = (entry.extra?.author as unknown) ?? handle;
  if (author !== handle) return undefined;
  // A month file is one machine's: a line of another machine's there was not written by ours.
  if (file.machine !== undefined && entry.machine !== file.machine) return undefined;
  if (setAside.has(lineKey(file.rel, entry as Pick<ExportEntry, 'id' | 'updated_at' | 'machine'> & { deleted?: boolean }))) return undefined;
  return { ...entry, id: teamId(handle, entry.id), extra: { ...entry.extra, author: handle, team_project: project } } as ExportEntry;
}
