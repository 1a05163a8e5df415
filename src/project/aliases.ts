/**
 * Project aliases (`memory projects merge OLD NEW`): one JSON line each in
 * `<export>/project-aliases.jsonl`, in the memory repository beside the memories, so every
 * machine files OLD's memories under NEW without any memory being rewritten. Lines are only
 * appended (`merge=union` like every JSONL there); for one OLD the latest line wins.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoKey } from './remote-url.js';

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

/**
 * The alias in force for each old name: lines applied in time order, the latest for a name
 * winning; a line that would close a cycle (A → B, later B → A) retires the older link, so the
 * latest merge is what holds. A line whose `to` is its `from` undoes the name's alias.
 */
export function parseAliases(text: string): Map<string, ProjectAlias> {
  const all: ProjectAlias[] = [];
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
    all.push({ from: a.from, to: a.to, at: a.at, machine: typeof a.machine === 'string' ? a.machine : '', ...(typeof a.repo === 'string' ? { repo: repoKey(a.repo) } : {}) });
  }
  // Time order, then a fixed order for equal times: every machine ends with the same map.
  all.sort((x, y) => (x.at < y.at ? -1 : x.at > y.at ? 1 : x.from < y.from ? -1 : x.from > y.from ? 1 : 0));
  const out = new Map<string, ProjectAlias>();
  for (const a of all) {
    if (a.to === a.from) {
      out.delete(a.from);
      continue;
    }
    out.set(a.from, a);
    const seen = new Set<string>([a.from]);
    for (let cur = a.to; ; ) {
      const next = out.get(cur);
      if (!next) break;
      if (next.to === a.from) {
        out.delete(cur);
        break;
      }
      if (seen.has(next.to)) break;
      seen.add(cur);
      cur = next.to;
    }
  }
  return out;
}

/**
 * Append a merge. The latest line wins, so its time is held after every line already there:
 * a line from a machine whose clock ran ahead (dated next year) must not outrank every merge
 * made after it for good.
 */
export function appendAlias(exportDir: string, alias: ProjectAlias): string {
  mkdirSync(exportDir, { recursive: true });
  const p = aliasesPath(exportDir);
  const text = readAliasText(exportDir);
  let latest = 0;
  for (const line of text.split('\n')) {
    const at = /"at":"([^"]+)"/.exec(line)?.[1];
    const ms = at ? Date.parse(at) : Number.NaN;
    if (Number.isFinite(ms) && ms > latest) latest = ms;
  }
  const at = Date.parse(alias.at);
  const held = Number.isFinite(at) && at > latest ? alias.at : new Date(latest + 1).toISOString();
  appendFileSync(p, `${text === '' || text.endsWith('\n') ? '' : '\n'}${JSON.stringify({ v: 1, ...alias, at: held })}\n`);
  return p;
}
