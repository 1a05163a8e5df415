/**
 * Where a folder is: the one answer every front end asks for — capture, session start,
 * recall, the MCP server — so that none of them derives a project name or an exclusion its
 * own way: the repository (project/repository.ts), the project its memories are filed under,
 * and whether `[privacy] exclude_projects` excludes it, judged on the repository (every name
 * it goes by), the name and the folder (exclude.ts).
 */
import { basename } from 'node:path';
import { isExcludedPlace } from './exclude.js';
import { projectName } from './label.js';
import { candidateNames, nameForNew, type ProjectPlace } from './names.js';
import { repoIdentity, type RepoIdentity } from './repository.js';

export interface Place extends ProjectPlace {
  excluded: boolean;
}

export interface PlaceOptions {
  /** `[general] project`: the name for every session, when set. */
  configured?: string;
  /** `[privacy] exclude_projects`. */
  exclude: string[];
  /** The registry's names (the cache's): a repository named like another is told apart. The name a capture stores. */
  names?: Map<string, string>;
  /** The name as memories are filed here (the cache's registry and aliases): what search and injection use. */
  filed?: { filed(place: ProjectPlace, configured: string | undefined): ProjectPlace };
}

export function placeHere(cwd: string | undefined, opts: PlaceOptions): Place {
  const found = placeOf(cwd, opts.configured, opts.names);
  const place = opts.filed ? opts.filed.filed(found, opts.configured) : found;
  // Excluded by the name it is filed under, or the name it would be captured under.
  const excluded = isExcludedPlace(opts.exclude, place, cwd) || (place.name !== found.name && isExcludedPlace(opts.exclude, found, cwd));
  return { ...place, excluded };
}

/**
 * The repository and project of a folder: the configured project, else the repository's
 * name (`names`: the cache's registry, so a repository named like another is told apart),
 * else the folder's name.
 */
export function placeOf(cwd: string | undefined, configured: string | undefined, names: Map<string, string> = new Map()): ProjectPlace {
  const repo = cwd ? repoIdentity(cwd) : undefined;
  if (configured) return { name: configured, ...(repo ? { repo } : {}) };
  if (repo) return { name: nameForNew(repo.key, names), repo };
  if (!cwd) return { name: 'unknown' };
  return { name: projectName(basename(cwd)) };
}

/** Project name of a folder without the cache's registry (its short name). */
export function projectFor(cwd: string | undefined, configured: string | undefined): string {
  return placeOf(cwd, configured).name;
}

/** The repository of a folder, if `project` is a name it may go by (a note filed under the folder's own repository). */
export function ownRepository(cwd: string, project: string): RepoIdentity | undefined {
  const repo = repoIdentity(cwd);
  return repo && candidateNames(repo.key).includes(project) ? repo : undefined;
}
