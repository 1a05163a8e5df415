/**
 * Project aliases (`memory projects merge OLD NEW`): one JSON line each in
 * `<export>/project-aliases.jsonl`, in the memory repository beside the memories, so every
 * machine files OLD's memories under NEW without any memory being rewritten. Lines are only
 * appended (`merge=union` like every JSONL there); for one OLD the latest line wins.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const ALIASES_FILE = 'project-aliases.jsonl';

export interface ProjectAlias {
  from: string;
  /** The project name OLD's memories go under. */
  to: string;
  /** NEW's repository key when NEW was a repository's project: followed if its name changes. */
  repo?: string;
  machine: string;
  at: string;
}

export function aliasesPath(exportDir: string): string {
  return join(exportDir, ALIASES_FILE);
}

export function readAliasText(exportDir: string): string {
  const p = aliasesPath(exportDir);
  if (!existsSync(p)) return '';
  try {
    return readFileSync(p, 'utf8');
  } catch {
    return '';
  }
}

/** The alias in force for each old name (the latest line; a line whose `to` is its `from` undoes it). */
export function parseAliases(text: string): Map<string, ProjectAlias> {
  const out = new Map<string, ProjectAlias>();
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let o: unknown;
    try {
      o = JSON.parse(line);
    } catch {
      continue;
    }
    const a = o as Partial<ProjectAlias>;
    if (typeof a.from !== 'string' || typeof a.to !== 'string' || typeof a.at !== 'string' || a.from === '') continue;
    const cur = out.get(a.from);
    if (cur && cur.at > a.at) continue;
    out.set(a.from, { from: a.from, to: a.to, at: a.at, machine: typeof a.machine === 'string' ? a.machine : '', ...(typeof a.repo === 'string' ? { repo: a.repo } : {}) });
  }
  for (const [k, a] of out) if (a.to === a.from) out.delete(k);
  return out;
}

export function appendAlias(exportDir: string, alias: ProjectAlias): string {
  mkdirSync(exportDir, { recursive: true });
  const p = aliasesPath(exportDir);
  const text = readAliasText(exportDir);
  appendFileSync(p, `${text === '' || text.endsWith('\n') ? '' : '\n'}${JSON.stringify({ v: 1, ...alias })}\n`);
  return p;
}
