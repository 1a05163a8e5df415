/**
 * A team's remote as this machine holds it: a clone in the memory home's `.cache/teams/<name>/`
 * (disposable like the cache: what it holds is on the remote, and what this machine publishes
 * is published again from its own memories if the clone is lost), on branch `memories`, its
 * memory files merged as append-only lines (union) exactly as the personal remote's. Pulled and
 * pushed bounded, with the personal remote's guarantees: no line lost, no conflict marker,
 * never a force-push.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MEMORY_BRANCH } from '../home/place.js';
import { ensureUnionMerge } from '../sync/memory-files.js';
import { ourGit, runNetworkGit, classify, type NetworkLimits, type Repo } from '../sync/process.js';
import { pullRebase, pushWithRetry, type PullOutcome, type PushOutcome } from '../sync/replay.js';
import { probeRemote } from '../sync/remote.js';
import { teamFolder } from './light.js';
import { MANIFEST_FILE, parseManifest, type TeamManifest } from './manifest.js';

/** The folder of a team's local state (clone, cache, outbox) in the memory home's `.cache/`. */
export const teamDir = teamFolder;

export function teamRepoOf(baseDir: string, team: string): Repo {
  const root = join(teamDir(baseDir, team), 'repo');
  return { root, gitDir: join(root, '.git') };
}

const isJsonl = (p: string) => p.endsWith('.jsonl');

/** git in the clone, for the few plumbing calls here. */
async function git(repo: Repo, args: string[]): Promise<string> {
  return ourGit(repo.root).raw(args);
}

/** Make the clone if it is missing; point its origin at `url` (the person may have moved the team). */
export async function openTeamClone(repo: Repo, url: string): Promise<void> {
  if (!existsSync(repo.gitDir)) {
    mkdirSync(repo.root, { recursive: true, mode: 0o700 });
    await git(repo, ['init', '-q']);
    await git(repo, ['symbolic-ref', 'HEAD', `refs/heads/${MEMORY_BRANCH}`]);
    await git(repo, ['remote', 'add', 'origin', url]);
  } else {
    const current = (await git(repo, ['remote', 'get-url', 'origin']).catch(() => '')).trim();
    if (current !== url) await git(repo, current ? ['remote', 'set-url', 'origin', url] : ['remote', 'add', 'origin', url]);
  }
  // Memory files anywhere in the tree are append-only lines: a merge keeps both sides.
  ensureUnionMerge(repo, repo.root);
}

/** Whether the clone has a commit yet. */
export async function hasHistory(repo: Repo): Promise<boolean> {
  return (await git(repo, ['rev-parse', '--verify', '-q', 'HEAD']).catch(() => '')).trim().length > 0;
}

/**
 * Bring the clone up to the remote: fetched, and — with nothing of ours yet — checked out as
 * the remote has it; else our commits replayed onto it (sync/replay.ts, union-settled).
 */
export async function pullTeam(repo: Repo, limits: NetworkLimits): Promise<PullOutcome> {
  if (await hasHistory(repo)) return pullRebase(repo, 'origin', limits, isJsonl, '');
  try {
    await runNetworkGit(repo.root, ['fetch', '--progress', '--no-tags', 'origin', `+refs/heads/${MEMORY_BRANCH}:refs/remotes/origin/${MEMORY_BRANCH}`], limits);
  } catch (err) {
    if (/couldn't find remote ref/i.test(String((err as Error).message))) return { status: 'no-branch', detail: 'the team remote holds no team yet' };
    const c = classify(err);
    return { status: c.kind === 'offline' || c.kind === 'auth' || c.kind === 'timeout' ? c.kind : 'failed', detail: c.detail };
  }
  await git(repo, ['checkout', '-q', '-B', MEMORY_BRANCH, `refs/remotes/origin/${MEMORY_BRANCH}`]);
  await git(repo, ['branch', '-q', `--set-upstream-to=origin/${MEMORY_BRANCH}`]).catch(() => '');
  return { status: 'pulled' };
}

export async function pushTeam(repo: Repo, limits: NetworkLimits): Promise<PushOutcome> {
  return pushWithRetry(repo, 'origin', { limits, isMemoryFile: isJsonl, exportRel: '' });
}

/** The team's team.toml as the clone holds it, or undefined when it holds none. */
export function readTeamManifest(repo: Repo): TeamManifest | undefined {
  const p = join(repo.root, MANIFEST_FILE);
  if (!existsSync(p)) return undefined;
  return parseManifest(readFileSync(p, 'utf8'), `${MANIFEST_FILE} of the team remote`);
}

export function writeTeamFile(repo: Repo, name: string, text: string): void {
  writeFileSync(join(repo.root, name), text);
}

/** The branches a remote has (empty: a new, empty remote); undefined with the reason when it cannot be read. */
export async function remoteBranches(dir: string, url: string, limits: NetworkLimits): Promise<{ ok: true; branches: string[] } | { ok: false; detail: string }> {
  const p = await probeRemote({ root: dir, gitDir: join(dir, '.git') }, url, limits);
  return p.ok ? { ok: true, branches: p.branches } : { ok: false, detail: p.detail ?? 'no answer' };
}
