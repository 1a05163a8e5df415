/**
 * The memory repository: created on first use in the memory home, recognised when a person
 * cloned the memory remote there by hand, and refused when an export folder lies inside a
 * repository the person works in (memories are never committed on a branch of theirs).
 */
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { HealthError } from '../errors.js';
import { later } from '../later.js';
import { ourGitArgs, type Repo } from '../sync/process.js';
import { homeMarkerPath, MEMORY_BRANCH, SETTINGS_FILES } from './place.js';

/** What a new memory home ignores: the cache, this machine's settings, our lock files. */
const HOME_GITIGNORE = ['# memory-engine: what stays on this machine', '.cache/', 'config.local.toml', '*.lock', '*.db', '*.db-wal', '*.db-shm', ''].join('\n');

/** Memory files merge as append-only lines everywhere, also for a person's own `git` (see DESIGN.md). */
const HOME_GITATTRIBUTES = ['# memory-engine: memories are append-only lines; a merge keeps both sides', '*.jsonl text eol=lf', 'export/**/*.jsonl merge=union', '*.toml text eol=lf', ''].join('\n');

const childProcess = later<typeof import('node:child_process')>('node:child_process');

function gitSync(cwd: string, args: string[]): string {
  return childProcess().execFileSync('git', [...ourGitArgs(), ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

function gitOr(cwd: string, args: string[]): string | undefined {
  try {
    return gitSync(cwd, args);
  } catch {
    return undefined;
  }
}

export interface HomeSetup {
  /** The repository was made now. */
  created: boolean;
  /** A hand-made clone of the memory remote was put on its memory branch now. */
  checkedOut?: string;
}

/**
 * The memory home as a repository of memory data only: `git init` on the fixed branch with
 * `.gitignore` and `.gitattributes`, marked as ours. A folder a person filled with
 * `git clone <memory remote>` is kept as it is (it is joining, not leaking): if the clone
 * could not check anything out (the remote's HEAD names another branch), the memory branch is
 * checked out. Cheap when there is nothing to do: a few file checks.
 */
export function ensureMemoryHome(home: string, settingsTemplate?: string, env: NodeJS.ProcessEnv = process.env): HomeSetup {
  const gitDir = join(home, '.git');
  const setup: HomeSetup = { created: false };
  const marked = existsSync(homeMarkerPath(gitDir));
  const born = !marked && existsSync(gitDir) && gitOr(home, ['rev-parse', '--verify', '-q', 'HEAD']) !== undefined;
  if (born) refuseProjectHome(home, env);
  mkdirSync(join(home, 'export'), { recursive: true, mode: 0o700 });
  if (!existsSync(gitDir)) {
    gitSync(home, ['init', '-q']);
    // Not `init -b`: the branch is ours whatever init.defaultBranch says, on any git.
    gitSync(home, ['symbolic-ref', 'HEAD', `refs/heads/${MEMORY_BRANCH}`]);
    setup.created = true;
  } else if (marked) {
    return setup;
  } else if (born) {
    /* joining: marked below */
  } else {
    // An unborn clone: its remote's HEAD named a branch that does not exist there.
    const remote = gitOr(home, ['for-each-ref', '--format=%(refname)', `refs/remotes/*/${MEMORY_BRANCH}`])?.split('\n')[0];
    if (remote) {
      gitSync(home, ['checkout', '-q', '-B', MEMORY_BRANCH, '--track', remote.replace(/^refs\/remotes\//, '')]);
      setup.checkedOut = MEMORY_BRANCH;
    } else {
      gitSync(home, ['symbolic-ref', 'HEAD', `refs/heads/${MEMORY_BRANCH}`]);
    }
  }
  if (!existsSync(join(home, '.gitignore'))) writeFileSync(join(home, '.gitignore'), HOME_GITIGNORE);
  if (!existsSync(join(home, '.gitattributes'))) writeFileSync(join(home, '.gitattributes'), HOME_GITATTRIBUTES);
  // The settings every machine shares, documented: the package's defaults, to edit.
  if (settingsTemplate && !existsSync(join(home, 'config.toml')) && existsSync(settingsTemplate)) copyFileSync(settingsTemplate, join(home, 'config.toml'));
  writeFileSync(homeMarkerPath(gitDir), `memory-engine memory repository, ${new Date().toISOString()}\n`);
  return setup;
}

/**
 * A memory home folder that is already a git repository we did not make: a hand-made clone of
 * the memory remote (memory data only) is joining; a project — files other than memories
 * tracked there — is refused with what to do, before anything is written there.
 */
export function refuseProjectHome(home: string, env: NodeJS.ProcessEnv): void {
  if (!existsSync(join(home, '.git')) || existsSync(homeMarkerPath(join(home, '.git')))) return;
  const foreign = foreignPaths((gitOr(home, ['ls-files', '--full-name']) ?? '').split('\n'), 'export');
  if (foreign.length === 0) return;
  const named = env.MEMORY_HOME ? 'MEMORY_HOME names' : 'the memory home is';
  throw new HealthError(
    'home',
    home,
    `${named} ${home}, a git repository that holds other files than memories (${foreign.slice(0, 3).join(', ')}): memories are never committed on a branch you work on, so nothing was written there`,
    env.MEMORY_HOME ? 'point MEMORY_HOME at a folder of its own (a new or empty one), or unset it to use the default memory home' : 'move that repository away: the memory home is a repository of memory data only',
  );
}

/** The paths a memory repository holds besides the export folder, as git names them. */
export function settingsPaths(repo: Repo): string[] {
  return SETTINGS_FILES.filter((f) => existsSync(join(repo.root, f)));
}

/** Tracked paths that are not memory data (at most a few, for the message). */
function foreignPaths(paths: string[], exportRel: string): string[] {
  const prefix = exportRel === '' ? '' : `${exportRel}/`;
  return paths.filter((p) => p.length > 0 && !p.startsWith(prefix) && !(SETTINGS_FILES as readonly string[]).includes(p));
}

/** A tree (a fetched branch) that holds memory data only: what another machine's home pushed. */
export function treeIsMemoryData(repo: Repo, ref: string, exportRel = 'export'): boolean {
  const files = gitOr(repo.root, ['ls-tree', '-r', '--name-only', ref]);
  return files !== undefined && foreignPaths(files.split('\n'), exportRel).length === 0;
}

/**
 * Whether `repo` may hold memory commits: ours (marked), or one that tracks nothing but
 * memory data (a memory repository made by hand or by an earlier version; marked now). A
 * repository with other files — a project, the tool's own checkout — never gets a memory
 * commit: that is the branch a person works on and pushes.
 */
export function judgeMemoryRepository(repo: Repo, exportDir: string, mark = true): { ok: true } | { ok: false; examples: string[] } {
  const marker = homeMarkerPath(repo.gitDir);
  if (existsSync(marker)) return { ok: true };
  const rel = relative(repo.root, exportDir).split('\\').join('/');
  const tracked = gitOr(repo.root, ['ls-files', '--full-name']) ?? '';
  const foreign = foreignPaths(tracked.split('\n'), rel);
  if (foreign.length > 0) return { ok: false, examples: foreign.slice(0, 3) };
  if (mark) writeFileSync(marker, `memory-engine memory repository (judged: memory data only), ${new Date().toISOString()}\n`);
  return { ok: true };
}

export function notAMemoryRepository(repo: Repo, exportDir: string, examples: string[], home: string): HealthError {
  return new HealthError(
    'export',
    exportDir,
    `the export folder ${exportDir} is inside the git repository ${repo.root}, which holds other files than memories (${examples.join(', ')}): memories are never committed on a branch you work on, so nothing was written there`,
    `point [general] export_dir to a folder of its own, or leave it unset to use the memory home ${home}`,
  );
}
