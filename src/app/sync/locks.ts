/**
 * The one way to touch the memory repository. Every writer (the capture worker, session
 * start, init, sync, forget/remember, monthly-merge, scrub, import, rebuild --with-model)
 * goes through `withMemoryRepo`: it takes the per-repository lock, recovers what *we* left
 * behind (a stale index.lock, a rebase we started), and says whether the person's own git
 * work is in progress — then the writer defers instead of committing onto it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { withLockAsync } from '../../export/lock.js';
import { errorMessage, UserError } from '../../errors.js';
import { packageRoot } from '../../config/paths.js';
import { memoryRepository } from '../../home/target.js';
import { moveLegacyMemories } from '../upgrade/upgrade.js';
import { damagedLine, keepSetAside } from './repair.js';
import { updateSyncState } from '../../sync/state.js';
import { clearStaleIndexLock } from '../../sync/commit.js';
import { exportJsonlMatcher, restoreShrunkMemoryFiles } from '../../sync/memory-files.js';
import { repoLockPath, type Repo } from '../../sync/process.js';
import { recoverInterruptedRebase } from '../../sync/replay.js';
import type { Runtime } from '../runtime.js';
import { exportRelOf, prepareRepo } from './sync-run.js';

export async function exportLock(rt: Runtime): Promise<{ lock: string; repo: Repo | undefined }> {
  const repo = await memoryRepoOf(rt);
  return { lock: repo ? repoLockPath(repo) : join(rt.config.general.export_dir, '.memory.lock'), repo };
}

/**
 * The memory repository for writing (home/target.ts, the one answer): the memory home made on
 * first use, else the repository that holds the export folder — refused when it holds other
 * files than memories. Undefined without git: captures are kept in the export folder and the
 * person is told (app/session/health.ts).
 */
export async function memoryRepoOf(rt: Runtime): Promise<Repo | undefined> {
  return memoryRepository(rt.config, { make: true, settingsTemplate: join(packageRoot(), 'config.toml'), info: (m) => rt.log.info(m) });
}

/** Git work of the person's that we must not commit onto, pull into or abort. */
export type ForeignState = 'rebase' | 'merge' | 'cherry-pick' | 'revert' | 'bisect' | 'detached';

export interface RepoState {
  repo: Repo | undefined;
  /** Set when the person's own operation is in progress or HEAD is detached. */
  foreign?: ForeignState;
}

/**
 * What git is in the middle of, from the files it keeps (no git process: this runs before
 * every capture). Our own interrupted rebase was already recovered when this is asked.
 */
export function foreignStateOf(repo: Repo): ForeignState | undefined {
  const has = (name: string) => existsSync(join(repo.gitDir, name));
  if (has('rebase-merge') || has('rebase-apply')) return 'rebase';
  if (has('MERGE_HEAD')) return 'merge';
  if (has('CHERRY_PICK_HEAD')) return 'cherry-pick';
  if (has('REVERT_HEAD')) return 'revert';
  if (has('BISECT_LOG')) return 'bisect';
  try {
    if (!readFileSync(join(repo.gitDir, 'HEAD'), 'utf8').startsWith('ref: ')) return 'detached';
  } catch {
    /* no HEAD file: leave it to git to say */
  }
  return undefined;
}

const FOREIGN_WORDS: Record<ForeignState, string> = {
  rebase: 'a rebase of yours is in progress',
  merge: 'a merge of yours is in progress',
  'cherry-pick': 'a cherry-pick of yours is in progress',
  revert: 'a revert of yours is in progress',
  bisect: 'a bisect of yours is in progress',
  detached: 'HEAD is detached (no branch is checked out)',
};

export function describeForeign(state: ForeignState): string {
  return FOREIGN_WORDS[state];
}

/**
 * Captures held back by the person's git work: remember since when and why (session start
 * and status tell it; the first drain after it commits at once). Returns the reason and
 * since when, kept from the first deferral.
 */
export function noteDeferred(rt: Runtime, repo: Repo, state: ForeignState): { why: string; since: string } {
  const why = describeForeign(state);
  const s = updateSyncState(repo.gitDir, (x) => (x.deferred ??= { since: rt.now().toISOString(), why }));
  return { why, since: s.deferred?.since ?? rt.now().toISOString() };
}

/** For commands a person runs: say what is in the way, change nothing. */
export function foreignStateError(state: ForeignState): UserError {
  return new UserError(
    `the memory repository is not ready: ${describeForeign(state)}; nothing was committed, pulled or changed`,
    state === 'detached' ? 'check out your branch (git switch main), then run this again' : `finish or abort it (git ${state} --continue / --abort), then run this again`,
  );
}

/**
 * Run `fn` holding the repository lock, after recovering our own interrupted work, with the
 * repository's state: `fn` must not commit, pull or stash when `state.foreign` is set.
 */
export async function withMemoryRepo<T>(rt: Runtime, opts: { timeoutMs?: number; found?: { lock: string; repo: Repo | undefined } }, fn: (state: RepoState) => Promise<T>): Promise<T> {
  const { lock, repo } = opts.found ?? (await exportLock(rt));
  return withLockAsync(lock, { timeoutMs: opts.timeoutMs ?? 10 * 60_000, purpose: 'the memory repository' }, async () => {
    if (!repo) return fn({ repo });
    prepareRepo(rt, repo);
    // Under our lock, a git of ours that left index.lock was killed; a person's git holds it
    // only for a moment, so one older than a few seconds is stale.
    if (clearStaleIndexLock(repo)) rt.log.warn('removed a stale .git/index.lock left by an interrupted git command');
    if (await recoverInterruptedRebase(repo)) rt.log.warn('aborted a rebase of ours left open by an interrupted run');
    const foreign = foreignStateOf(repo);
    if (!foreign && rt.config.legacy) {
      // The first writer after an update of the tool moves the old layout's memories here.
      await moveLegacyMemories(rt, repo).catch((err: unknown) => rt.log.warn(`moving the memories of ${rt.config.legacy} failed: ${errorMessage(err)}; they are untouched there, and the next run tries again`));
    }
    if (!foreign) {
      const { restored, setAside } = await restoreShrunkMemoryFiles(repo, exportRelOf(rt, repo), exportJsonlMatcher(repo, rt.config.general.export_dir), damagedLine);
      if (restored.length > 0) rt.log.warn(`restored committed memories into ${restored.join(', ')}: the file had lost lines (a full disk, a cut or an edit)`);
      if (setAside.size > 0) keepSetAside(rt, repo, setAside);
    }
    return fn(foreign ? { repo, foreign } : { repo });
  });
}

/**
 * The lock for writers that append to the export folder and commit: in the person's own
 * git work they refuse with what to do (the capture worker defers instead, see worker.ts).
 */
export async function captureLockFor(rt: Runtime, timeoutMs = 10 * 60_000): Promise<{ repo: Repo | undefined; lock: <T>(fn: () => Promise<T>) => Promise<T> }> {
  const found = await exportLock(rt);
  return {
    repo: found.repo,
    lock: (fn) =>
      withMemoryRepo(rt, { timeoutMs, found }, async (state) => {
        if (state.foreign) throw foreignStateError(state.foreign);
        return fn();
      }),
  };
}
