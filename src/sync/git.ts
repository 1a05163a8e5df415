/**
 * Git plumbing for the memory repository, through simple-git. Sees paths and messages,
 * never record contents; returns outcomes, never prints. Never force-pushes, never leaves
 * a rebase open.
 */
import { existsSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { simpleGit, type SimpleGit } from 'simple-git';
import { errorMessage } from '../errors.js';

export interface Repo {
  root: string;
  gitDir: string;
}

export type PushStatus = 'pushed' | 'up-to-date' | 'no-remote' | 'detached' | 'offline' | 'auth' | 'conflict' | 'failed';

export interface PushOutcome {
  status: PushStatus;
  attempts: number;
  detail?: string;
}

export interface PullOutcome {
  status: 'pulled' | 'up-to-date' | 'no-remote' | 'no-branch' | 'detached' | 'offline' | 'auth' | 'conflict' | 'timeout' | 'failed';
  detail?: string;
}

function git(dir: string, timeoutMs?: number): SimpleGit {
  return simpleGit({ baseDir: dir, ...(timeoutMs ? { timeout: { block: timeoutMs } } : {}) });
}

/** The repository that contains `dir`, or undefined when it is not under git. */
export async function findRepo(dir: string): Promise<Repo | undefined> {
  if (!existsSync(dir)) return undefined;
  try {
    const g = git(dir);
    const root = (await g.revparse(['--show-toplevel'])).trim();
    const gd = (await g.revparse(['--git-dir'])).trim();
    return { root, gitDir: isAbsolute(gd) ? gd : resolve(dir, gd) };
  } catch {
    return undefined;
  }
}

/** A lock file inside .git: per repository, never committed. */
export function repoLockPath(repo: Repo): string {
  return join(repo.gitDir, 'memory-engine.lock');
}

function classify(err: unknown): { kind: 'rejected' | 'offline' | 'auth' | 'conflict' | 'timeout' | 'other'; detail: string } {
  const msg = errorMessage(err);
  const detail = msg.split('\n').map((l) => l.trim()).filter((l) => l.length > 0).slice(0, 3).join(' | ');
  if (/block timeout|timed out|timeout reached/i.test(msg)) return { kind: 'timeout', detail };
  if (/rejected|non-fast-forward|fetch first|failed to push some refs/i.test(msg) && !/permission|denied|authentication/i.test(msg)) {
    return { kind: 'rejected', detail };
  }
  if (/authentication failed|permission denied|could not read username|access denied|403/i.test(msg)) return { kind: 'auth', detail };
  if (/CONFLICT|could not apply|resolve all conflicts|needs merge/i.test(msg)) return { kind: 'conflict', detail };
  if (/could not resolve host|unable to access|connection (refused|timed out)|network is unreachable|does not appear to be a git repository|could not read from remote|no such file or directory/i.test(msg)) {
    return { kind: 'offline', detail };
  }
  return { kind: 'other', detail };
}

export async function currentBranch(repo: Repo): Promise<string | undefined> {
  try {
    const b = (await git(repo.root).raw(['symbolic-ref', '--quiet', '--short', 'HEAD'])).trim();
    return b.length > 0 ? b : undefined;
  } catch {
    return undefined; // detached HEAD
  }
}

async function hasRemote(repo: Repo, remote: string): Promise<boolean> {
  const remotes = await git(repo.root).getRemotes();
  return remotes.some((r) => r.name === remote);
}

const REBASE_MARKER = 'memory-engine-rebase';

/**
 * A git process killed mid-command leaves .git/index.lock behind, and every later git
 * command fails on it. Called only while holding our repository lock, so the only git
 * that could own a fresh lock is a person's; one older than a few seconds is stale.
 */
export function clearStaleIndexLock(repo: Repo, olderThanMs = 2000): boolean {
  const lock = join(repo.gitDir, 'index.lock');
  try {
    if (Date.now() - statSync(lock).mtimeMs < olderThanMs) return false;
    rmSync(lock, { force: true });
    return true;
  } catch {
    return false;
  }
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

/**
 * Stage and commit everything that changed under the export folder, and nothing else
 * (the pathspec keeps a user's unrelated staged work out of our commit).
 */
export async function commitExport(repo: Repo, exportDir: string, message: string, machine: string): Promise<{ committed: boolean; sha?: string }> {
  const rel = relative(repo.root, exportDir) || '.';
  const g = git(repo.root);
  await g.raw(['add', '-A', '--', rel]);
  const staged = (await g.raw(['diff', '--cached', '--name-only', '--', rel])).trim();
  if (staged.length === 0) return { committed: false };
  const email = (await g.raw(['config', '--get', 'user.email']).catch(() => '')).trim();
  const name = (await g.raw(['config', '--get', 'user.name']).catch(() => '')).trim();
  // A machine without a git identity must still be able to save its memories.
  const withId = email && name ? g : simpleGit({ baseDir: repo.root, config: [`user.name=${name || 'memory-engine'}`, `user.email=${email || `memory-engine@${machine}.invalid`}`] });
  await withId.raw(['commit', '--no-verify', '-q', '-m', message, '--', rel]);
  const sha = (await g.revparse(['HEAD'])).trim();
  return { committed: true, sha };
}

/**
 * Finish a rebase whose only conflicts are on paths we know how to settle: this machine's
 * own month files, which only this machine ever writes. A modify/delete conflict there
 * means another machine folded the file into the archive while we appended a late line:
 * keeping our file keeps that line (the next monthly-merge folds it; identical lines
 * resolve to one memory).
 */
async function settleRebase(repo: Repo, resolvable: (path: string) => boolean): Promise<boolean> {
  const g = git(repo.root);
  for (let i = 0; i < 50; i++) {
    const inRebase = existsSync(join(repo.gitDir, 'rebase-merge')) || existsSync(join(repo.gitDir, 'rebase-apply'));
    if (!inRebase) return true;
    const unmerged = (await g.raw(['diff', '--name-only', '--diff-filter=U'])).split('\n').filter((l) => l.length > 0);
    if (unmerged.length === 0 || !unmerged.every(resolvable)) return false;
    for (const path of unmerged) {
      if (existsSync(join(repo.root, path))) await g.raw(['add', '--', path]);
      else await g.raw(['rm', '-q', '--cached', '--', path]);
    }
    try {
      await simpleGit({ baseDir: repo.root, config: ['core.editor=true'] }).raw(['rebase', '--continue']);
    } catch (err) {
      if (classify(err).kind !== 'conflict') return false;
    }
  }
  return false;
}

export async function pullRebase(repo: Repo, remote: string, timeoutMs: number, resolvable: (path: string) => boolean = () => false): Promise<PullOutcome> {
  const branch = await currentBranch(repo);
  if (!branch) return { status: 'detached', detail: 'HEAD is detached: not pulling' };
  if (!(await hasRemote(repo, remote))) return { status: 'no-remote', detail: `no remote "${remote}"` };
  const g = git(repo.root, timeoutMs);
  const before = (await git(repo.root).revparse(['HEAD']).catch(() => '')).trim();
  const marker = join(repo.gitDir, REBASE_MARKER);
  try {
    writeFileSync(marker, String(process.pid));
    await g.raw(['pull', '--rebase', '--autostash', '--no-edit', '-q', remote, branch]);
  } catch (err) {
    const c = classify(err);
    if (/couldn't find remote ref/i.test(errorMessage(err))) {
      rmSync(marker, { force: true });
      return { status: 'no-branch', detail: `${remote}/${branch} does not exist yet` };
    }
    if (c.kind === 'conflict' && (await settleRebase(repo, resolvable))) {
      rmSync(marker, { force: true });
      return { status: 'pulled', detail: 'settled a conflict on this machine\'s own month file' };
    }
    await recoverInterruptedRebase(repo);
    rmSync(marker, { force: true });
    if (c.kind === 'conflict') return { status: 'conflict', detail: `rebase conflict, aborted; local commits kept (${c.detail})` };
    if (c.kind === 'offline' || c.kind === 'auth' || c.kind === 'timeout') return { status: c.kind, detail: c.detail };
    return { status: 'failed', detail: c.detail };
  }
  rmSync(marker, { force: true });
  const after = (await git(repo.root).revparse(['HEAD']).catch(() => '')).trim();
  return { status: before === after ? 'up-to-date' : 'pulled' };
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

export const PUSH_SILENCE_MS = 10 * 60_000;

/** Push; when rejected because another machine pushed first, rebase onto it and retry. */
export async function pushWithRetry(
  repo: Repo,
  remote: string,
  opts: { attempts?: number; timeoutMs?: number; resolvable?: (path: string) => boolean } = {},
): Promise<PushOutcome> {
  const branch = await currentBranch(repo);
  if (!branch) return { status: 'detached', attempts: 0, detail: 'HEAD is detached: commit kept, not pushed' };
  if (!(await hasRemote(repo, remote))) return { status: 'no-remote', attempts: 0, detail: `no remote "${remote}": commit kept locally` };
  const attempts = opts.attempts ?? 4;
  let last = '';
  for (let i = 1; i <= attempts; i++) {
    try {
      // git push -q is silent while it packs: a 300 MB monthly-merge push can be quiet for
      // over a minute (measured in bench/merge.ts), so the default silence limit is generous.
      const res = await git(repo.root, opts.timeoutMs ?? PUSH_SILENCE_MS).push(remote, branch);
      const pushed = res.pushed.length > 0 && res.pushed.every((p) => p.alreadyUpdated) ? 'up-to-date' : 'pushed';
      return { status: pushed, attempts: i };
    } catch (err) {
      const c = classify(err);
      last = c.detail;
      if (c.kind !== 'rejected') {
        const status = c.kind === 'offline' || c.kind === 'auth' ? c.kind : 'failed';
        return { status, attempts: i, detail: c.detail };
      }
      const pulled = await pullRebase(repo, remote, opts.timeoutMs ?? PUSH_SILENCE_MS, opts.resolvable);
      if (pulled.status === 'conflict') return { status: 'conflict', attempts: i, detail: pulled.detail ?? last };
      if (pulled.status === 'offline' || pulled.status === 'auth') return { status: pulled.status, attempts: i, detail: pulled.detail ?? last };
    }
  }
  return { status: 'failed', attempts, detail: `still rejected after ${attempts} attempts: ${last}` };
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Paths (relative to the repository) of this machine's own month files. */
export function ownMonthFiles(repo: Repo, exportDir: string, machine: string): (path: string) => boolean {
  const rel = relative(repo.root, exportDir).split('\\').join('/');
  const prefix = rel === '' ? '' : `${rel}/`;
  const re = new RegExp(`^${escapeRegExp(prefix)}\\d{4}-\\d{2}_${escapeRegExp(machine)}\\.jsonl$`);
  return (path) => re.test(path);
}

/** Undo our last commit, keeping uncommitted work (used to redo a monthly-merge on fresh inputs). */
export async function dropLastCommit(repo: Repo): Promise<void> {
  await git(repo.root).raw(['reset', '-q', '--keep', 'HEAD~1']);
}

/** The project name of a working directory: its git top level's folder name. */
export async function gitTopLevel(dir: string): Promise<string | undefined> {
  return (await findRepo(dir))?.root;
}
