/**
 * The one background worker: drains the Stop hooks' queue (capture into the export
 * folder and the cache), and commits and pushes in batches — at most once per
 * `commit_interval_s`, at once when a session ended or a person asked. It stays until
 * what it captured is committed, then exits; a second worker started meanwhile finds the
 * lock held and leaves.
 */
import { basename } from 'node:path';
import { lazyEmbedder, type Embedder } from '../../embed/embedder.js';
import { errorMessage } from '../../errors.js';
import { acquireLock, adoptLock, lockOwner, processAlive, sleepSync, type Release } from '../../export/lock.js';
import { exportIsDirty } from '../../sync/commit.js';
import { memoryRepository } from '../../home/target.js';
import { readSyncState, updateSyncState } from '../../sync/state.js';
import { foreignStateOf, noteDeferred, withMemoryRepo } from '../sync/locks.js';
import { dequeue, queueDirFor, readQueue, workerLockFor } from './queue.js';
import type { Runtime } from '../runtime.js';
import { captureLocked } from './session-end.js';
import { commitAndPush, maybeRepack } from '../sync/sync-run.js';

export interface DrainReport {
  /** Queue entries processed. */
  captured: number;
  added: number;
  updated: number;
  /**
   * What the commit step did. `deferred`: the person's own rebase, merge, cherry-pick or
   * bisect is in progress, or HEAD is detached — nothing was captured into the work tree or
   * committed; the queue keeps the work for the next session start or `memory sync`.
   */
  commit: 'clean' | 'committed' | 'waiting' | 'failed' | 'deferred';
  /** With 'waiting': when the batch is due. */
  dueInMs?: number;
  pushed?: string;
  repacked?: boolean;
}

/**
 * One pass: capture every queued transcript, then commit if the batch is due (or `flush`,
 * or an entry asked for it). Pure orchestration with an injected clock: tests drive it.
 */
export async function drainOnce(rt: Runtime, opts: { flush?: boolean; push?: boolean; loadEmbedder?: () => Promise<Embedder> } = {}): Promise<DrainReport> {
  const report: DrainReport = { captured: 0, added: 0, updated: 0, commit: 'clean' };
  const queue = readQueue(queueDirFor(rt.config.baseDir), (m) => rt.log.warn(m));
  let flush = opts.flush === true;
  let push = false;
  let sessions: string[] = [];
  return withMemoryRepo(rt, {}, async ({ repo, foreign }) => {
    if (repo && foreign) {
      const { why, since } = noteDeferred(rt, repo, foreign);
      rt.log.warn(`captures deferred since ${since}: ${why}; ${queue.length} transcript(s) stay queued and are committed once the repository is back on a branch`);
      report.commit = 'deferred';
      return report;
    }
    // Work held back by the person's git work goes in at once now, not at the next batch.
    const heldBack = repo !== undefined && readSyncState(repo.gitDir).deferred !== undefined;
    if (heldBack) flush = true;
    if (queue.length > 0) {
      const refs = queue.map((q) => ({ path: q.transcript, ...(q.session_id ? { sessionId: q.session_id } : {}), ...(q.cwd ? { cwd: q.cwd } : {}) }));
      const c = await captureLocked(rt, refs, opts.loadEmbedder ? { loadEmbedder: opts.loadEmbedder } : {});
      for (const q of queue) dequeue(q);
      report.captured = queue.length;
      report.added = c.added;
      report.updated = c.updated;
      flush ||= queue.some((q) => q.flush);
      push = queue.some((q) => q.push);
      sessions = queue.map((q) => q.session_id ?? basename(q.transcript, '.jsonl'));
      rt.log.info(`captured ${queue.length} transcript(s): ${c.added} new, ${c.updated} updated${c.pending ? `, ${c.pending} pending embedding` : ''}`);
    }
    if (!repo) return report;
    if (!(await exportIsDirty(repo, rt.config.general.export_dir))) {
      if (heldBack && readQueue(queueDirFor(rt.config.baseDir)).length === 0) updateSyncState(repo.gitDir, (x) => delete x.deferred);
      return report;
    }
    // Counted from the last commit of memories: init's settings commit starts no batch (nor does a
    // home from before this was kept: its next capture goes at once, once).
    const last = readSyncState(repo.gitDir).last_export_commit;
    const dueAt = last ? Date.parse(last) + rt.config.sync.commit_interval_s * 1000 : 0;
    const now = rt.now().getTime();
    if (!flush && now < dueAt) {
      report.commit = 'waiting';
      report.dueInMs = dueAt - now;
      return report;
    }
    const label = sessions.length > 0 ? ` (session ${sessions.slice(0, 3).join(', ')}${sessions.length > 3 ? ' …' : ''})` : '';
    const sync = await commitAndPush(rt, repo, `memory: ${rt.config.general.machine_name} captures${label}`, opts.push ?? (queue.length === 0 || push));
    report.commit = sync.committed ? 'committed' : 'failed';
    if (sync.committed) updateSyncState(repo.gitDir, (x) => delete x.deferred);
    if (sync.push) report.pushed = sync.push.status;
    if (sync.committed) report.repacked = await maybeRepack(rt, repo, flush);
    return report;
  });
}

/**
 * Stops come in bursts (several sessions end a turn at once, a session starts): wait until
 * the queue has been quiet for a moment, so that capturing does not take the CPU from the
 * hooks the user waits for, and one pass takes the whole burst. Bounded.
 */
export const QUEUE_QUIET_MS = 800;

async function quietQueue(queueDir: string, rt: Runtime, sleep: (ms: number) => Promise<void>): Promise<void> {
  const started = rt.now().getTime();
  for (;;) {
    const newest = Math.max(0, ...readQueue(queueDir).map((q) => Date.parse(q.at) || 0));
    const now = rt.now().getTime();
    if (now - newest >= QUEUE_QUIET_MS || now - started > 10 * QUEUE_QUIET_MS) return;
    await sleep(QUEUE_QUIET_MS - (now - newest));
  }
}

function tryLock(path: string): Release | undefined {
  // The hook that spawned us took the lock and hands it over a moment after the spawn. A
  // worker that starts first (a loaded machine) waits for it: leaving at once stranded the
  // queue until some later hook, since the hook had started no other worker.
  for (let i = 0; i < 200; i++) {
    const adopted = adoptLock(path);
    if (adopted) return adopted;
    if (lockOwner(path)?.pid !== process.ppid || !processAlive(process.ppid)) break;
    sleepSync(50);
  }
  try {
    return acquireLock(path, { timeoutMs: 0, purpose: 'the capture worker' });
  } catch {
    return undefined;
  }
}

/**
 * Publish to every team what waited its window (a team that cannot be reached waits for the
 * next run); the pull before it checks out what the person now reads, and the team's cache
 * catches up here — what a hook left for the background (a project newly read, a large pull).
 */
export async function publishDue(rt: Runtime, opts: { catchUp?: boolean } = {}): Promise<void> {
  const { publishTeam, openTeamCache } = await import('../team/team.js');
  for (const team of rt.config.teams) {
    try {
      const r = await publishTeam(rt, team);
      if (r.published > 0 || r.forgotten > 0) rt.log.info(`team ${team.name}: ${r.published} published, ${r.forgotten} forgotten (push ${r.push ?? '-'})`);
    } catch (err) {
      rt.log.warn(`team ${team.name}: publishing failed: ${errorMessage(err).split('\n')[0]}; it is tried again at the next session end`);
    }
    if (opts.catchUp === false) continue;
    try {
      const cache = openTeamCache(rt, team.name, { lockTimeoutMs: 60_000 });
      cache?.store.close();
    } catch (err) {
      rt.log.warn(`team ${team.name}: its cache could not catch up: ${errorMessage(err).split('\n')[0]}`);
    }
  }
}

/**
 * Drain until nothing is queued and nothing captured is left uncommitted; wait for the
 * batch in between (new Stops are picked up while waiting). Returns when done, or at once
 * when another worker holds the lock.
 */
export async function runWorker(rt: Runtime, deps: { sleep: (ms: number) => Promise<void>; flush?: boolean }): Promise<void> {
  const lockPath = workerLockFor(rt.config.baseDir);
  const queueDir = queueDirFor(rt.config.baseDir);
  let flush = deps.flush === true;
  const loadEmbedder = lazyEmbedder(rt.embedderConfig()); // loaded once, for every drain of this worker
  for (let round = 0; round < 100; round++) {
    const release = tryLock(lockPath);
    if (!release) return;
    let deferred = false;
    try {
      for (;;) {
        await quietQueue(queueDir, rt, deps.sleep);
        let r: DrainReport;
        try {
          r = await drainOnce(rt, { flush, loadEmbedder });
        } catch (err) {
          rt.log.warn(`capture worker: ${errorMessage(err).split('\n')[0]}; the queue is kept for the next run`);
          return;
        }
        flush = false;
        if (r.commit === 'deferred') {
          deferred = true;
          break;
        }
        if (readQueue(queueDir).length > 0) continue;
        if (r.commit !== 'waiting') break;
        // Wait for the batch; a new Stop (a queue entry) is picked up within a second.
        const until = rt.now().getTime() + (r.dueInMs ?? 1000);
        while (rt.now().getTime() < until && readQueue(queueDir).length === 0) await deps.sleep(Math.min(1000, until - rt.now().getTime()));
      }
    } finally {
      release();
    }
    // Teams: what has passed its review window goes now, batched with the captures (never in a hook's time).
    if (!deferred && rt.config.teams.length > 0) await publishDue(rt);
    if (deferred) {
      // Held back by the person's git work. If it ended meanwhile, a session start that saw
      // our lock started no worker of its own: look once more, now that the lock is free.
      const repo = await memoryRepository(rt.config, { make: false }).catch(() => undefined);
      if (!repo || foreignStateOf(repo) !== undefined || readQueue(queueDir).length === 0) return;
      flush = true;
      continue;
    }
    // A Stop that queued work after our last look and saw our lock did not start a worker.
    if (readQueue(queueDir).length === 0) return;
  }
}
