/**
 * Sync orchestration for every writer: which remote memories go to (only one the user
 * named), commit what changed under export/, pull and push, and keep the clone's sync
 * health (sync/state.ts) up to date. Outcomes are logged in one line each.
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { readLayerText } from '../../config/shared.js';
import { packageRoot } from '../../config/paths.js';
import { writeLocalKeys } from '../../config/local.js';
import { MAX_CLOCK_SKEW_MS, parseMonthFileName } from '../../export/jsonl.js';
import { errorMessage } from '../../errors.js';
import { aheadOfRemote, clockGap, filesOnRemoteBranch, otherClonesWritingAs } from '../../sync/history.js';
import { changedPaths, commitExport, commitPaths, hasCommits, looseObjectsKb, repackAll } from '../../sync/commit.js';
import { currentBranch, type NetworkLimits, type Repo } from '../../sync/process.js';
import { ensureUnionMerge, exportJsonlMatcher } from '../../sync/memory-files.js';
import { pullRebase, pushWithRetry, type PullOutcome, type PushOutcome, type RepairPulled } from '../../sync/replay.js';
import { remoteUrlOf, setRemote } from '../../sync/remote.js';
import { removeStaleWrites, withWholeLines } from '../../export/files.js';
import { describeSetAside, repairPulled } from './repair.js';
import { brokenFor, readSyncState, recordOutcome, updateSyncState, type SyncState } from '../../sync/state.js';
import type { Runtime } from '../runtime.js';
import { joinOnto } from '../../home/join.js';
import { describeMove } from '../upgrade/moved.js';
import { MEMORY_BRANCH } from '../../home/place.js';
import { machineLabel } from '../../project/label.js';
import { settingsPaths, treeIsMemoryData } from '../../home/repository.js';
import { isHomeRepository } from '../../home/target.js';

export interface MemoryRemote {
  /** The git remote's name (never `origin` unless the user configured it). */
  name: string;
  url: string;
}

export const INIT_HINT = 'memory init --remote <url of a private git repository>';

/** Whether `repo` is this configuration's memory home (settings committed, unrelated homes joined, origin adopted): home/target.ts answers. */
export function isHomeRepo(rt: Runtime, repo: Repo): boolean {
  return isHomeRepository(rt.config, repo);
}

/**
 * The init command as this person can type it: a plugin has no `memory` on the terminal's PATH
 * (Claude Code puts the plugin's bin/ on its Bash tool's PATH only), so name its script.
 */
export function initHintHere(env: NodeJS.ProcessEnv = process.env): string {
  if (!env.MEMORY_ENGINE_PLUGIN) return INIT_HINT;
  const bin = join(packageRoot(), 'bin', 'memory');
  return `${INIT_HINT} (from a terminal: sh ${JSON.stringify(bin)} init --remote <url>; in a session, ask the agent to run it)`;
}

/**
 * A checkout that pushed memories to `origin` under the old README (this machine's own
 * month files are on origin's branch) counts as initialized with origin's URL. A fresh
 * clone of the project never qualifies: it holds no files of this machine.
 */
async function legacyOriginUrl(rt: Runtime, repo: Repo): Promise<string | undefined> {
  const url = await remoteUrlOf(repo, 'origin');
  // A memory home made by `git clone <memory remote>`: its origin is the memory remote.
  if (url && isHomeRepo(rt, repo)) return url;
  const branch = await currentBranch(repo);
  if (!url || !branch) return undefined;
  const rel = relative(repo.root, rt.config.general.export_dir).split('\\').join('/');
  const files = await filesOnRemoteBranch(repo, 'origin', branch, rel);
  const machine = rt.config.general.machine_name;
  const mine = files.some((f) => parseMonthFileName(f.slice(f.lastIndexOf('/') + 1))?.machine === machine);
  return mine ? url : undefined;
}

/**
 * The remote memories go to as the configuration says, changing nothing: for reads (status,
 * the viewer's overview), which must never write config.local.toml or touch git remotes.
 */
export async function configuredMemoryRemote(rt: Runtime, repo: Repo): Promise<MemoryRemote | undefined> {
  const url = rt.config.sync.remote_url || (await legacyOriginUrl(rt, repo));
  return url ? { name: rt.config.sync.remote, url } : undefined;
}

/** The remote memories go to, set up as a git remote; undefined until the user names one. */
export async function memoryRemote(rt: Runtime, repo: Repo): Promise<MemoryRemote | undefined> {
  const { sync } = rt.config;
  let url = sync.remote_url;
  if (!url) {
    const legacy = await legacyOriginUrl(rt, repo);
    if (!legacy) return undefined;
    url = legacy;
    try {
      writeLocalKeys(rt.config.baseDir, 'sync', { remote_url: url });
      rt.log.info(`this repository's origin holds its memories (${url}): recorded it as the memory remote in config.local.toml`);
    } catch (err) {
      rt.log.warn(`cannot record the memory remote in config.local.toml: ${errorMessage(err)}`);
    }
    (sync as { remote_url: string }).remote_url = url; // the file says so now; this run follows it
  }
  // The git remote of that name points where the config says, whatever it pointed at before.
  await setRemote(repo, sync.remote, url);
  return { name: sync.remote, url };
}

/** First use of a repository by any writer: memory files merge as append-only lines. */
export function prepareRepo(rt: Runtime, repo: Repo): void {
  try {
    if (ensureUnionMerge(repo, rt.config.general.export_dir)) rt.log.info(`memory files now merge as append-only lines (${repo.gitDir}/info/attributes)`);
  } catch (err) {
    rt.log.warn(`cannot write ${repo.gitDir}/info/attributes: ${errorMessage(err)}`);
  }
}

export interface SyncReport {
  committed: boolean;
  sha?: string;
  pull?: PullOutcome;
  push?: PushOutcome;
  /** No memory remote is named: committed here only. */
  unnamed?: boolean;
  /** The commit of pending captures failed, with git's reason (they stay in the export folder). */
  commitFailed?: string;
}

const PUSH_OK = new Set(['pushed', 'up-to-date']);
const PULL_OK = new Set(['pulled', 'up-to-date', 'no-branch']);

function describeFailure(op: string, status: string, detail?: string): string {
  if (status === 'offline') return `${op}: remote unreachable, commits kept and pushed next time (${detail ?? ''})`;
  if (status === 'auth') return `${op}: git refused the credentials (${detail ?? ''}); commits kept locally`;
  if (status === 'conflict') return `${op}: a conflict that is not on memory files; rebase aborted, commits kept locally (${detail ?? ''})`;
  if (status === 'unrelated' || status === 'lost') return `${op} refused: ${detail ?? status}`;
  return `${op} ${status}: ${detail ?? ''}; commits kept locally`;
}

/** Commit what changed under export/ (nothing else), tagged with this clone; shared settings first, in a commit of their own. */
export async function commitPending(rt: Runtime, repo: Repo, message: string): Promise<{ committed: boolean; sha?: string; commitFailed?: string }> {
  const state = readSyncState(repo.gitDir);
  try {
    const settings = await commitSettings(rt, repo, state.clone_id);
    // Half a record (a writer that died mid-line) is never committed, nor half a file (one that died mid-write).
    for (const name of removeStaleWrites(rt.config.general.export_dir)) rt.log.info(`removed ${name}, left by a process that died while writing it`);
    const c = await withWholeLines(rt.config.general.export_dir, () => commitExport(repo, rt.config.general.export_dir, message, rt.config.general.machine_name, state.clone_id));
    if (c.committed || settings) {
      updateSyncState(repo.gitDir, (s) => {
        s.last_commit = rt.now().toISOString();
        if (c.committed) s.last_export_commit = s.last_commit;
        recordOutcome(s, 'commit', true, rt.now(), 'committed');
      });
    }
    return c.committed || !settings ? c : { committed: true, sha: settings };
  } catch (err) {
    const msg = errorMessage(err).split('\n')[0] ?? '';
    rt.log.warn(`git commit failed: ${msg}; the memories are saved in the export folder and will be committed next time`);
    updateSyncState(repo.gitDir, (s) => recordOutcome(s, 'commit', false, rt.now(), 'failed', msg));
    return { committed: false, commitFailed: msg };
  }
}

/** Captures or shared settings not committed yet (one `git status`). */
async function somethingToCommit(rt: Runtime, repo: Repo): Promise<boolean> {
  return (await changedPaths(repo, [exportRelOf(rt, repo) || '.', ...(isHomeRepo(rt, repo) ? settingsPaths(repo) : [])])).length > 0;
}

/**
 * The settings every machine shares (a memory home's config.toml, .gitattributes, .gitignore),
 * committed apart from captures — `settings: …`, never inside a commit of captures — and only
 * when config.toml parses and validates: a broken one would turn memory off on every machine
 * that pulls it. It waits, uncommitted, until it is fixed (session start and status say so).
 * Returns the commit made, if any.
 */
export async function commitSettings(rt: Runtime, repo: Repo, cloneId?: string): Promise<string | undefined> {
  if (!isHomeRepo(rt, repo)) return undefined;
  const changed = await changedPaths(repo, settingsPaths(repo));
  if (changed.length === 0) return undefined;
  const travel = changed.filter((p) => p !== 'config.toml' || settingsTravel(join(repo.root, p)));
  if (travel.length < changed.length) rt.log.warn(`${join(repo.root, 'config.toml')} does not parse: it is not committed until it does (the last good version applies meanwhile)`);
  if (travel.length === 0) return undefined;
  const first = !(await hasCommits(repo));
  const message = first ? `settings: the memory home of ${rt.config.general.machine_name}` : `settings: ${rt.config.general.machine_name} changed ${travel.join(', ')}`;
  const c = await commitPaths(repo, travel, message, rt.config.general.machine_name, cloneId);
  if (c.committed) rt.log.info(`committed the shared settings (${travel.join(', ')})`);
  return c.sha;
}

/** Whether a config.toml may travel: it parses and every key validates. */
export function settingsTravel(file: string): boolean {
  try {
    const r = readLayerText(readFileSync(file, 'utf8'), file);
    return !r.parseError && r.errors.length === 0;
  } catch {
    return false;
  }
}

/** Lines a pull brought that no longer parse: set aside, the last good versions kept in force, committed. */
export function repairOf(rt: Runtime, repo: Repo): RepairPulled {
  return repairPulled(rt, repo, exportRelOf(rt, repo), (message) => commitPending(rt, repo, message));
}

async function noticeOtherClones(rt: Runtime, repo: Repo): Promise<void> {
  const state = readSyncState(repo.gitDir);
  const others = await otherClonesWritingAs(repo, rt.config.general.machine_name, state.clone_id);
  const known = state.shared_name_clones ?? [];
  if (others.some((o) => !known.includes(o))) {
    updateSyncState(repo.gitDir, (s) => (s.shared_name_clones = [...new Set([...known, ...others])].sort()));
    rt.log.warn(sharedNameNotice(rt.config.general.machine_name));
  }
}

export function sharedNameNotice(machine: string): string {
  return `another clone also writes memories as machine "${machineLabel(machine)}"; nothing is lost, but set a distinct [general] machine_name in config.local.toml on one of them`;
}

/** The export folder relative to the repository root, as git paths ('' when they are the same). */
export function exportRelOf(rt: Runtime, repo: Repo): string {
  return relative(repo.root, rt.config.general.export_dir).split('\\').join('/');
}

/** How long a fetch or push may stay silent (`[sync] network_silence_s`), and at most in all. */
export function networkLimits(rt: Runtime, totalMs?: number): NetworkLimits {
  return { silenceMs: rt.config.sync.network_silence_s * 1000, ...(totalMs ? { totalMs } : {}) };
}

async function pushNow(rt: Runtime, repo: Repo, remote: MemoryRemote, opts: { attempts?: number; totalMs?: number }): Promise<PushOutcome> {
  const push = await pushWithRetry(repo, remote.name, { ...(opts.attempts ? { attempts: opts.attempts } : {}), limits: networkLimits(rt, opts.totalMs), isMemoryFile: exportJsonlMatcher(repo, rt.config.general.export_dir), exportRel: exportRelOf(rt, repo), repair: repairOf(rt, repo) });
  const ok = PUSH_OK.has(push.status);
  updateSyncState(repo.gitDir, (s) => recordOutcome(s, 'push', ok, rt.now(), push.status, push.detail));
  if (ok) rt.log.info(`pushed to ${remote.name}${push.attempts > 1 ? ` after ${push.attempts} attempts` : ''}`);
  else if (push.status === 'detached') rt.log.info(push.detail ?? push.status);
  else rt.log.warn(describeFailure('push', push.status, push.detail));
  return push;
}

/**
 * Commit what changed under export/ and push it to the memory remote, if one is named.
 * Callers hold the repository lock (captureLockFor, which also prepares the repository).
 */
export async function commitAndPush(rt: Runtime, repo: Repo, message: string, push: boolean): Promise<SyncReport> {
  const report: SyncReport = { ...(await commitPending(rt, repo, message)) };
  if (!push || !rt.config.sync.push) return report;
  const remote = await memoryRemote(rt, repo);
  if (!remote) {
    report.unnamed = true;
    rt.log.info(`committed on this machine only: no memory remote is named (run \`${INIT_HINT}\`)`);
    return report;
  }
  if (!report.committed && (await aheadOfRemote(repo, remote.name)) === 0) return report;
  report.push = await pushNow(rt, repo, remote, {});
  if (report.push.status === 'unrelated') {
    // Another machine's home made the branch first (both named an empty remote before either
    // pushed): joined here as session start joins it, then pushed — not refused until then.
    const joined = await joinUnrelatedHome(rt, repo, remote);
    if (joined) {
      updateSyncState(repo.gitDir, (s) => recordOutcome(s, 'pull', true, rt.now(), joined.status, joined.detail));
      report.push = await pushNow(rt, repo, remote, {});
    }
  }
  await noticeOtherClones(rt, repo);
  return report;
}

/**
 * Pull, then push what is pending: session start (bounded by pull_timeout_ms) and
 * `memory sync`. Pending captures are committed first, so nothing waits for the batch.
 * Callers hold the repository through withMemoryRepo, which has prepared it.
 */
export async function syncNow(rt: Runtime, repo: Repo, opts: { totalMs?: number; pushAttempts?: number; message?: string }): Promise<SyncReport> {
  const report: SyncReport = { committed: false };
  if (await somethingToCommit(rt, repo)) {
    Object.assign(report, await commitPending(rt, repo, opts.message ?? `memory: ${rt.config.general.machine_name} pending captures`));
  }
  const remote = await memoryRemote(rt, repo);
  if (!remote) {
    report.unnamed = true;
    return report;
  }
  let pull = await pullRebase(repo, remote.name, networkLimits(rt, opts.totalMs), exportJsonlMatcher(repo, rt.config.general.export_dir), exportRelOf(rt, repo), repairOf(rt, repo));
  if (pull.status === 'unrelated') pull = (await joinUnrelatedHome(rt, repo, remote)) ?? pull;
  report.pull = pull;
  const pullOk = PULL_OK.has(pull.status);
  updateSyncState(repo.gitDir, (s) => recordOutcome(s, 'pull', pullOk, rt.now(), pull.status, pull.detail));
  if (!pullOk) {
    rt.log.warn(describeFailure('pull', pull.status, pull.detail));
    return report;
  }
  if (pull.stashKept) rt.log.warn(`pull: ${pull.detail ?? ''}`);
  else if (pull.detail) rt.log.info(`pull: ${pull.detail}`);
  if (rt.config.sync.push && (await aheadOfRemote(repo, remote.name)) > 0) {
    report.push = await pushNow(rt, repo, remote, { attempts: opts.pushAttempts ?? 2, ...(opts.totalMs ? { totalMs: opts.totalMs } : {}) });
  }
  await noticeOtherClones(rt, repo);
  await noticeClocks(rt, repo);
  return report;
}

/** Whether this machine's clock and another's disagree (their commit times say so): kept for session start and status. */
async function noticeClocks(rt: Runtime, repo: Repo): Promise<void> {
  const gap = await clockGap(repo, 'HEAD', rt.config.general.machine_name, rt.now().getTime(), MAX_CLOCK_SKEW_MS);
  const prev = readSyncState(repo.gitDir).clock;
  if (!gap && !prev) return;
  updateSyncState(repo.gitDir, (s) => {
    if (gap) s.clock = { at: rt.now().toISOString(), ours: gap.ours, other: gap.other, gap_ms: gap.gapMs };
    else delete s.clock;
  });
  if (gap) rt.log.warn(describeClock(gap.ours, gap.other, gap.gapMs));
}

export function describeClock(ours: 'ahead' | 'behind', other: string, gapMs: number): string {
  const days = gapMs >= 2 * 86_400_000 ? `${Math.round(gapMs / 86_400_000)} days` : `${Math.round(gapMs / 3_600_000)} hours`;
  return ours === 'ahead'
    ? `this machine's clock seems to run ${days} ahead of ${other}'s (${other} committed after this machine but dated it ${days} earlier). Memories are kept and synced either way; check the date and time here (\`date\`) and on ${other}`
    : `${other} dates its commits up to ${days} after this machine's clock: its clock (or this one's) is wrong. Its memories are kept, in time order as of when they arrived here; check the date and time on ${other} and here`;
}

/**
 * A memory home meets the memory remote's branch made by another machine's home: two `git
 * init`s share no history, but both hold memory data only, whose lines unite. Joined on top
 * of the remote's branch (home/join.ts); anything else unrelated stays refused.
 */
async function joinUnrelatedHome(rt: Runtime, repo: Repo, remote: MemoryRemote): Promise<PullOutcome | undefined> {
  if (!isHomeRepo(rt, repo)) return undefined;
  const branch = await currentBranch(repo);
  const upstream = `refs/remotes/${remote.name}/${branch ?? MEMORY_BRANCH}`;
  if (!treeIsMemoryData(repo, upstream, exportRelOf(rt, repo))) return undefined;
  const joined = await joinOnto(repo, upstream, exportRelOf(rt, repo));
  await commitPending(rt, repo, `memory: ${rt.config.general.machine_name} joins the memories on ${remote.name}`);
  rt.log.info(`joined the memories on ${remote.name} (${remote.url}): ${joined.lines} line(s) of this machine added in ${joined.files} file(s)${joined.settingsKept ? `; this machine's former config.toml is kept as ${joined.settingsKept}` : ''}`);
  return { status: 'pulled', detail: 'joined the memory branch of another machine (lines of both kept)' };
}

/**
 * Keep loose objects from piling up (`git gc --auto` waits for thousands): repack once
 * they pass `repack_loose_kb`; at the end of a session, once they pass an eighth of it.
 */
export async function maybeRepack(rt: Runtime, repo: Repo, endOfSession: boolean): Promise<boolean> {
  const limit = rt.config.sync.repack_loose_kb;
  if (limit <= 0) return false;
  try {
    const kb = await looseObjectsKb(repo);
    if (kb < (endOfSession ? Math.max(64, limit / 8) : limit)) return false;
    const t = performance.now();
    await repackAll(repo);
    rt.log.info(`repacked the memory repository (${kb} KiB of loose objects) in ${Math.round(performance.now() - t)} ms`);
    return true;
  } catch (err) {
    rt.log.warn(`git repack failed: ${errorMessage(err).split('\n')[0]}`);
    return false;
  }
}

/** What the user should be told at session start (shown, not given to the agent). */
export function syncNotices(rt: Runtime, state: SyncState | undefined, named: boolean, foreign?: string): { notices: string[]; told: string[] } {
  const notices: string[] = [];
  const told: string[] = [];
  if (!named) notices.push(`memory: memories are kept on this machine only — no memory remote is named. Run: ${initHintHere()}`);
  if (foreign) {
    notices.push(`memory: the memory repository is left alone while ${foreign}: new memories wait safely outside it and are committed once it is back on a branch (then at the next session start, or run \`memory sync\`).`);
  } else if (state?.deferred) {
    notices.push(`memory: captures waited since ${state.deferred.since} (${state.deferred.why}); they are being committed now.`);
  }
  if (!state) return { notices, told };
  // The old layout's memories moved into the home: said once, with where they went.
  for (const [i, m] of (state.moved ?? []).entries()) {
    const key = `moved:${i}`;
    if ((state.told ?? []).includes(key)) continue;
    notices.push(describeMove(m));
    told.push(key);
  }
  for (const a of state.set_aside ?? []) {
    // Keyed by what it was, not its place in the list (the list keeps the last twenty).
    const key = `set-aside:${a.at}:${a.files.join(',')}`;
    if ((state.told ?? []).includes(key)) continue;
    notices.push(`memory: ${describeSetAside(a)}. Nothing else changed and sync goes on; see \`memory status\`.`);
    told.push(key);
  }
  if (state.clock) {
    const c = state.clock;
    const key = `clock:${c.ours}:${c.other}:${Math.round(c.gap_ms / 86_400_000)}`;
    if (!(state.told ?? []).includes(key)) {
      notices.push(`memory: ${describeClock(c.ours, c.other, c.gap_ms)}.`);
      told.push(key);
    }
  }
  const fresh = (state.shared_name_clones ?? []).map((c) => `shared:${c}`).filter((k) => !(state.told ?? []).includes(k));
  if (fresh.length > 0) {
    notices.push(`memory: ${sharedNameNotice(rt.config.general.machine_name)}`);
    told.push(...fresh);
  }
  const broken = brokenFor(state, rt.now());
  if (state.last_error && (state.last_error.status === 'unrelated' || state.last_error.status === 'lost')) {
    // Refused to protect the memories: it will not heal by itself, so say it at once.
    const e = state.last_error;
    notices.push(`memory: sync stopped — ${e.message}. Your memories are safe on this machine. See \`memory status\`; fix the memory remote (or name another with \`memory init --remote <url>\`), then run \`memory sync\`.`);
  } else if (state.last_error?.status === 'conflict') {
    // Not a passing network fault: it will not heal by itself, so say it at once.
    const e = state.last_error;
    notices.push(`memory: the last ${e.op} stopped on a git conflict outside the memory files (${e.message}); your memories are committed here but not synced. See \`memory status\`, resolve it in the memory repository, then run \`memory sync\`.`);
  } else if (broken !== undefined && state.last_error) {
    const e = state.last_error;
    notices.push(`memory: sync has been failing for ${Math.floor(broken / 3600_000)} hours (last: ${e.op} ${e.status}${e.message ? `: ${e.message}` : ''}); memories are kept on this machine. Run \`memory sync\` to retry, \`memory status\` for details.`);
  }
  return { notices, told };
}
