/**
 * A team's cache and accepted projects, read on the per-prompt recall's light path: fs, the
 * TOML parser and SQLite only (no git, no privacy tables, no model). The cache is taken as it is
 * (never caught up here: session start does that), and undefined before the team's first pull.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { workDirFor } from '../config/paths.js';
import { openCacheAsIs, type CacheOptions } from '../store/cache.js';
import type { Store } from '../store/store.js';
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
