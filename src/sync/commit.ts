/**
 * Commits of ours: what changed under the paths a caller names and nothing else, tagged with
 * the machine and the clone that wrote it; the index lock a killed git left; repacking the
 * loose objects a growing month file piles up.
 */
import { rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { errorMessage } from '../errors.js';
import { PUSH_SILENCE_MS, type Repo, git, ourGit } from './process.js';

/**
 * A git process killed mid-command leaves .git/index.lock behind, and every later git
 * command fails on it. Called only while holding our repository lock, so the only git
 * that could own a fresh lock is a person's; one older than a few seconds is stale.
 */
export function clearStaleIndexLock(repo: Repo, olderThanMs = 2000): boolean {
  const lock = join(repo.gitDir, 'index.lock');
  try {
    if (Date.now() - statSync(lock).mtimeMs < olderThanMs) return false;
    rmSync(lock, { force: true });
    return true;
  } catch {
    return false;
  }
}

/**
 * Stage and commit everything that changed under the export folder, and nothing else
 * (the pathspec keeps a user's unrelated staged work out of our commit).
 */
export async function commitExport(repo: Repo, exportDir: string, message: string, machine: string, cloneId?: string): Promise<{ committed: boolean; sha?: string }> {
  return commitPaths(repo, [relative(repo.root, exportDir) || '.'], message, machine, cloneId);
}

/** Stage and commit what changed under `paths` (repository paths or pathspecs), nothing else. */
export async function commitPaths(repo: Repo, paths: string[], message: string, machine: string, cloneId?: string, trailers: string[] = []): Promise<{ committed: boolean; sha?: string }> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await commitOnce(repo, paths, message, machine, cloneId, trailers);
    } catch (err) {
      const wait = INDEX_LOCK_WAITS_MS[attempt];
      if (wait === undefined || !/index\.lock'?: File exists/.test(errorMessage(err))) throw err;
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}

/**
 * Called under our repository lock, so a fresh .git/index.lock is a git of the person's (an
 * editor refreshing its status, a `rebase --abort`), held for a moment: wait for it this
 * long, a little more each time (3.85 s in all), before the commit is left for next time.
 */
const INDEX_LOCK_WAITS_MS = [100, 250, 500, 1000, 2000];

async function commitOnce(repo: Repo, named: string[], message: string, machine: string, cloneId: string | undefined, extra: string[] = []): Promise<{ committed: boolean; sha?: string }> {
  // Never our lock files (held while this commit runs), nor a file still being written before
  // its rename (`*.tmp-<pid>`: export/files.ts), whatever the repository ignores.
  const paths = [...named, ':(exclude,glob)**/*.lock', ':(exclude,glob)**/*.tmp-*'];
  const g = git(repo.root);
  try {
    await g.raw(['add', '-A', '--', ...paths]);
  } catch (err) {
    // An export folder that holds no file yet (a home just made): nothing to commit, not a failure.
    if (/pathspec .* did not match any files/.test(errorMessage(err))) return { committed: false };
    throw err;
  }
  const staged = (await g.raw(['diff', '--cached', '--name-only', '--', ...paths])).trim();
  if (staged.length === 0) return { committed: false };
  const email = (await g.raw(['config', '--get', 'user.email']).catch(() => '')).trim();
  const name = (await g.raw(['config', '--get', 'user.name']).catch(() => '')).trim();
  // A machine without a git identity must still be able to save its memories.
  const withId = email && name ? g : ourGit(repo.root, undefined, [`user.name=${name || 'memory-engine'}`, `user.email=${email || `memory-engine@${machine}.invalid`}`]);
  // Trailers say which machine name and which clone wrote the commit: a clone that sees
  // its name on another clone's commits tells the user (two laptops called MacBook-Pro).
  const trailers = [`${MACHINE_TRAILER}: ${machine}`, ...(cloneId ? [`${CLONE_TRAILER}: ${cloneId}`] : []), ...extra].join('\n');
  await withId.raw(['commit', '--no-verify', '-q', '-m', message, '-m', trailers, '--', ...paths]);
  const sha = (await g.revparse(['HEAD'])).trim();
  return { committed: true, sha };
}

export const MACHINE_TRAILER = 'Memory-Machine';

export const CLONE_TRAILER = 'Memory-Clone';

/** On a team remote's commits: the handle whose folder the commit writes (team/verify.ts checks it). */
export const AUTHOR_TRAILER = 'Memory-Author';

/** Whether the current branch has a commit yet. */
export async function hasCommits(repo: Repo): Promise<boolean> {
  try {
    await git(repo.root).raw(['rev-parse', '--verify', '-q', 'HEAD']);
    return true;
  } catch {
    return false;
  }
}

/** Size of loose objects in KiB (`git count-objects -v`). */
export async function looseObjectsKb(repo: Repo): Promise<number> {
  const out = await git(repo.root).raw(['count-objects', '-v']);
  const m = /^size: (\d+)$/m.exec(out);
  return m ? Number(m[1]) : 0;
}

/**
 * Pack everything into one pack, so versions of a growing month file are stored as
 * deltas. `git gc --auto` waits for ~6,700 loose objects, and each commit of a 1 MB month
 * file adds a whole compressed copy (measured: 104 MiB of loose objects after 300 commits).
 */
export async function repackAll(repo: Repo): Promise<void> {
  await git(repo.root, PUSH_SILENCE_MS).raw(['repack', '-a', '-d', '-q']);
  await git(repo.root).raw(['prune-packed', '-q']);
}

/** Uncommitted changes under the export folder. */
export async function exportIsDirty(repo: Repo, exportDir: string): Promise<boolean> {
  return (await changedPaths(repo, [relative(repo.root, exportDir) || '.'])).length > 0;
}

/** Repository paths under `paths` that differ from HEAD (added, changed, deleted, untracked). */
export async function changedPaths(repo: Repo, paths: string[]): Promise<string[]> {
  if (paths.length === 0) return [];
  const out = await ourGit(repo.root, undefined, ['core.quotePath=false']).raw(['status', '--porcelain', '--untracked-files=all', '--no-renames', '--', ...paths]);
  return out.split('\n').filter((l) => l.length > 3).map((l) => l.slice(3));
}
