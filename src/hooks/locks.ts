/** The per-repository lock every writer of the export folder takes (capture, forget, merge). */
import { join } from 'node:path';
import { withLockAsync } from '../export/lock.js';
import { clearStaleIndexLock, findRepo, recoverInterruptedRebase, repoLockPath, type Repo } from '../sync/git.js';
import type { Runtime } from './runtime.js';
import { prepareRepo } from './sync-run.js';

export async function exportLock(rt: Runtime): Promise<{ lock: string; repo: Repo | undefined }> {
  const repo = await findRepo(rt.config.general.export_dir);
  return { lock: repo ? repoLockPath(repo) : join(rt.config.general.export_dir, '.memory.lock'), repo };
}

/**
 * Run `fn` holding the repository lock, with memory files marked append-only for git and
 * after aborting a rebase an interrupted run left open.
 */
export async function captureLockFor(rt: Runtime, timeoutMs = 10 * 60_000): Promise<{ repo: Repo | undefined; lock: <T>(fn: () => Promise<T>) => Promise<T> }> {
  const { lock, repo } = await exportLock(rt);
  return {
    repo,
    lock: (fn) =>
      withLockAsync(lock, { timeoutMs, purpose: 'the memory repository' }, async () => {
        if (repo) prepareRepo(rt, repo);
        if (repo && clearStaleIndexLock(repo)) rt.log.warn('removed a stale .git/index.lock left by an interrupted git command');
        if (repo && (await recoverInterruptedRebase(repo))) rt.log.warn('aborted a rebase left open by an interrupted run');
        return fn();
      }),
  };
}
