/**
 * monthly-merge under the repository lock: pull, fold closed months, commit, push. When
 * another machine pushed a different archive meanwhile (it had a late line we did not),
 * our merge commit is dropped and redone on the fresh inputs: it holds only derived data.
 */
import { monthOf } from '../../export/jsonl.js';
import { errorMessage } from '../../errors.js';
import { applyFold, planMerge, type MonthFold } from '../../maintain/monthly-merge.js';
import { openCache } from '../../store/cache.js';
import { dropLastCommit, pullRebase } from '../../sync/replay.js';
import { exportJsonlMatcher } from '../../sync/memory-files.js';
import { captureLockFor } from './locks.js';
import type { Runtime } from '../runtime.js';
import { commitAndPush, exportRelOf, memoryRemote, networkLimits, repairOf } from './sync-run.js';

export interface MergeReport {
  months: Array<Omit<MonthFold, 'text' | 'rejectsText' | 'dropped' | 'noop'> & { dropped: number }>;
  /** The person's own folders in their teams, folded the same way. */
  teams?: Array<{ team: string; months: string[] }>;
  sync?: { committed: boolean; push?: string };
  attempts: number;
  error?: string;
}

export async function runMonthlyMerge(rt: Runtime, opts: { dryRun: boolean; push: boolean }): Promise<MergeReport> {
  const report = await mergePersonal(rt, opts);
  if (rt.config.teams.length > 0 && opts.push) {
    const { mergeTeamFolders } = await import('../team/team.js');
    report.teams = await mergeTeamFolders(rt, { dryRun: opts.dryRun });
  }
  return report;
}

async function mergePersonal(rt: Runtime, opts: { dryRun: boolean; push: boolean }): Promise<MergeReport> {
  const { config } = rt;
  const { lock, repo } = await captureLockFor(rt);
  return lock(async () => {
    const report: MergeReport = { months: [], attempts: 0 };
    const memoryFile = repo ? exportJsonlMatcher(repo, config.general.export_dir) : () => false;
    const remote = repo && !opts.dryRun ? await memoryRemote(rt, repo) : undefined;
    for (let attempt = 1; attempt <= 3; attempt++) {
      report.attempts = attempt;
      if (repo && remote) {
        // Not a session start: nobody waits, so a large pull gets the push's patience.
        const pull = await pullRebase(repo, remote.name, networkLimits(rt), memoryFile, exportRelOf(rt, repo), repairOf(rt, repo));
        if (!['pulled', 'up-to-date', 'no-remote', 'no-branch'].includes(pull.status)) rt.log.warn(`git pull ${pull.status}: ${pull.detail ?? ''}; merging local files`);
      }
      const cache = openCache(rt.cacheOptions({ warn: (m) => rt.log.warn(m) })).store;
      const newest = cache.winningVersions();
      cache.close();
      const folds = planMerge(config.general.export_dir, monthOf(rt.now().toISOString()), newest).filter((f) => !f.noop);
      report.months = folds.map(({ text: _t, rejectsText: _r, dropped, noop: _n, ...rest }) => ({ ...rest, dropped: dropped.length }));
      for (const f of folds) for (const d of f.dropped.slice(0, 3)) rt.log.warn(`monthly-merge ${f.month}: unusable line ${d.file}:${d.line} (${d.reason}) kept verbatim in ${f.rejectsFile}`);
      if (opts.dryRun || folds.length === 0) return report;
      for (const f of folds) applyFold(config.general.export_dir, f);
      openCache(rt.cacheOptions({ warn: (m) => rt.log.warn(m) })).store.close();
      if (!repo) return report;
      const months = folds.map((f) => f.month).join(', ');
      const records = folds.reduce((s, f) => s + f.records, 0);
      const sync = await commitAndPush(rt, repo, `memory: monthly-merge ${months} (${records} memories, by ${config.general.machine_name})`, opts.push);
      report.sync = { committed: sync.committed, ...(sync.push ? { push: sync.push.status } : {}) };
      if (sync.push?.status !== 'conflict') return report;
      try {
        rt.log.info(`another machine merged differently; redoing the merge on its result (attempt ${attempt + 1})`);
        await dropLastCommit(repo);
      } catch (err) {
        report.error = `cannot redo the merge: ${errorMessage(err)}`;
        return report;
      }
    }
    report.error = 'gave up after 3 attempts: other machines keep merging at the same time; run it again later';
    return report;
  });
}
