/**
 * The SessionStart hook: pull (bounded), push what is pending, bring the cache up to date
 * without loading the model, and optionally hand the agent this project's recent memories.
 */
import { projectFor } from '../capture/project.js';
import { errorMessage } from '../errors.js';
import { acquireLock } from '../export/lock.js';
import { openCache } from '../maintain/rebuild.js';
import { isExcluded } from '../privacy/exclude.js';
import { aheadOfRemote, ownMonthFiles, pullRebase, pushWithRetry } from '../sync/git.js';
import { formatInjection } from './inject.js';
import type { Runtime } from './runtime.js';
import { exportLock } from './locks.js';

export interface SessionStartRequest {
  cwd?: string;
  inject: boolean;
  pull: boolean;
}

export interface SessionStartReport {
  pulled?: string;
  pushed?: string;
  records: number;
  project?: string;
  injected: number;
  context: string;
}

export async function runSessionStart(rt: Runtime, req: SessionStartRequest): Promise<SessionStartReport> {
  const report: SessionStartReport = { records: 0, injected: 0, context: '' };
  const { config } = rt;
  if (req.pull) {
    const { lock, repo } = await exportLock(rt);
    if (repo) {
      let release: (() => void) | undefined;
      try {
        // A session-end worker may be committing: wait briefly, else start on local data.
        release = acquireLock(lock, { timeoutMs: 3000, purpose: 'the memory repository' });
      } catch (err) {
        rt.log.warn(`${errorMessage(err)}; starting with local memories`);
      }
      if (release) {
        try {
          const own = ownMonthFiles(repo, config.general.export_dir, config.general.machine_name);
          const pull = await pullRebase(repo, config.sync.remote, config.sync.pull_timeout_ms, own);
          report.pulled = pull.status;
          if (!['pulled', 'up-to-date', 'no-remote', 'no-branch'].includes(pull.status)) {
            rt.log.warn(`git pull ${pull.status}${pull.detail ? `: ${pull.detail}` : ''}; using local memories`);
          }
          if (config.sync.push && ['pulled', 'up-to-date', 'no-branch'].includes(pull.status) && (await aheadOfRemote(repo, config.sync.remote)) > 0) {
            const push = await pushWithRetry(repo, config.sync.remote, { attempts: 2, timeoutMs: config.sync.pull_timeout_ms, resolvable: own });
            report.pushed = push.status;
            if (push.status !== 'pushed' && push.status !== 'up-to-date') rt.log.warn(`git push ${push.status}${push.detail ? `: ${push.detail}` : ''}`);
          }
        } catch (err) {
          rt.log.warn(`git sync failed: ${errorMessage(err).split('\n')[0]}; using local memories`);
        } finally {
          release();
        }
      }
    }
  }
  const { store, result } = openCache(rt.cacheOptions({ lockTimeoutMs: 5000, warn: (m) => rt.log.warn(m) }));
  try {
    report.records = result.records;
    if (result.full) rt.log.info(`cache rebuilt from scratch (${result.reason ?? 'requested'}): ${result.records} memories in ${result.ms} ms`);
    if (result.skipped_lines > 0) rt.log.warn(`${result.skipped_lines} unusable JSONL lines skipped (see \`memory rebuild\`)`);
    if (req.inject && config.inject.recent > 0) {
      const project = await projectFor(req.cwd, config.general.project);
      report.project = project;
      if (!isExcluded(config.privacy.exclude_projects, project, req.cwd)) {
        const rows = store.recent(project, config.inject.recent);
        const injection = formatInjection(rows, project, { answerChars: config.inject.answer_chars });
        report.context = injection.text;
        report.injected = injection.count;
      }
    }
  } finally {
    store.close();
  }
  return report;
}
