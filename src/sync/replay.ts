/**
 * Pull and push without losing a line: fetch, then replay exactly the commits the remote
 * lacks onto it (never `pull --rebase`), settle conflicts on memory files by keeping both
 * sides, give the person's uncommitted changes back, refuse what would drop memories. Never
 * force-pushes, never leaves a rebase open.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { SimpleGit } from 'simple-git';
import { errorMessage } from '../errors.js';
import { droppedIds, type MemoryScope } from './history.js';
import { unionLines } from './memory-files.js';
import { DEFAULT_LIMITS, type NetworkLimits, type Repo, classify, currentBranch, git, hasRemote, ourGit, runNetworkGit } from './process.js';

export type PushStatus = 'pushed' | 'up-to-date' | 'no-remote' | 'detached' | 'offline' | 'auth' | 'conflict' | 'unrelated' | 'lost' | 'timeout' | 'failed';

export interface PushOutcome {
  status: PushStatus;
  attempts: number;
  detail?: string;
}

export interface PullOutcome {
  /**
   * `unrelated`: the remote branch shares no history with ours (never joined, never pushed
   * over). `lost`: taking the remote's side would drop memories no tombstone explains;
   * the local state is kept as it was and nothing is pushed.
   */
  status: 'pulled' | 'up-to-date' | 'no-remote' | 'no-branch' | 'detached' | 'offline' | 'auth' | 'conflict' | 'timeout' | 'unrelated' | 'lost' | 'failed';
  detail?: string;
  /** The person's uncommitted changes could not be put back after the pull: they are in `git stash list`. */
  stashKept?: boolean;
}

const REBASE_MARKER = 'memory-engine-rebase';

const STASH_MESSAGE = 'memory-engine: before replaying onto the remote';

/** A rebase of ours that a killed run left open (undone by the next writer): not the person's. */
export function ourRebaseOpen(repo: Repo): boolean {
  return existsSync(join(repo.gitDir, REBASE_MARKER)) && (existsSync(join(repo.gitDir, 'rebase-merge')) || existsSync(join(repo.gitDir, 'rebase-apply')));
}

/** A rebase we started and did not finish (process killed): abort it. Someone else's: leave it. */
export async function recoverInterruptedRebase(repo: Repo): Promise<boolean> {
  const marker = join(repo.gitDir, REBASE_MARKER);
  if (!existsSync(marker)) return false;
  const open = existsSync(join(repo.gitDir, 'rebase-merge')) || existsSync(join(repo.gitDir, 'rebase-apply'));
  if (open) {
    try {
      await git(repo.root).rebase(['--abort']);
    } catch {
      /* nothing to abort */
    }
  }
  rmSync(marker, { force: true });
  return open;
}

async function stageText(g: SimpleGit, stage: number, path: string): Promise<string | undefined> {
  try {
    return await g.raw(['show', `:${stage}:${path}`]);
  } catch {
    return undefined;
  }
}

/**
 * Finish a rebase whose only conflicts are on memory files. Content conflicts keep both
 * sides' lines (a fallback for when the union attribute is missing); a modify/delete
 * conflict means another machine folded a month file into the archive while this one
 * appended a late line: the file is kept whole, so the late lines live on and the next
 * monthly-merge folds them (lines already in the archive resolve to the same memories).
 * Anything else is not ours to settle: the caller aborts the rebase.
 */
async function settleRebase(repo: Repo, isMemoryFile: (path: string) => boolean): Promise<boolean> {
  const g = git(repo.root);
  // The editor is the fixed command `true`: git must not wait for a person to confirm
  // the replayed commit's message (simple-git asks for this to be said explicitly).
  const cont = ourGit(repo.root, undefined, ['core.editor=true']);
  for (let i = 0; i < 200; i++) {
    const inRebase = existsSync(join(repo.gitDir, 'rebase-merge')) || existsSync(join(repo.gitDir, 'rebase-apply'));
    if (!inRebase) return true;
    const unmerged = [...new Set((await g.raw(['diff', '--name-only', '--diff-filter=U'])).split('\n').filter((l) => l.length > 0))];
    if (!unmerged.every(isMemoryFile)) return false;
    for (const path of unmerged) {
      const ours = await stageText(g, 2, path);
      const theirs = await stageText(g, 3, path);
      const text = ours !== undefined && theirs !== undefined ? unionLines(ours, theirs) : (ours ?? theirs);
      if (text === undefined) {
        await g.raw(['rm', '-q', '--cached', '--ignore-unmatch', '--', path]);
        continue;
      }
      mkdirSync(dirname(join(repo.root, path)), { recursive: true });
      writeFileSync(join(repo.root, path), text);
      await g.raw(['add', '--', path]);
    }
    try {
      await cont.raw(['rebase', '--continue']);
    } catch (err) {
      const c = classify(err);
      // "nothing to commit": the replayed commit became empty once settled; skip it.
      if (/nothing to commit|no changes/i.test(errorMessage(err))) {
        try {
          await cont.raw(['rebase', '--skip']);
        } catch (e2) {
          if (classify(e2).kind !== 'conflict') return false;
        }
        continue;
      }
      if (c.kind !== 'conflict') return false;
    }
  }
  return false;
}

/** Tracked changes (staged or not) in the work tree: what a rebase would refuse to run over. */
async function trackedChanges(g: SimpleGit): Promise<boolean> {
  return (await g.raw(['status', '--porcelain', '--untracked-files=no'])).trim().length > 0;
}

/**
 * Mends what a pull brought before it is judged (app/sync/repair.ts): lines that no longer parse
 * are set aside and the versions they replaced restored, committed. Says what it did, if anything.
 */
export type RepairPulled = (before: string) => Promise<string | undefined>;

/**
 * Fetch the remote branch, then replay every commit of ours that it does not hold onto it.
 * Never `git pull --rebase`: its fork point comes from the remote-tracking branch's reflog,
 * so after the remote was rewound (a force-push of an older state, a restore from backup)
 * it drops our commits that had been pushed — measured: 59 of 9,177 memories lost on every
 * machine. `--no-fork-point` replays exactly `upstream..HEAD`, so what the remote lost is
 * pushed again. A remote branch with unrelated history is refused, never joined; a result
 * that would drop memories is undone and reported.
 */
/**
 * `scope`: where memory files are whose lines must survive (a folder, '' for all; or these
 * folders: a team clone's cone). `prepare`: run after the fetch, before anything is replayed
 * (a partial clone fetches, bounded, what the replay will read).
 */
export async function pullRebase(repo: Repo, remote: string, limits: NetworkLimits, isMemoryFile: (path: string) => boolean = () => false, exportRel: MemoryScope = '', repair?: RepairPulled, prepare?: (upstream: string) => Promise<void>): Promise<PullOutcome> {
  const branch = await currentBranch(repo);
  if (!branch) return { status: 'detached', detail: 'HEAD is detached: not pulling' };
  if (!(await hasRemote(repo, remote))) return { status: 'no-remote', detail: `no remote "${remote}"` };
  const upstream = `refs/remotes/${remote}/${branch}`;
  try {
    await runNetworkGit(repo.root, ['fetch', '--progress', '--no-tags', remote, `+refs/heads/${branch}:${upstream}`], limits);
  } catch (err) {
    if (/couldn't find remote ref/i.test(errorMessage(err))) {
      // Deleted (or never created): forget the stale tracking ref, so everything of ours
      // counts as unpushed and the next push recreates the branch with all of it.
      await git(repo.root).raw(['update-ref', '-d', upstream]).catch(() => '');
      return { status: 'no-branch', detail: `${remote}/${branch} does not exist yet` };
    }
    const c = classify(err);
    if (c.kind === 'offline' || c.kind === 'auth' || c.kind === 'timeout') return { status: c.kind, detail: c.detail };
    return { status: 'failed', detail: c.detail };
  }
  if (!(await sharesHistory(repo, upstream))) {
    return { status: 'unrelated', detail: `${remote}/${branch} shares no history with this repository: refusing to pull from or push to it` };
  }
  const g = git(repo.root);
  const before = (await g.revparse(['HEAD'])).trim();
  const remoteSha = (await g.revparse([upstream])).trim();
  // Already holding everything the remote has: nothing to replay (what we have beyond it is pushed next).
  if (await isAncestor(repo, remoteSha, before)) return { status: 'up-to-date' };
  if (prepare) {
    try {
      await prepare(upstream);
    } catch (err) {
      const c = classify(err);
      return { status: c.kind === 'offline' || c.kind === 'auth' || c.kind === 'timeout' ? c.kind : 'failed', detail: c.detail };
    }
  }
  const stashed = await trackedChanges(g);
  const marker = join(repo.gitDir, REBASE_MARKER);
  let settled = false;
  let popFailed: string | undefined;
  const outcome = await (async (): Promise<PullOutcome> => {
    try {
      // Our own stash, not --autostash: `stash pop --index` gives back staged changes staged.
      if (stashed) await g.raw(['stash', 'push', '-q', '-m', STASH_MESSAGE]);
      writeFileSync(marker, String(process.pid));
      try {
        await git(repo.root).raw(['rebase', '-q', '--no-fork-point', '--no-autostash', upstream]);
      } catch (err) {
        const c = classify(err);
        if (c.kind === 'conflict' && (await settleRebase(repo, isMemoryFile))) settled = true;
        else {
          await recoverInterruptedRebase(repo);
          if (c.kind === 'conflict') return { status: 'conflict', detail: `rebase conflict, aborted; local commits kept (${c.detail})` };
          return { status: 'failed', detail: c.detail };
        }
      }
      rmSync(marker, { force: true });
      const repaired = repair ? await repair(before) : undefined;
      const after = (await g.revparse(['HEAD'])).trim();
      const dropped = await droppedIds(repo, before, after, exportRel);
      if (dropped.length > 0) {
        await g.raw(['reset', '-q', '--keep', before]);
        return { status: 'lost', detail: `taking ${remote}/${branch} would drop ${dropped.length} memor${dropped.length === 1 ? 'y' : 'ies'} that no tombstone explains (e.g. ${dropped.slice(0, 3).join(', ')}): kept this machine's state, nothing pushed` };
      }
      const details = [...(settled ? ['settled a conflict on memory files (lines of both sides kept)'] : []), ...(repaired ? [repaired] : [])];
      return details.length > 0 ? { status: 'pulled', detail: details.join('; ') } : { status: 'pulled' };
    } finally {
      rmSync(marker, { force: true });
      if (stashed) popFailed = await popStash(g);
    }
  })();
  return popFailed ? { ...outcome, detail: [outcome.detail, popFailed].filter(Boolean).join('; '), stashKept: true } : outcome;
}

/**
 * Put the person's uncommitted changes back; if git cannot, say where they are kept (never
 * dropped). Judged by the stash itself, not the exit status: a pop that stops on a conflict
 * can exit without a word on stderr, which simple-git does not count as a failure.
 */
async function popStash(g: SimpleGit): Promise<string | undefined> {
  const ours = async () => (await g.raw(['rev-parse', '-q', '--verify', 'refs/stash']).catch(() => '')).trim();
  const top = await ours();
  const tryPop = async (args: string[]): Promise<string | undefined> => {
    try {
      await g.raw(['stash', 'pop', '-q', ...args]);
    } catch (err) {
      return errorMessage(err).split('\n')[0] ?? 'failed';
    }
    return (await ours()) === top ? 'git kept the stash' : undefined;
  };
  if ((await tryPop(['--index'])) === undefined) return undefined;
  const why = await tryPop([]);
  if (why === undefined) return undefined;
  // Stopped on a conflict: the stash is kept, and the half-applied files go back to HEAD so
  // that no unmerged path blocks the next commit. Their changes are all in the stash.
  const conflicted = (await g.raw(['diff', '--name-only', '--diff-filter=U']).catch(() => '')).trim();
  await g.raw(['reset', '-q', '--merge']).catch(() => '');
  return `your uncommitted changes in the memory repository could not be put back${conflicted ? ` (they conflict with the pulled ${conflicted.split('\n').join(', ')})` : ` (${why})`}: they are kept in \`git stash list\` as "${STASH_MESSAGE}"; \`git stash pop\` gives them back`;
}

/** Whether commit `a` is in `b`'s history (by counting, since `--is-ancestor` answers only by exit code). */
async function isAncestor(repo: Repo, a: string, b: string): Promise<boolean> {
  return Number((await git(repo.root).raw(['rev-list', '--count', `${b}..${a}`])).trim()) === 0;
}

/** Push; when rejected because another machine pushed first, rebase onto it and retry. */
export async function pushWithRetry(
  repo: Repo,
  remote: string,
  opts: { attempts?: number; limits?: NetworkLimits; isMemoryFile?: (path: string) => boolean; exportRel?: MemoryScope; repair?: RepairPulled; prepare?: (upstream: string) => Promise<void> } = {},
): Promise<PushOutcome> {
  const branch = await currentBranch(repo);
  if (!branch) return { status: 'detached', attempts: 0, detail: 'HEAD is detached: commit kept, not pushed' };
  if (!(await hasRemote(repo, remote))) return { status: 'no-remote', attempts: 0, detail: `no remote "${remote}": commit kept locally` };
  const attempts = opts.attempts ?? 4;
  let last = '';
  for (let i = 1; i <= attempts; i++) {
    try {
      // git push -q is silent while it packs (a 300 MB monthly-merge push was quiet for over a
      // minute, bench/merge.ts): --progress keeps it talking, so silence means a stalled remote.
      const res = await runNetworkGit(repo.root, ['push', '--progress', '--porcelain', remote, `refs/heads/${branch}:refs/heads/${branch}`], opts.limits ?? DEFAULT_LIMITS);
      return { status: /^=\t/m.test(res.stdout) || /Everything up-to-date/.test(res.stderr) ? 'up-to-date' : 'pushed', attempts: i };
    } catch (err) {
      const c = classify(err);
      last = c.detail;
      if (c.kind !== 'rejected') {
        const status = c.kind === 'offline' || c.kind === 'auth' || c.kind === 'timeout' ? c.kind : 'failed';
        return { status, attempts: i, detail: c.detail };
      }
      const pulled = await pullRebase(repo, remote, opts.limits ?? DEFAULT_LIMITS, opts.isMemoryFile, opts.exportRel, opts.repair, opts.prepare);
      const stop = ['conflict', 'offline', 'auth', 'timeout', 'unrelated', 'lost', 'failed', 'detached'] as const;
      for (const st of stop) if (pulled.status === st) return { status: st, attempts: i, detail: pulled.detail ?? last };
    }
  }
  return { status: 'failed', attempts, detail: `still rejected after ${attempts} attempts: ${last}` };
}

/** Undo our last commit, keeping uncommitted work (used to redo a monthly-merge on fresh inputs). */
export async function dropLastCommit(repo: Repo): Promise<void> {
  await git(repo.root).raw(['reset', '-q', '--keep', 'HEAD~1']);
}

/** Whether HEAD and `ref` share history (a memory remote holding unrelated history cannot be joined). */
export async function sharesHistory(repo: Repo, ref: string): Promise<boolean> {
  // `git merge-base` exits 1 with nothing on stderr for unrelated histories, and simple-git
  // does not throw on that: the answer is whether it printed a commit.
  try {
    return /^[0-9a-f]{7,}$/m.test((await git(repo.root).raw(['merge-base', 'HEAD', ref])).trim());
  } catch {
    return false;
  }
}
