/** The per-repository lock every writer of the export folder takes (capture, forget, merge). */
import { join } from 'node:path';
import { withLockAsync } from '../export/lock.js';
import { errorMessage } from '../errors.js';
import { clearStaleIndexLock, ensureUnionMerge, findRepo, recoverInterruptedRebase, repoLockPath, type Repo } from '../sync/git.js';
import type { Runtime } from './runtime.js';

export async function exportLock(rt: Runtime): Promise<{ lock: string; repo: Repo | undefined }> {
  const repo = await findRepo(rt.config.general.export_dir);
  return { lock: repo ? repoLockPath(repo) : join(rt.config.general.export_dir, '.memory.lock'), repo };
}

/** Run `fn` holding the repository lock, after aborting a rebase an interrupted run left open. */
export async function captureLockFor(rt: Runtime, timeoutMs = 10 * 60_000): Promise<{ repo: Repo | undefined; lock: <T>(fn: () => Promise<T>) => Promise<T> }> {
  const { lock, repo } = await exportLock(rt);
  return {
    repo,
    lock: (fn) =>
      withLockAsync(lock, { timeoutMs, purpose: 'the memory repository' }, async () => {
        if (repo) {
          try {
            ensureUnionMerge(repo, rt.config.general.export_dir);
          } catch (err) {
            rt.log.warn(`cannot mark memory files as append-only for git: ${errorMessage(err)}`);
          }
        }
        if (repo && clearStaleIndexLock(repo)) rt.log.warn('removed a stale .git/index.lock left by an interrupted git command');
        if (repo && (await recoverInterruptedRebase(repo))) rt.log.warn('aborted a rebase left open by an interrupted run');
        return fn();
      }),
  };
}
