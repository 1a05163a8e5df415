/**
 * The SessionStart hook: commit pending captures, pull and push (bounded), bring the cache
 * up to date without loading the model, tell the user what is wrong with sync, and
 * optionally hand the agent this project's recent memories.
 */
import { changeNote, staleness } from '../changes/staleness.js';
import { errorMessage, HealthError } from '../errors.js';
import { healthNotices, noticeOf, settingsNotice, tellOnceADay } from './health.js';
import { settingsProblemNow } from '../config/shared.js';
import { placeHere } from '../project/place.js';
import { openCache } from '../store/cache.js';
import { readSyncState, updateSyncState } from '../sync/state.js';
import { formatInjection } from './inject.js';
import { repoLockPath, type Repo } from '../sync/process.js';
import { lockOwner } from '../export/lock.js';
import { describeForeign, foreignStateOf, memoryRepoOf, withMemoryRepo } from './locks.js';
import type { Runtime } from './runtime.js';
import { ensureModel } from './model-fetch.js';
import { memoryRemote, syncNotices, syncNow } from './sync-run.js';

export interface SessionStartRequest {
  cwd?: string;
  inject: boolean;
  pull: boolean;
  /** Starts the background model download (absent: none is started, as in tests of other things). */
  spawnModelFetch?: () => Promise<number | undefined>;
}

export interface SessionStartReport {
  pulled?: string;
  pushed?: string;
  committed?: boolean;
  records: number;
  project?: string;
  injected: number;
  context: string;
  /** For the user (hook output `systemMessage` and stderr), never for the agent. */
  notices: string[];
}

export async function runSessionStart(rt: Runtime, req: SessionStartRequest): Promise<SessionStartReport> {
  const report: SessionStartReport = { records: 0, injected: 0, context: '', notices: [] };
  const { config } = rt;
  // What breaks around memory (git, the model folder, the shared settings, the memory
  // repository): told to the person once a day per cause, never to the agent.
  const health = healthNotices(config);
  let repo: Repo | undefined;
  try {
    repo = await memoryRepoOf(rt);
  } catch (err) {
    // An export folder inside a repository the person works in: said, never written there.
    if (err instanceof HealthError) health.push(noticeOf(err));
    else report.notices.push(`memory: ${errorMessage(err)}`);
  }

  let named: boolean | undefined;
  let held: string | undefined;
  if (repo && req.pull) {
    try {
      // A worker may be committing: wait briefly, else start on local data.
      await withMemoryRepo(rt, { timeoutMs: 3000, found: { lock: repoLockPath(repo), repo } }, async ({ foreign }) => {
        if (foreign) {
          // The person's own git work: commit, pull, push nothing (syncNotices says why).
          rt.log.info(`not syncing: ${describeForeign(foreign)}`);
          return;
        }
        try {
          const sync = await syncNow(rt, repo, { totalMs: config.sync.pull_timeout_ms });
          named = sync.unnamed !== true;
          report.committed = sync.committed;
          if (sync.pull) report.pulled = sync.pull.status;
          if (sync.push) report.pushed = sync.push.status;
        } catch (err) {
          rt.log.warn(`git sync failed: ${errorMessage(err).split('\n')[0]}; using local memories`);
        }
      });
    } catch (err) {
      rt.log.warn(`${errorMessage(err)}; starting with local memories`);
      // Held for over a minute: something is stuck (a git that does not finish); say so.
      const since = lockOwner(repoLockPath(repo))?.since;
      if (since && rt.now().getTime() - Date.parse(since) > 60_000) held = since;
    }
  }
  // A config.toml the pull brought from another machine that does not parse here: not applied
  // (this run loaded the last good one), and told now.
  if (report.pulled === 'pulled' && config.home && !config.settingsProblem) {
    const problem = settingsProblemNow(config.file);
    const n = problem ? settingsNotice({ settingsProblem: problem }) : undefined;
    if (n) health.push(n);
  }
  report.notices.push(...tellOnceADay(config.baseDir, health, rt.now()));
  if (repo) {
    try {
      // syncNow already knows; only a --no-pull start asks (one more git call per start otherwise).
      named ??= (await memoryRemote(rt, repo)) !== undefined;
      const foreign = foreignStateOf(repo);
      const { notices, told } = syncNotices(rt, readSyncState(repo.gitDir), named, foreign ? describeForeign(foreign) : undefined);
      if (told.length > 0) updateSyncState(repo.gitDir, (s) => (s.told = [...new Set([...(s.told ?? []), ...told])]));
      report.notices.push(...notices);
      if (held) report.notices.push(`memory: the memory repository has been locked since ${held} by another memory-engine process (see \`memory status\`); this session starts with the memories already here.`);
    } catch (err) {
      rt.log.warn(`cannot read the sync state: ${errorMessage(err)}`);
    }
  }
  try {
    const told = await ensureModel(rt, req.spawnModelFetch);
    if (told) report.notices.push(told);
  } catch (err) {
    rt.log.warn(`cannot start the model download: ${errorMessage(err)}`);
  }
  for (const n of report.notices) rt.log.warn(n.replace(/^memory: /, ''));
  const { store, result } = openCache(rt.cacheOptions({ lockTimeoutMs: 5000, warn: (m) => rt.log.warn(m) }));
  try {
    report.records = result.records;
    if (result.full) rt.log.info(`cache rebuilt from scratch (${result.reason ?? 'requested'}): ${result.records} memories in ${result.ms} ms`);
    if (result.skipped_lines > 0) rt.log.warn(`${result.skipped_lines} unusable JSONL lines skipped (see \`memory rebuild\`)`);
    if (req.inject && config.inject.recent > 0) {
      const place = placeHere(req.cwd, { ...(config.general.project ? { configured: config.general.project } : {}), exclude: config.privacy.exclude_projects, filed: store.projects });
      const project = place.name;
      report.project = project;
      if (place.repo) store.fileStates.noteCheckout(place.repo.key, place.repo.top, rt.now().getTime());
      if (!place.excluded) {
        const rows = store.recent(project, config.inject.recent);
        const stale = staleness(store, { ...(req.cwd ? { here: req.cwd } : {}), machine: config.general.machine_name });
        const injection = formatInjection(rows, project, { answerChars: config.inject.answer_chars, changes: (r) => changeNote(stale, r) });
        report.context = injection.text;
        report.injected = injection.count;
      }
    }
  } finally {
    store.close();
  }
  return report;
}
