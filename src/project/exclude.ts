/**
 * `[privacy] exclude_projects`: glob patterns matched against the project name, the
 * session's cwd, and each folder name along the cwd — so `secret-*` also excludes
 * `/home/u/mono/secret-y` (filed as project "mono"), and `**\/secret-client*` or
 * `/work/clients/*` match by path.
 */

import { projectLabel } from './label.js';
import { candidateNames } from './names.js';

function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === '*') {
      if (glob[i + 1] === '*') {
        re += '.*';
        i++;
      } else re += '[^/]*';
    } else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/**
 * Every name a repository goes by, on any machine and after any rename: its key
 * (`github.com/acme/api`) and each name the registry may give it (`api`, `acme-api`,
 * `github.com-acme-api`, `api-<hash>`: names.ts candidateNames). The registry gives
 * the short name to whichever repository has the oldest memory, so a name alone moves; an
 * exclusion written against any of them holds for the repository.
 */
const namesMemo = new Map<string, string[]>();
export function repositoryNames(key: string): string[] {
  let names = namesMemo.get(key);
  if (!names) namesMemo.set(key, (names = [key, ...candidateNames(key)]));
  return names;
}

const present = (v: string | null | undefined): v is string => typeof v === 'string' && v.length > 0;

/** The names given, and every name of each repository key present; each also as people read it (`決済` for `xn--1tw26a`). */
function namesOf(names: string[], repos: Array<string | null | undefined>): string[] {
  const all = [...names, ...repos.filter(present).flatMap(repositoryNames)];
  return [...new Set([...all, ...all.map((n) => projectLabel(n))])];
}

/** Whether a place (the repository a session or folder is in, or a configured project) is excluded. */
export function isExcludedPlace(patterns: string[], place: { name: string; repo?: { key: string } }, cwd: string | undefined): boolean {
  if (patterns.length === 0) return false;
  return isExcluded(patterns, namesOf([place.name], [place.repo?.key]), cwd);
}

/**
 * A search's `hide`: memories of an excluded project (captured before it was excluded)
 * stay out of sight, judged on the name they are filed under, the name they were captured
 * under, their repository (every name it goes by) and their folder. Undefined when nothing
 * is excluded.
 */
export function hideExcluded(
  patterns: string[],
): ((row: { project: string | null; cwd: string | null; repo?: string | null; repo_here?: string | null; project_raw?: string | null }) => boolean) | undefined {
  if (patterns.length === 0) return undefined;
  return (row) => isExcluded(patterns, namesOf([row.project, row.project_raw].filter(present), [row.repo, row.repo_here]), row.cwd ?? undefined);
}

export function isExcluded(patterns: string[], project: string | string[] | undefined, given: string | undefined): boolean {
  // One spelling of each name: a Mac may give a folder made in Finder decomposed (`テ` + `゛`),
  // where the person typed the pattern composed.
  const names = (project === undefined ? [] : Array.isArray(project) ? project : [project]).map((n) => n.normalize('NFC'));
  const cwd = given?.normalize('NFC');
  for (const typed of patterns) {
    const p = typed.normalize('NFC');
    const re = globToRegExp(p);
    if (names.some((n) => re.test(n))) return true;
    if (cwd !== undefined && (re.test(cwd) || re.test(cwd.replace(/\\/g, '/')))) return true;
    // A folder pattern also covers everything below it.
    if (cwd !== undefined && globToRegExp(`${p.replace(/\/+$/, '')}/**`).test(cwd)) return true;
    // A pattern without a slash is a folder name: any folder along the cwd.
    if (cwd !== undefined && !p.includes('/') && cwd.replace(/\\/g, '/').split('/').some((seg) => seg.length > 0 && re.test(seg))) return true;
  }
  return false;
}
