/**
 * A team's cache and accepted projects, read on the per-prompt recall's light path: fs, the
 * TOML parser and SQLite only (no git, no privacy tables, no model). The cache is taken as it is
 * (never caught up here: session start does that), and undefined before the team's first pull.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { workDirFor } from '../config/paths.js';
import type { Config, TeamConfig } from '../config/schema.js';
import { modelIdOf } from '../embed/embedder.js';
import { openCacheAsIs, type CacheOptions } from '../store/cache.js';
import type { MemoryRow, Store } from '../store/store.js';
import { latestDecisions, readDecisions } from './decisions.js';
import { splitTeamId } from './files.js';
import { parseManifest, MANIFEST_FILE, type TeamManifest } from './manifest.js';

export function teamFolder(baseDir: string, team: string): string {
  return join(workDirFor(baseDir), 'teams', team);
}

export function manifestAsIs(baseDir: string, team: string): TeamManifest | undefined {
  const p = join(teamFolder(baseDir, team), 'repo', MANIFEST_FILE);
  if (!existsSync(p)) return undefined;
  try {
    return parseManifest(readFileSync(p, 'utf8'), MANIFEST_FILE);
  } catch {
    return undefined;
  }
}

export function teamCacheAsIs(baseDir: string, team: string, identity: Pick<CacheOptions, 'model' | 'dim'>): Store | undefined {
  const dir = teamFolder(baseDir, team);
  return openCacheAsIs({ ...identity, dbPath: join(dir, 'memory.db'), exportDir: join(dir, 'repo') });
}

/** A team's memory this person is not to be given: hidden by them (`memory forget`), or their own (the personal copy is the one given). */
export function hiddenIn(team: Pick<TeamConfig, 'name' | 'handle'>, decisions: ReadonlyMap<string, unknown>, personal: Pick<Store, 'byId'> | undefined): (row: Pick<MemoryRow, 'id'>) => boolean {
  return (row) => {
    const s = splitTeamId(row.id);
    if (!s) return false;
    return decisions.has(`${team.name}\u0000hide:${s.author}/${s.id}`) || (s.author === team.handle && personal?.byId(s.id) !== undefined);
  };
}

/** A team that reads the repository at hand, its cache as it is, for a hook. */
export interface TeamHere {
  name: string;
  store: Store;
  /** The team cache's filing of the repository's project. */
  project: string;
  /** A row this person is not to be given: hidden by them (`memory forget`), or their own (the personal copy is the one given). */
  hidden: (row: Pick<MemoryRow, 'id'>) => boolean;
}

/**
 * The person's teams that accept the repository `repoKey`, with their caches as they are (a
 * team never pulled, or whose cache cannot be opened now, is left out). The caller closes
 * each store.
 */
export function teamsHere(config: Pick<Config, 'baseDir' | 'teams' | 'general' | 'embedding'>, repoKey: string, personal: Pick<Store, 'byId'>): TeamHere[] {
  const decisions = latestDecisions(readDecisions(config.general.export_dir));
  const out: TeamHere[] = [];
  for (const team of config.teams) {
    const accepted = manifestAsIs(config.baseDir, team.name)?.projects.find((p) => p.repo === repoKey);
    if (!accepted) continue;
    const store = teamCacheAsIs(config.baseDir, team.name, { model: modelIdOf(config.embedding.model), dim: config.embedding.dim });
    if (!store) continue;
    out.push({ name: team.name, store, project: store.projects.resolveProject(accepted.repo), hidden: hiddenIn(team, decisions, personal) });
  }
  return out;
}
