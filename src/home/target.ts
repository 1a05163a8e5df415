/**
 * The one answer to "which repository do memory writes go to": every writer (through
 * app/sync/locks.ts), every reader that reports on it (status, doctor, the viewer's overview) and
 * the machine-name fix ask here, so no two of them can disagree — the gaps between five
 * answers let an export folder inside a project pass as ok, and a MEMORY_HOME naming a project
 * be adopted as a memory home.
 *
 * - A memory home (the configuration's `home`): its own folder's repository, made on first use
 *   when `make` says so; a hand-made clone of the memory remote there is joining. A folder that
 *   is a repository holding other files (a project) is refused, never adopted. Before it is
 *   made, there is no repository — never the one that happens to enclose the folder.
 * - Otherwise (`--config` naming its own `export_dir`): the repository that holds the export
 *   folder, refused when it holds other files than memories.
 * - No git on this machine: none (captures are kept in the export folder, uncommitted, and
 *   the person is told).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { findRepo, gitProgram, type Repo } from '../sync/process.js';
import { memoryHomeFor, MEMORY_BRANCH } from './place.js';
import { ensureMemoryHome, judgeMemoryRepository, notAMemoryRepository } from './repository.js';

export interface TargetConfig {
  home?: string;
  general: { export_dir: string };
}

export interface TargetOptions {
  /** Make the memory home's repository if it is not there yet (writers); readers never do. */
  make: boolean;
  /** The settings a new home starts with (the package's documented config.toml). */
  settingsTemplate?: string;
  env?: NodeJS.ProcessEnv;
  info?: (message: string) => void;
}

/** Whether `repo` is this configuration's memory home (settings committed, unrelated homes joined, origin adopted). */
export function isHomeRepository(config: Pick<TargetConfig, 'home'>, repo: Repo): boolean {
  return config.home !== undefined && resolve(repo.root) === resolve(config.home);
}

function nearestExisting(dir: string): string {
  let d = resolve(dir);
  while (!existsSync(d) && dirname(d) !== d) d = dirname(d);
  return d;
}

/** The memory repository of a configuration, or undefined (not made yet; no git); throws HealthError when it must not be written. */
export async function memoryRepository(config: TargetConfig, opts: TargetOptions): Promise<Repo | undefined> {
  const { home } = config;
  if (!gitProgram().ok) {
    // No git: captures are kept in the export folder, uncommitted (app/session/health.ts tells it).
    if (opts.make) mkdirSync(config.general.export_dir, { recursive: true });
    return undefined;
  }
  if (home) {
    if (opts.make) {
      const setup = ensureMemoryHome(home, opts.settingsTemplate, opts.env ?? process.env);
      if (setup.created) opts.info?.(`created the memory repository ${home} (branch ${MEMORY_BRANCH})`);
      if (setup.checkedOut) opts.info?.(`the memory repository ${home} is a clone of the memory remote: checked out its branch ${setup.checkedOut}`);
    } else if (!existsSync(join(home, '.git'))) {
      return undefined; // not made yet: never the repository that encloses the folder
    }
  }
  // The folder may not exist yet (a fresh clone of an empty memory repository): writers create it anyway.
  if (opts.make) mkdirSync(config.general.export_dir, { recursive: true });
  // A reader asks from the nearest folder that exists: an export folder not made yet inside a
  // project is still inside that project.
  const repo = await findRepo(opts.make ? config.general.export_dir : nearestExisting(config.general.export_dir));
  if (!repo || isHomeRepository(config, repo)) return repo;
  const judged = judgeMemoryRepository(repo, config.general.export_dir, opts.make);
  if (!judged.ok) throw notAMemoryRepository(repo, config.general.export_dir, judged.examples, home ?? memoryHomeFor(opts.env ?? process.env));
  return repo;
}

