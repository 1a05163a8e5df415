/**
 * What history says, read only: lines a change removed and whether their memories survive it,
 * how far this clone is ahead of or behind its remote, which clones and machine names wrote
 * commits, and whether the clocks in commit times disagree.
 */
import { CLONE_TRAILER, MACHINE_TRAILER } from './commit.js';
import { ID_IN_LINE, idOfWholeLine } from '../export/jsonl.js';
import { type Repo, currentBranch, git, ourGit } from './process.js';

/** Where memory files are: a folder of the repository ('' for all of it), or these folders. */
export type MemoryScope = string | string[];

/** Pathspecs of a scope (plain folders: ls-tree takes no pathspec magic). */
function pathsOf(scope: MemoryScope): string[] {
  return Array.isArray(scope) ? scope : [scope || '.'];
}

export interface LineChange {
  /** Repository path of a memory file that lost lines. */
  path: string;
  removed: string[];
  added: string[];
}

/**
 * The lines removed and added, from `before` to `after`, in files under `rel` that lost
 * lines. Most pulls only add lines: the (possibly large) line diff is read only of files
 * that lost some.
 */
export async function lostLines(repo: Repo, before: string, after: string, rel: MemoryScope): Promise<LineChange[]> {
  if (pathsOf(rel).length === 0) return [];
  // Paths as they are (a machine name may not be ASCII), not quoted.
  const g = ourGit(repo.root, undefined, ['core.quotePath=false']);
  const numstat = await g.raw(['diff', '--numstat', '--no-renames', before, after, '--', ...pathsOf(rel)]);
  const shrunk = numstat.split('\n').map((l) => l.split('\t')).filter((f) => f.length >= 3 && f[1] !== '0' && f[1] !== '-').map((f) => f[2] as string);
  if (shrunk.length === 0) return [];
  // Prefixes, colour and drivers as parsed below, whatever the person's diff settings say.
  const diff = await g.raw(['diff', '--no-renames', '--no-color', '--no-ext-diff', '--src-prefix=a/', '--dst-prefix=b/', '-U0', before, after, '--', ...shrunk]);
  const out: LineChange[] = [];
  let cur: LineChange | undefined;
  let oldPath = '';
  for (const line of diff.split('\n')) {
    if (line.startsWith('diff --git ')) {
      cur = undefined;
      continue;
    }
    if (!cur && line.startsWith('--- ')) {
      oldPath = line === '--- /dev/null' ? '' : line.slice(6);
      continue;
    }
    if (!cur && line.startsWith('+++ ')) {
      // A deleted file's new side is /dev/null: its lines count as removed from its old path.
      cur = { path: line === '+++ /dev/null' ? oldPath : line.slice(6), removed: [], added: [] };
      out.push(cur);
      continue;
    }
    if (!cur) continue;
    if (line.startsWith('-')) cur.removed.push(line.slice(1));
    else if (line.startsWith('+')) cur.added.push(line.slice(1));
  }
  return out.filter((c) => c.path !== '');
}

/** Which of `wanted` are ids of whole lines in the memory files of commit `at` under `rel`. */
export async function idsPresent(repo: Repo, at: string, rel: MemoryScope, wanted: Set<string>): Promise<Set<string>> {
  const present = new Set<string>();
  if (wanted.size === 0 || pathsOf(rel).length === 0) return present;
  const files = (await git(repo.root).raw(['ls-tree', '-r', '--name-only', at, '--', ...pathsOf(rel)])).split('\n').filter((f) => f.endsWith('.jsonl'));
  for (const f of files) {
    const text = await git(repo.root).raw(['show', `${at}:${f}`]);
    for (const line of text.split('\n')) {
      const m = ID_IN_LINE.exec(line);
      if (!m?.[1] || !wanted.has(m[1])) continue;
      const id = idOfWholeLine(line);
      if (id !== undefined) present.add(id);
    }
  }
  return present;
}

/**
 * Memories that going from `before` to `after` would drop: ids of whole lines removed under
 * `rel` that no whole line holds afterwards. Memory files are append-only, so removed lines
 * are rare (monthly-merge moves them into the archive, which keeps the ids); an id that
 * vanishes entirely was lost, not forgotten — a tombstone keeps it.
 */
export async function droppedIds(repo: Repo, before: string, after: string, rel: MemoryScope): Promise<string[]> {
  const removed = new Set<string>();
  const added = new Set<string>();
  for (const c of await lostLines(repo, before, after, rel)) {
    for (const l of c.removed) {
      const id = idOfWholeLine(l);
      if (id !== undefined) removed.add(id);
    }
    for (const l of c.added) {
      const id = idOfWholeLine(l);
      if (id !== undefined) added.add(id);
    }
  }
  const candidates = [...removed].filter((id) => !added.has(id));
  if (candidates.length === 0) return [];
  const present = await idsPresent(repo, after, rel, new Set(candidates));
  return candidates.filter((id) => !present.has(id));
}

/** Commits on this branch that the remote branch does not have yet. */
export async function aheadOfRemote(repo: Repo, remote: string): Promise<number> {
  const branch = await currentBranch(repo);
  if (!branch) return 0;
  try {
    const out = await git(repo.root).raw(['rev-list', '--count', `${remote}/${branch}..HEAD`]);
    return Number(out.trim()) || 0;
  } catch {
    // No remote-tracking ref yet: everything is ahead.
    try {
      return Number((await git(repo.root).raw(['rev-list', '--count', 'HEAD'])).trim()) || 0;
    } catch {
      return 0;
    }
  }
}

/** Commits ahead of / behind the remote-tracking branch, from local refs (no network). */
export async function aheadBehind(repo: Repo, remote: string): Promise<{ ahead: number; behind: number } | undefined> {
  const branch = await currentBranch(repo);
  if (!branch) return undefined;
  try {
    const out = (await git(repo.root).raw(['rev-list', '--left-right', '--count', `HEAD...${remote}/${branch}`])).trim().split(/\s+/);
    return { ahead: Number(out[0]) || 0, behind: Number(out[1]) || 0 };
  } catch {
    // Never fetched from or pushed to that remote yet: what no remote-tracking ref holds.
    try {
      return { ahead: Number((await git(repo.root).raw(['rev-list', '--count', 'HEAD', '--not', '--remotes'])).trim()) || 0, behind: 0 };
    } catch {
      return undefined;
    }
  }
}

/** Paths under `prefix` on a remote-tracking branch (local refs only). */
export async function filesOnRemoteBranch(repo: Repo, remote: string, branch: string, prefix: string): Promise<string[]> {
  try {
    const out = await git(repo.root).raw(['ls-tree', '-r', '--name-only', `refs/remotes/${remote}/${branch}`, '--', prefix || '.']);
    return out.split('\n').filter((l) => l.length > 0);
  } catch {
    return [];
  }
}

/** Whether this clone's own reflog holds a commit whose subject starts with `prefix`. */
export async function reflogHasSubject(repo: Repo, prefix: string): Promise<boolean> {
  try {
    const out = await git(repo.root).raw(['reflog', '--format=%gs']);
    return out.split('\n').some((l) => /^(commit|rebase)[^:]*: /.test(l) && l.replace(/^(commit|rebase)[^:]*: /, '').startsWith(prefix));
  } catch {
    return false;
  }
}

/** Clone ids, other than `cloneId`, on recent commits that name `machine` as their writer. */
export async function otherClonesWritingAs(repo: Repo, machine: string, cloneId: string, depth = 200): Promise<string[]> {
  try {
    const fmt = `%(trailers:key=${MACHINE_TRAILER},valueonly,separator=%x2C)%x09%(trailers:key=${CLONE_TRAILER},valueonly,separator=%x2C)`;
    const out = await git(repo.root).raw(['log', `-n${depth}`, `--format=${fmt}`]);
    const others = new Set<string>();
    for (const line of out.split('\n')) {
      const [m, c] = line.split('\t').map((x) => x.trim());
      if (m === machine && c && c !== cloneId) others.add(c);
    }
    return [...others].sort();
  } catch {
    return [];
  }
}

export interface ClockGap {
  /** `ahead`: this machine's clock runs ahead of `other`'s; `behind`: behind it. */
  ours: 'ahead' | 'behind';
  other: string;
  gapMs: number;
}

/**
 * Clocks that disagree, read from commit times on the branch's first-parent line (our history
 * is linear: every pull is a rebase). A commit of another machine made after one of ours (it
 * comes later on the line) but dated more than `skewMs` before it: one of the two clocks is
 * wrong, ours said ahead. A commit of another machine dated more than `skewMs` after this
 * machine's now: ours said behind. The largest gap is returned.
 */
export async function clockGap(repo: Repo, ref: string, machine: string, nowMs: number, skewMs: number, depth = 300): Promise<ClockGap | undefined> {
  let out: string;
  try {
    out = await git(repo.root).raw(['log', '--first-parent', `-n${depth}`, `--format=%ct%x09%(trailers:key=${MACHINE_TRAILER},valueonly,separator=%x2C)`, ref]);
  } catch {
    return undefined;
  }
  let best: ClockGap | undefined;
  const consider = (g: ClockGap) => {
    if (g.gapMs > skewMs && (!best || g.gapMs > best.gapMs)) best = g;
  };
  // Newest first: the earliest-dated commit of another machine made after this point.
  let laterOther: { ms: number; machine: string } | undefined;
  for (const line of out.split('\n')) {
    const [ct, who] = line.split('\t');
    const ms = Number(ct) * 1000;
    const m = (who ?? '').trim();
    if (!Number.isFinite(ms) || m === '') continue;
    if (m === machine) {
      if (laterOther) consider({ ours: 'ahead', other: laterOther.machine, gapMs: ms - laterOther.ms });
      continue;
    }
    consider({ ours: 'behind', other: m, gapMs: ms - nowMs });
    if (!laterOther || ms < laterOther.ms) laterOther = { ms, machine: m };
  }
  return best;
}
