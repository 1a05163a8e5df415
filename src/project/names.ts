/**
 * The names a repository's memories go under: pure, the same on every machine (no file or
 * `.git` read here; where a folder is: place.ts).
 */
import { sanitizeName } from '../config/validate.js';
import { projectName, suffixed } from './label.js';
import type { RepoIdentity } from './repository.js';
import { sha1 } from '../later.js';

/** Where a session is: its repository (when in one) and the name to file it under. */
export interface ProjectPlace {
  name: string;
  repo?: RepoIdentity;
}

/**
 * A repository's names from its path, best first: its short name, then with more of its path.
 * `nameOf`: how a name is made of the path's words (sanitizeName: how it was before projectName).
 */
function pathNames(key: string, nameOf: (raw: string) => string = projectName): string[] {
  if (key.startsWith('folder:')) {
    const folder = nameOf(key.slice('folder:'.length));
    return [folder, suffixed(folder, 'local')];
  }
  const segs = key.split('/');
  const out: string[] = [];
  for (let i = segs.length - 1; i >= 0; i--) out.push(nameOf(segs.slice(i).join('-')));
  return out;
}

/** The last resort: the short name with a hash of the key. */
function hashedName(key: string): string {
  const hash = sha1().update(key).digest('hex').slice(0, 6);
  const short = key.startsWith('folder:') ? projectName(key.slice('folder:'.length)) : projectName(key.split('/').pop() ?? key);
  return suffixed(short, hash);
}

/**
 * The names a repository may go by, best first: its short name, then with more of its path
 * (`acme-api`, `github.com-acme-api`), then with a hash of its key. Pure and the same on
 * every machine, so two repositories that share a short name are told apart alike everywhere.
 * Last, the names a capture gave it before projectName (`machine` for `acme/決済`): memories
 * captured under them are the repository's, and an exclusion written against them holds.
 */
export function candidateNames(key: string): string[] {
  return [...new Set([...pathNames(key), hashedName(key), ...pathNames(key, sanitizeName)])];
}

/**
 * The first of a repository's names not taken, else the hashed one (which no name from a path can
 * equal: it ends in the hash); the hash is only computed when every name from its path is taken.
 */
function firstFree(key: string, taken: Set<string>): string {
  return pathNames(key).find((c) => !taken.has(c)) ?? hashedName(key);
}

/**
 * Names for every repository, the first to be remembered keeping the short name: repositories
 * in order of their first memory (then key), each taking its first candidate not yet taken.
 * The same memories give the same names on every machine.
 */
export function assignNames(repos: Array<{ key: string; first: number }>): Map<string, string> {
  const sorted = [...repos].sort((a, b) => a.first - b.first || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const taken = new Set<string>();
  const names = new Map<string, string>();
  for (const r of sorted) {
    const name = firstFree(r.key, taken);
    taken.add(name);
    names.set(r.key, name);
  }
  return names;
}

/** The name of a repository not among `names` yet: its first candidate no other repository holds. */
export function nameForNew(key: string, names: Map<string, string>): string {
  const known = names.get(key);
  if (known) return known;
  return firstFree(key, new Set(names.values()));
}
