/**
 * `memory init --remote URL` and `memory sync`: name the private repository memories go
 * to, join what other machines already pushed there, and push; or sync now.
 */
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { normalizeRemoteUrl } from '../../project/repository.js';
import { writeLocalKeys } from '../../config/local.js';
import { HealthError, UserError } from '../../errors.js';
import { gitNotice } from '../session/health.js';
import { currentBranch, type Repo } from '../../sync/process.js';
import { deleteRef, fetchInto, probeRemote, remoteUrlOf, removeRemote, setRemote } from '../../sync/remote.js';
import { pullRebase, sharesHistory, type PullOutcome, type PushOutcome } from '../../sync/replay.js';
import { exportJsonlMatcher } from '../../sync/memory-files.js';
import { recordOutcome, updateSyncState } from '../../sync/state.js';
import { foreignStateError, foreignStateOf, memoryRepoOf, withMemoryRepo } from './locks.js';
import { queueDirFor, readQueue } from '../capture/queue.js';
import { drainOnce } from '../capture/worker.js';
import type { Runtime } from '../runtime.js';
import { commitAndPush, commitPending, configuredMemoryRemote, exportRelOf, INIT_HINT, isHomeRepo, networkLimits, repairOf, syncNow, type SyncReport } from './sync-run.js';
import { joinOnto } from '../../home/join.js';
import { treeIsMemoryData } from '../../home/repository.js';

/** Same repository, whatever the spelling: trailing slash or `.git` do not matter. */
/**
 * Whether two remote URLs name one repository: the rule of repository identity
 * (project/remote-url.ts normalizeRemoteUrl: ssh, scp and https spellings of github.com/acme/api are
 * one), and for local repositories the folder itself (`/srv/x.git`, `file:///srv/x.git`,
 * `/srv/x.git/`, a symlink to it).
 */
export function sameRepositoryUrl(a: string, b: string): boolean {
  const ia = normalizeRemoteUrl(a);
  const ib = normalizeRemoteUrl(b);
  if (ia !== undefined || ib !== undefined) return ia === ib;
  return localRepoPath(a) === localRepoPath(b);
}

function localRepoPath(url: string): string {
  let p = url.trim();
  if (/^file:\/\//i.test(p)) {
    try {
      p = fileURLToPath(p);
    } catch {
      p = p.replace(/^file:\/\//i, '');
    }
  }
  p = resolve(p);
  try {
    p = realpathSync(p);
  } catch {
    /* not there (yet): compared as written */
  }
  return p.replace(/[\\/]+$/, '');
}

async function repoOf(rt: Runtime): Promise<Repo> {
  const git = gitNotice(rt.config);
  if (git) throw new HealthError(git.kind, git.path, git.message, git.hint);
  const repo = await memoryRepoOf(rt);
  if (!repo) {
    throw new UserError(
      `the export folder ${rt.config.general.export_dir} is not inside a git repository`,
      'run `git init` there (or point [general] export_dir into a git checkout), then run memory init again',
    );
  }
  return repo;
}

export interface InitReport {
  remote: string;
  url: string;
  previous?: string;
  machine: string;
  pull?: PullOutcome['status'];
  push?: PushOutcome['status'];
  committed: boolean;
  /** Lines of this machine's memories united onto another machine's memory branch. */
  joined?: number;
  /** Where this machine's former shared settings were kept when the remote's differed. */
  settingsKept?: string;
}

export async function runInit(rt: Runtime, opts: { url: string; yes: boolean; timeoutMs?: number }): Promise<InitReport> {
  const url = opts.url.trim();
  if (url.length === 0) throw new UserError('--remote needs the URL of a private git repository');
  const repo = await repoOf(rt);
  const home = isHomeRepo(rt, repo);
  // A memory home's origin is the memory remote it was cloned from: joining it is the point.
  const origin = home ? undefined : await remoteUrlOf(repo, 'origin');
  if (origin && sameRepositoryUrl(origin, url) && !opts.yes) {
    throw new UserError(
      `${url} is the repository this checkout was cloned from (origin). Everyone who can read that repository will read every conversation memory-engine captures on every machine.`,
      'name a private repository of your own instead; if origin is private and only yours, run the same command with --yes',
    );
  }
  const probe = await probeRemote(repo, url, networkLimits(rt, opts.timeoutMs ?? 60_000));
  if (!probe.ok) throw new UserError(`cannot reach ${url}: ${probe.detail ?? 'git ls-remote failed'}`, 'check the URL and your credentials: `git ls-remote <url>` must work');
  const previous = rt.config.sync.remote_url || undefined;
  const name = rt.config.sync.remote;
  const report: InitReport = { remote: name, url, machine: rt.config.general.machine_name, committed: false, ...(previous && previous !== url ? { previous } : {}) };
  return withMemoryRepo(rt, { timeoutMs: 60_000 }, async (state) => {
    if (state.foreign) throw foreignStateError(state.foreign);
    const branch = await currentBranch(repo);
    if (!branch) throw new UserError('HEAD is detached in the memory repository', 'check out a branch (git switch main), then run memory init again');
    // Nothing is recorded before the repository is known to be joinable: a branch of that
    // name must share our history (whatever it holds: even a host's generated README is
    // another history), checked on a private ref before any remote is named.
    const others = probe.branches.filter((b) => b !== branch);
    if (home && !probe.branches.includes(branch) && others.length > 0 && !opts.yes) {
      // Not an empty repository and not one of ours: a project, or a host's README.
      throw new UserError(
        `${url} holds branches (${others.slice(0, 5).join(', ')}) but no memory branch "${branch}": it does not look like a memory repository, and everyone who can read it would read every conversation`,
        `create an empty private repository and run memory init with its URL; if it is the memory remote of an older memory-engine, first update memory-engine on a machine whose checkout holds those memories (its memories then move to branch ${branch} there); if this repository is private and yours alone, run the same command with --yes (memories go to a branch of their own)`,
      );
    }
    if (probe.branches.includes(branch)) {
      const f = await fetchInto(repo, url, branch, INIT_PROBE_REF, networkLimits(rt));
      if (!f.ok) throw new UserError(`cannot fetch from ${url}: ${f.detail ?? ''}`, 'nothing was recorded; check the URL and your credentials, then run memory init again');
      let joinable = await sharesHistory(repo, INIT_PROBE_REF);
      if (!joinable && home && treeIsMemoryData(repo, INIT_PROBE_REF, exportRelOf(rt, repo))) {
        // Another machine's home pushed there: unite this machine's memories on top of it.
        const joined = await joinOnto(repo, INIT_PROBE_REF, exportRelOf(rt, repo));
        await commitPending(rt, repo, `memory: ${rt.config.general.machine_name} joins`);
        report.joined = joined.lines;
        if (joined.settingsKept) report.settingsKept = joined.settingsKept;
        joinable = true;
      }
      await deleteRef(repo, INIT_PROBE_REF);
      if (!joinable) {
        throw new UserError(
          `${url} already holds a branch ${branch} that shares no history with this checkout: nothing was recorded or pushed`,
          'create an empty private repository (no README, no license, no .gitignore) and run memory init with its URL; or use one that another machine of yours initialized from a clone of this project',
        );
      }
    }
    const previousGitRemote = await remoteUrlOf(repo, name);
    await setRemote(repo, name, url);
    const undo = async () => {
      if (previousGitRemote === undefined) await removeRemote(repo, name);
      else await setRemote(repo, name, previousGitRemote);
    };
    try {
      // A second machine joins what the first one pushed: pull before the first push.
      if (probe.branches.includes(branch)) {
        const pull = await pullRebase(repo, name, networkLimits(rt), exportJsonlMatcher(repo, rt.config.general.export_dir), exportRelOf(rt, repo), repairOf(rt, repo));
        report.pull = pull.status;
        if (!['pulled', 'up-to-date'].includes(pull.status)) throw new UserError(`pulling from ${url} failed (${pull.status}): ${pull.detail ?? ''}`, 'nothing was recorded or pushed; fix the cause and run memory init again');
      }
      // This run pushes there; the config says so only once that has worked.
      (rt.config.sync as { remote_url: string }).remote_url = url;
      const sync = await commitAndPush(rt, repo, `memory: ${rt.config.general.machine_name} init`, true);
      report.committed = sync.committed;
      if (sync.push) report.push = sync.push.status;
      if (sync.push && !['pushed', 'up-to-date'].includes(sync.push.status)) {
        throw new UserError(`pushing to ${url} failed (${sync.push.status}): ${sync.push.detail ?? ''}`, 'nothing was recorded; fix the cause and run memory init again (your memories are committed on this machine)');
      }
    } catch (err) {
      (rt.config.sync as { remote_url: string }).remote_url = previous ?? '';
      await undo();
      throw err;
    }
    writeLocalKeys(rt.config.baseDir, 'sync', { remote_url: url });
    updateSyncState(repo.gitDir, (s) => recordOutcome(s, 'pull', true, rt.now(), report.pull ?? 'up-to-date'));
    return report;
  });
}

/** Where init fetches a candidate remote's branch to check its history before naming it. */
const INIT_PROBE_REF = 'refs/memory-engine/init-probe';

export async function runSync(rt: Runtime): Promise<SyncReport & { remote: string; url: string }> {
  const repo = await repoOf(rt);
  // A read: the git remote and config.local.toml are written under the lock (syncNow), never before it.
  const remote = await configuredMemoryRemote(rt, repo);
  // Captures still queued (a worker that deferred, crashed or has not run yet) go in first.
  let drained = false;
  if (readQueue(queueDirFor(rt.config.baseDir)).length > 0) {
    const d = await drainOnce(rt, { flush: true, push: false });
    if (d.commit === 'deferred') throw foreignStateError(foreignStateOf(repo) ?? 'detached');
    drained = d.commit === 'committed';
  }
  if (!remote) {
    // Nothing to pull from or push to; what is captured is committed here all the same.
    const local = await withMemoryRepo(rt, { timeoutMs: 60_000 }, async (state) => {
      if (state.foreign) throw foreignStateError(state.foreign);
      return commitPending(rt, repo, `memory: ${rt.config.general.machine_name} sync`);
    });
    const done = drained || local.committed ? 'pending captures were committed on this machine; ' : '';
    throw new UserError(`no memory remote is named: ${done}memories are committed on this machine only`, `run \`${INIT_HINT}\``);
  }
  const report = await withMemoryRepo(rt, { timeoutMs: 60_000 }, async (state) => {
    if (state.foreign) throw foreignStateError(state.foreign);
    return syncNow(rt, repo, { pushAttempts: 4, message: `memory: ${rt.config.general.machine_name} sync` });
  });
  return { ...report, committed: report.committed || drained, remote: remote.name, url: remote.url };
}
