/**
 * The registry: which name each repository's memories are filed under, as a pure function of
 * its inputs — every repository the memories name, with the time of its first memory (the
 * oldest keeps the short name: names.ts assignNames) and the aliases of `memory projects
 * merge` (aliases.ts). The same memories and aliases give the same names on every machine.
 * The cache keeps what it computes (store.ts); nothing here reads a file or `.git`.
 */
import { parseAliases, type ProjectAlias } from './aliases.js';
import { folderNameNow } from './label.js';
import { assignNames, candidateNames, nameForNew, type ProjectPlace } from './names.js';
import { normalizeRemoteUrl } from './remote-url.js';

export class ProjectRegistry {
  /** Repository key → the names a capture may have given it (a hash each: once per key). */
  private readonly candidates = new Map<string, string[]>();

  constructor(
    /** Repository key → project name. */
    readonly names: Map<string, string>,
    readonly aliases: Map<string, ProjectAlias>,
  ) {}

  /** From its inputs: each repository with its first memory's time, and the aliases file's text. */
  static of(repos: Array<{ key: string; first: number }>, aliasText: string): ProjectRegistry {
    return new ProjectRegistry(assignNames(repos), parseAliases(aliasText));
  }

  /** The registry's name for a repository (or the one it would get as the newest). */
  repoName(key: string): string {
    return nameForNew(key, this.names);
  }

  /** A name with the aliases applied (chains followed, a cycle stops where it closes). */
  aliased(name: string): string {
    let cur = name;
    const seen = new Set<string>([cur]);
    for (;;) {
      const a = this.aliases.get(cur);
      if (!a) return cur;
      const next = a.repo && this.names.has(a.repo) ? (this.names.get(a.repo) as string) : a.to;
      if (seen.has(next)) return cur;
      seen.add(next);
      cur = next;
    }
  }

  /**
   * The project a memory is filed under: `raw` the name it was captured under, `repo` its
   * repository, `here` (memories from before repositories were recorded) the repository its
   * folder is in on this machine, `cwd` its folder. A name the capture derived from the
   * repository follows the registry, one derived from a folder outside git the folder's name as
   * projectName gives it now (`日記` was `machine`); a configured project (`[general] project`)
   * stays what it was.
   */
  projectOf(raw: string | null, repo: string | null, here: string | null, cwd?: string | null): string | null {
    let base = raw;
    if (repo) {
      let cands = this.candidates.get(repo);
      if (!cands) {
        cands = candidateNames(repo);
        this.candidates.set(repo, cands);
      }
      if (raw === null || cands.includes(raw)) base = this.repoName(repo);
    } else if (here) base = this.repoName(here);
    else if (raw !== null && cwd) base = folderNameNow(raw, cwd);
    return base === null ? null : this.aliased(base);
  }

  /** A place found without the registry, named as its memories are filed (registry, aliases). */
  filed(place: ProjectPlace, configured: string | undefined): ProjectPlace {
    const base = !configured && place.repo ? this.repoName(place.repo.key) : place.name;
    return { ...place, name: this.aliased(base) };
  }

  /** The name of a repository given by its key or a remote URL (or a `folder:` name), if it has one. */
  nameOfRepository(arg: string): string | undefined {
    const key = normalizeRemoteUrl(arg) ?? arg.toLowerCase();
    const name = this.names.get(key) ?? this.names.get(`folder:${arg}`);
    return name === undefined ? undefined : this.aliased(name);
  }

  /** The names as the cache keeps them: sorted, so equal registries compare equal. */
  namesJson(): string {
    return JSON.stringify(Object.fromEntries([...this.names].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));
  }
}
