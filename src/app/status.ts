/**
 * The facts `memory status` prints and the viewer's overview shows: counts, files, sync
 * health, what was withheld. A read: it writes nothing (no config, no git remote).
 */
import { describeForeign, foreignStateOf } from './sync/locks.js';
import { queueDirFor, readQueue } from './capture/queue.js';
import { configuredMemoryRemote, describeClock } from './sync/sync-run.js';
import { describeSetAside } from './sync/repair.js';
import { runtimeOf, type Context } from './context.js';
import { describeShapes, readShapes } from '../capture/shapes.js';
import { listExportFiles } from '../export/files.js';
import { countRejects } from '../maintain/monthly-merge.js';
import { readPrivacyStats } from '../privacy/stats.js';
import { dbBytes, openCacheAsync } from '../store/cache.js';
import { aheadBehind } from '../sync/history.js';
import { memoryRepository } from '../home/target.js';
import { HealthError } from '../errors.js';
import { healthNotices, noticeOf } from './session/health.js';
import { readScrubCheck, rulesOf } from './session/scrub-check.js';
import { readLocal } from './team/team.js';
import { exportIsDirty } from '../sync/commit.js';
import type { Repo } from '../sync/process.js';
import { ourRebaseOpen } from '../sync/replay.js';
import { readSyncState } from '../sync/state.js';

/** The facts `status` prints (and the viewer's overview shows). */
export async function statusFacts(ctx: Context) {
  // The viewer's overview asks too: the lock is waited for without blocking its event loop.
  const { store, result } = await openCacheAsync(ctx.cacheOptions({ lockTimeoutMs: 3000 }));
  const c = store.counts();
  const dim = store.dim;
  // As the last reading found them (session start reads what came since; scrub ends them).
  const check = readScrubCheck(store, rulesOf(ctx.config.privacy.secret_formats));
  store.close();
  const files = listExportFiles(ctx.config.general.export_dir);
  // The one answer (home/target.ts): never a project's repository, never one not made yet.
  const problems = healthNotices(ctx.config);
  let repo: Repo | undefined;
  try {
    repo = await memoryRepository(ctx.config, { make: false, env: ctx.io.env });
  } catch (err) {
    if (!(err instanceof HealthError)) throw err;
    problems.push(noticeOf(err));
  }
  // A read: what the configuration says, never a write to config.local.toml or git.
  const remote = repo ? await configuredMemoryRemote(runtimeOf(ctx, { quiet: true }), repo) : undefined;
  // Local refs only (no network): as of the last pull or push.
  const ab = repo && remote ? await aheadBehind(repo, remote.name) : undefined;
  const state = repo ? readSyncState(repo.gitDir) : undefined;
  const sync = {
    memory_remote: remote ? { name: remote.name, url: remote.url } : null,
    last_push: state?.last_push ?? null,
    last_pull: state?.last_pull ?? null,
    last_commit: state?.last_commit ?? null,
    ahead: ab?.ahead ?? null,
    behind: ab?.behind ?? null,
    uncommitted: repo ? await exportIsDirty(repo, ctx.config.general.export_dir) : false,
    queued_transcripts: readQueue(queueDirFor(ctx.config.baseDir)).length,
    last_error: state?.last_error ?? null,
    failing_since: state?.failing_since ?? null,
    shared_machine_name: (state?.shared_name_clones ?? []).length > 0,
    /** The person's own git work in progress: captures wait (queued) until it is done. */
    held_back: repo && !ourRebaseOpen(repo) ? (() => {
      const f = foreignStateOf(repo);
      return f ? describeForeign(f) : null;
    })() : null,
    /** Ours, left open by a killed run: the next writer undoes it (locks.ts); nothing of the person's. */
    interrupted: repo && ourRebaseOpen(repo) ? 'a rebase memory-engine started was cut short; the next session start or `memory sync` undoes it and syncs again' : null,
    deferred_since: state?.deferred?.since ?? null,
    /** This machine's clock and another's disagree (from the last sync's commit times). */
    clock: state?.clock ? describeClock(state.clock.ours, state.clock.other, state.clock.gap_ms) : null,
    /** Lines set aside because they no longer parsed (a hand edit), most recent last. */
    set_aside: (state?.set_aside ?? []).map(describeSetAside),
  };
  const out = {
    records: c.records,
    pending: c.pending,
    tombstones: c.tombstones,
    machines: c.machines,
    projects: c.projects,
    files: files.length,
    export_bytes: files.reduce((s, f) => s + f.size, 0),
    db_bytes: dbBytes(ctx.config.general.db_path),
    model: store.identity.model,
    dim,
    machine: ctx.config.general.machine_name,
    export_dir: ctx.config.general.export_dir,
    db_path: ctx.config.general.db_path,
    config: ctx.config.sources,
    skipped_lines: result.skipped_lines,
    /** The cache could not be updated (a full disk): the counts are as of its last update. */
    cache_not_updated: result.unwritable ?? null,
    repository: repo?.root ?? null,
    /** The memory home (its folder is the memory repository), when this config is one's. */
    home: ctx.config.home ?? null,
    /** A checkout of an older version whose memories move here at the next write (or `memory upgrade`). */
    pending_move: ctx.config.legacy ?? null,
    unpushed_commits: ab?.ahead ?? null,
    rejected_lines: countRejects(ctx.config.general.export_dir),
    privacy: readPrivacyStats(ctx.config.baseDir) ?? null,
    /** Memories that hold what today's redaction rules remove (stored before them): `memory scrub`. */
    unscrubbed: ctx.config.privacy.redact && check.after > 0 ? check.ids.length + check.more : null,
    unknown_transcript_shapes: describeShapes(Object.values(readShapes(ctx.config.baseDir))) || null,
    sync,
    /** What breaks around memory (git, the model folder, the shared settings, the repository): app/session/health.ts. */
    problems,
    /** Each team: how fresh this machine's copy is, when it last published, the last error. */
    teams: ctx.config.teams.map((t) => {
      const l = readLocal(ctx, t.name);
      return { team: t.name, handle: t.handle, shared: t.projects, last_pull: l.last_pull ?? null, last_publish: l.last_publish ?? null, last_error: l.last_error ?? null };
    }),
    ...(c.oldest ? { oldest: c.oldest } : {}),
    ...(c.newest ? { newest: c.newest } : {}),
  };
  return { out, sync, dim };
}
