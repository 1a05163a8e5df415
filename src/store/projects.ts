/**
 * Filing memories under projects, in the cache: the registry (project/registry.ts) computed
 * from the memories and the aliases file, kept in meta, and every memory re-filed when it
 * changes; what a `--project` argument means; the project list. The folders of memories that
 * name no repository are asked about after an ingest, through the resolver the cache was
 * opened with (project/repository.ts), never while reading.
 */
import type { ProjectAlias } from '../project/aliases.js';
import { parseAliases, readAliasText } from '../project/aliases.js';
import type { ProjectPlace } from '../project/names.js';
import { projectLabel, projectName } from '../project/label.js';
import { ProjectRegistry } from '../project/registry.js';
import type { DB } from './database.js';
import { sha1 } from '../later.js';

/** A project as `memory projects` lists it. */
export interface ProjectInfo {
  project: string;
  memories: number;
  machines: string[];
  /** Repository keys its memories belong to (recorded, or found from their folder on this machine). */
  repos: string[];
  /** Names its memories were captured under that now file under it (old names, merged projects). */
  names: string[];
  last: string;
}

/** What filing needs of the store: its meta, its transactions, and moving a vector to another project. */
export interface FilingHost {
  meta(key: string): string | undefined;
  setMeta(key: string, value: string): void;
  transaction<T>(fn: () => T): T;
  movePartition(rowid: number, project: string): void;
}

export class ProjectFiling {
  /** The registry as last computed from the memories and the aliases (kept in meta); read on first use. */
  private registryNow: ProjectRegistry | undefined;

  constructor(
    private readonly db: DB,
    private readonly host: FilingHost,
    private readonly exportDir: string,
    private readonly repoOfFolder: ((cwd: string) => string | undefined) | undefined,
  ) {}

  private get registry(): ProjectRegistry {
    if (!this.registryNow) {
      let names = new Map<string, string>();
      try {
        names = new Map(Object.entries(JSON.parse(this.host.meta('project_names') ?? '{}') as Record<string, string>));
      } catch {
        /* recomputed at the next refresh */
      }
      this.registryNow = new ProjectRegistry(names, parseAliases(readAliasText(this.exportDir)));
    }
    return this.registryNow;
  }

  /** The registry's name for a repository (or the one it would get as the newest). */
  repoName(key: string): string {
    return this.registry.repoName(key);
  }

  /** A place found without the registry, named as its memories are filed here (registry, aliases). */
  filed(place: ProjectPlace, configured: string | undefined): ProjectPlace {
    return this.registry.filed(place, configured);
  }

  /** The registry: repository key → name. */
  repoNames(): Map<string, string> {
    return new Map(this.registry.names);
  }

  aliasList(): ProjectAlias[] {
    return [...this.registry.aliases.values()];
  }

  /** The project a memory is filed under here. */
  projectOf(raw: string | null, repo: string | null, here: string | null, cwd?: string | null): string | null {
    return this.registry.projectOf(raw, repo, here, cwd);
  }

  /**
   * Memories that name no repository, from folders not asked about yet: the repository each
   * folder is in on this machine (`identity.repoOfFolder`), once per folder. Returns whether
   * any was found (their project may change).
   */
  private fileByFolder(): boolean {
    const resolve = this.repoOfFolder;
    if (!resolve) return false;
    const cwds = this.db.prepare<[], { cwd: string }>('SELECT DISTINCT cwd FROM memories WHERE repo IS NULL AND repo_here IS NULL AND cwd IS NOT NULL').all();
    if (cwds.length === 0) return false;
    let found = false;
    const set = this.db.prepare('UPDATE memories SET repo_here = ? WHERE repo IS NULL AND repo_here IS NULL AND cwd = ?');
    this.host.transaction(() => {
      for (const { cwd } of cwds) {
        const key = resolve(cwd) ?? '';
        if (key !== '') found = true;
        set.run(key, cwd);
      }
    });
    return found;
  }

  /**
   * After an ingest: recompute the registry, and when it or the aliases changed, re-file
   * every memory whose project changes (vec0 partitions included). Returns memories moved.
   */
  refreshProjects(ingested = true): number {
    const aliasText = readAliasText(this.exportDir);
    const aliasHash = sha1().update(aliasText).digest('hex');
    // Nothing read and no alias changed: the registry cannot have changed either.
    if (!ingested && aliasHash === this.host.meta('project_aliases')) return 0;
    const byFolder = ingested && this.fileByFolder();
    // Tombstones carry no repo: the covering index (repo, ts_ms) answers this alone.
    const repos = this.db.prepare<[], { key: string; first: number }>('SELECT repo AS key, MIN(ts_ms) AS first FROM memories WHERE repo IS NOT NULL GROUP BY repo').all();
    const registry = ProjectRegistry.of(repos, aliasText);
    const namesJson = registry.namesJson();
    this.registryNow = registry;
    if (!byFolder && namesJson === (this.host.meta('project_names') ?? '{}') && aliasHash === this.host.meta('project_aliases')) return 0;
    let moved = 0;
    this.host.transaction(() => {
      const combos = this.db
        .prepare<[], { project: string | null; project_raw: string | null; repo: string | null; repo_here: string | null; cwd: string | null }>(
          'SELECT DISTINCT project, project_raw, repo, repo_here, cwd FROM memories WHERE deleted = 0',
        )
        .all();
      for (const c of combos) {
        const want = this.projectOf(c.project_raw, c.repo, c.repo_here, c.cwd);
        if (want === c.project) continue;
        const rows = this.db
          .prepare<unknown[], { rowid: number; has_vector: number }>(
            'SELECT rowid, has_vector FROM memories WHERE deleted = 0 AND project IS ? AND project_raw IS ? AND repo IS ? AND repo_here IS ? AND cwd IS ?',
          )
          .all(c.project, c.project_raw, c.repo, c.repo_here, c.cwd);
        const set = this.db.prepare('UPDATE memories SET project = ? WHERE rowid = ?');
        for (const r of rows) {
          set.run(want, r.rowid);
          if (r.has_vector === 1) this.host.movePartition(r.rowid, want ?? '');
          moved++;
        }
      }
      this.host.setMeta('project_names', namesJson);
      this.host.setMeta('project_aliases', aliasHash);
    });
    return moved;
  }

  /**
   * What a `--project` argument means: a project name as it is filed here, an old name
   * (through its alias), a repository key or remote URL (its name). Unknown names stay as given.
   */
  resolveProject(given: string): string {
    // A name as people read it (`決済`) is the name it is filed under (`xn--1tw26a`).
    const encoded = projectName(given);
    const arg = !given.includes('/') && encoded !== given && projectLabel(encoded) === given ? encoded : given;
    if (this.db.prepare('SELECT 1 FROM memories WHERE project = ? AND +deleted = 0 LIMIT 1').get(arg) !== undefined) return arg;
    const aliased = this.registry.aliased(arg);
    if (aliased !== arg) return aliased;
    const name = this.registry.nameOfRepository(arg);
    if (name) return name;
    // A repository key (a name never holds '/') that no memory here is of: nothing to look for.
    if (arg.includes('/')) return arg;
    // A name memories were captured under before they joined their repository (feat-x).
    const joined = this.db
      .prepare<[string], { project: string | null }>('SELECT project FROM memories WHERE project_raw = ? AND deleted = 0 GROUP BY project ORDER BY count(*) DESC LIMIT 1')
      .get(arg)?.project;
    return joined ?? arg;
  }

  /** Every project with its memories, machines, repositories and the old names filed under it. */
  projectList(): ProjectInfo[] {
    const rows = this.db
      .prepare<[], { project: string | null; n: number; machines: string; repos: string | null; raws: string | null; last: string }>(
        `SELECT project, count(*) AS n, group_concat(DISTINCT machine) AS machines,
           group_concat(DISTINCT COALESCE(repo, NULLIF(repo_here, ''))) AS repos, group_concat(DISTINCT project_raw) AS raws, MAX(timestamp) AS last
         FROM memories WHERE deleted = 0 GROUP BY project ORDER BY n DESC, project`,
      )
      .all();
    const split = (s: string | null) => (s ? s.split(',').filter((x) => x !== '').sort() : []);
    return rows.map((r) => ({
      project: r.project ?? '-',
      memories: r.n,
      machines: split(r.machines),
      repos: split(r.repos),
      names: split(r.raws).filter((x) => x !== r.project),
      last: r.last,
    }));
  }
}
