/** Commit what changed under export/ and push it, with the outcome logged in one line. */
import { errorMessage } from '../errors.js';
import { aheadOfRemote, commitExport, ownMonthFiles, pushWithRetry, type PushOutcome, type Repo } from '../sync/git.js';
import type { Runtime } from './runtime.js';

export interface SyncReport {
  committed: boolean;
  sha?: string;
  push?: PushOutcome;
}

export async function commitAndPush(rt: Runtime, repo: Repo, message: string, push: boolean): Promise<SyncReport> {
  const report: SyncReport = { committed: false };
  try {
    const c = await commitExport(repo, rt.config.general.export_dir, message, rt.config.general.machine_name);
    report.committed = c.committed;
    if (c.sha) report.sha = c.sha;
  } catch (err) {
    rt.log.warn(`git commit failed: ${errorMessage(err).split('\n')[0]}; the memories are saved in the export folder and will be committed next time`);
    return report;
  }
  if (!push || !rt.config.sync.push) return report;
  if (!report.committed && (await aheadOfRemote(repo, rt.config.sync.remote)) === 0) return report;
  report.push = await pushWithRetry(repo, rt.config.sync.remote, { resolvable: ownMonthFiles(repo, rt.config.general.export_dir, rt.config.general.machine_name) });
  const p = report.push;
  if (p.status === 'pushed' || p.status === 'up-to-date') rt.log.info(`pushed to ${rt.config.sync.remote}${p.attempts > 1 ? ` after ${p.attempts} attempts` : ''}`);
  else if (p.status === 'offline') rt.log.warn(`remote unreachable, commit kept and pushed next time (${p.detail ?? ''})`);
  else if (p.status === 'auth') rt.log.warn(`git refused the credentials for ${rt.config.sync.remote}; commit kept locally (${p.detail ?? ''})`);
  else if (p.status === 'no-remote' || p.status === 'detached') rt.log.info(p.detail ?? p.status);
  else rt.log.warn(`push ${p.status}: ${p.detail ?? ''}; commit kept locally`);
  return report;
}
