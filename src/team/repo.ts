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

/**
 * Make the clone if it is missing; point its origin at `url` (the person may have moved the team).
 * A new clone is partial and sparse: commits and trees of the whole team, the memory files only
 * of what this person reads (setCone), fetched when they are read — a team remote of every
 * project's years is not every laptop's to hold. A host that does not filter sends everything,
 * and only the checkout is sparse.
 */
export async function openTeamClone(repo: Repo, url: string): Promise<void> {
  if (!existsSync(repo.gitDir)) {
    mkdirSync(repo.root, { recursive: true, mode: 0o700 });
    await git(repo, ['init', '-q']);
    await git(repo, ['symbolic-ref', 'HEAD', `refs/heads/${MEMORY_BRANCH}`]);
    await git(repo, ['remote', 'add', 'origin', url]);
    // Until the cone is set, the root's files only (team.toml).
    if (await git(repo, ['sparse-checkout', 'set', '--cone']).then(() => true, () => false)) {
      await git(repo, ['config', 'remote.origin.promisor', 'true']);
      await git(repo, ['config', 'remote.origin.partialclonefilter', 'blob:none']);
    }
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
 * the remote has it; else our commits replayed onto it (sync/replay.ts, union-settled). What
 * the checkout needs of a partial clone is fetched first, within the same bounds (never on
 * demand by a git call that nothing bounds); lines dropped are looked for where this person
 * reads.
 */
export async function pullTeam(repo: Repo, limits: NetworkLimits): Promise<PullOutcome> {
  const cone = await coneOf(repo);
  if (await hasHistory(repo)) return pullRebase(repo, 'origin', limits, isJsonl, cone ?? '', undefined, (upstream) => prefetchChanged(repo, 'HEAD', upstream, cone, limits));
  try {
    await runNetworkGit(repo.root, ['fetch', '--progress', '--no-tags', 'origin', `+refs/heads/${MEMORY_BRANCH}:refs/remotes/origin/${MEMORY_BRANCH}`], limits);
  } catch (err) {
    if (/couldn't find remote ref/i.test(String((err as Error).message))) return { status: 'no-branch', detail: 'the team remote holds no team yet' };
    const c = classify(err);
    return { status: c.kind === 'offline' || c.kind === 'auth' || c.kind === 'timeout' ? c.kind : 'failed', detail: c.detail };
  }
  try {
    await prefetch(repo, await blobsIn(repo, `refs/remotes/origin/${MEMORY_BRANCH}`, cone), limits);
  } catch (err) {
    const c = classify(err);
    return { status: c.kind === 'offline' || c.kind === 'auth' || c.kind === 'timeout' ? c.kind : 'failed', detail: c.detail };
  }
  await git(repo, ['checkout', '-q', '-B', MEMORY_BRANCH, `refs/remotes/origin/${MEMORY_BRANCH}`]);
  await git(repo, ['branch', '-q', `--set-upstream-to=origin/${MEMORY_BRANCH}`]).catch(() => '');
  return { status: 'pulled' };
}

// ---------------------------------------------------------------------------------------------
// The cone: what of the team remote this clone holds.

/** Whether blobs are fetched as needed (a partial clone). */
async function isPartial(repo: Repo): Promise<boolean> {
  return (await git(repo, ['config', '--get', 'remote.origin.promisor']).catch(() => '')).trim() === 'true';
}

/** The folders checked out (cone mode), or undefined when the whole tree is (a clone made before sparse ones, or a git without them). */
export async function coneOf(repo: Repo): Promise<string[] | undefined> {
  const sparse = (await git(repo, ['config', '--bool', '--get', 'core.sparseCheckout']).catch(() => '')).trim() === 'true';
  if (!sparse) return undefined;
  const out = await git(repo, ['sparse-checkout', 'list']).catch(() => undefined);
  return out === undefined ? undefined : out.split('\n').map((l) => l.trim()).filter((l) => l.length > 0).sort();
}

/** Pathspecs of a cone: its folders, the root's files, and the files beside a nested folder (cone mode checks those out too). */
export function conePathspecs(cone: string[]): string[] {
  const parents = new Set<string>();
  for (const d of cone) {
    const parts = d.split('/');
    for (let i = 1; i < parts.length; i++) parents.add(parts.slice(0, i).join('/'));
  }
  return [':(glob)*', ...cone, ...[...parents].map((p) => `:(glob)${p}/*`)];
}

/** Blob ids of `ref` inside the cone (the whole tree without one). */
async function blobsIn(repo: Repo, ref: string, cone: string[] | undefined): Promise<string[]> {
  const lines = cone === undefined ? await git(repo, ['ls-tree', '-r', ref]) : [await git(repo, ['ls-tree', ref]), ...(cone.length > 0 ? [await git(repo, ['ls-tree', '-r', ref, '--', ...cone])] : [])].join('\n');
  const out: string[] = [];
  for (const l of lines.split('\n')) {
    const m = /^\d+ blob ([0-9a-f]{40,64})\t/.exec(l);
    if (m) out.push(m[1] as string);
  }
  return [...new Set(out)];
}

/** Blobs that going from `from` to `to` brings inside the cone. */
async function prefetchChanged(repo: Repo, from: string, to: string, cone: string[] | undefined, limits: NetworkLimits): Promise<void> {
  if (!(await isPartial(repo))) return;
  const raw = await git(repo, ['diff', '--raw', '--no-abbrev', '--no-renames', from, to, '--', ...(cone ? conePathspecs(cone) : ['.'])]);
  const oids = new Set<string>();
  for (const l of raw.split('\n')) {
    const m = /^:\d+ \d+ [0-9a-f]+ ([0-9a-f]+) /.exec(l);
    if (m && !/^0+$/.test(m[1] as string)) oids.add(m[1] as string);
  }
  await prefetch(repo, [...oids], limits);
}

/**
 * Fetch these blobs of a partial clone, bounded, as git's own on-demand fetch would (objects
 * already here cost nothing: git asks the remote only for what it lacks).
 */
async function prefetch(repo: Repo, oids: string[], limits: NetworkLimits): Promise<void> {
  if (oids.length === 0 || !(await isPartial(repo))) return;
  for (let i = 0; i < oids.length; i += 1000) {
    // --progress: the remote counts and compresses a large set in silence otherwise, which the silence limit would take for a stalled remote.
    await runNetworkGit(repo.root, ['-c', 'fetch.negotiationAlgorithm=noop', 'fetch', '--progress', '--no-tags', '--no-write-fetch-head', '--filter=blob:none', 'origin', ...oids.slice(i, i + 1000)], limits);
  }
}

/**
 * Check out exactly `cone` (folders: a project whole, or one person's folder of it): what it
 * adds is fetched first, bounded; then git moves the files. Nothing is done when it is already
 * so. A clone that is not sparse is left whole.
 */
export async function setCone(repo: Repo, cone: string[], limits: NetworkLimits): Promise<'same' | 'set' | 'whole'> {
  const now = await coneOf(repo);
  if (now === undefined) return 'whole';
  const want = [...new Set(cone)].sort();
  if (want.length === now.length && want.every((d, i) => d === now[i])) return 'same';
  if (await hasHistory(repo)) {
    const added = want.filter((d) => !now.some((n) => d === n || d.startsWith(`${n}/`)));
    if (added.length > 0) await prefetch(repo, await blobsIn(repo, 'HEAD', added), limits);
  }
  await runNetworkGit(repo.root, ['sparse-checkout', 'set', '--cone', ...want], limits);
  return 'set';
}

export async function pushTeam(repo: Repo, limits: NetworkLimits): Promise<PushOutcome> {
  const cone = await coneOf(repo);
  return pushWithRetry(repo, 'origin', { limits, isMemoryFile: isJsonl, exportRel: cone ?? '', prepare: (upstream) => prefetchChanged(repo, 'HEAD', upstream, cone, limits) });
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
