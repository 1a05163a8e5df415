/**
 * Git plumbing for the memory repository, through simple-git. Sees paths and messages,
 * never record contents; returns outcomes, never prints. Never force-pushes, never leaves
 * a rebase open.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
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

/**
 * Rename detection off for our merges and rebases: a month file folded into the archive
 * must surface as the modify/delete it is (settled by keeping the late lines), not be
 * guessed into a rename of the archive.
 */
const MERGE_CONFIG = ['merge.renames=false'];

function git(dir: string, timeoutMs?: number): SimpleGit {
  return simpleGit({ baseDir: dir, config: MERGE_CONFIG, ...(timeoutMs ? { timeout: { block: timeoutMs } } : {}) });
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
export async function commitExport(repo: Repo, exportDir: string, message: string, machine: string, cloneId?: string): Promise<{ committed: boolean; sha?: string }> {
  const rel = relative(repo.root, exportDir) || '.';
  const g = git(repo.root);
  await g.raw(['add', '-A', '--', rel]);
  const staged = (await g.raw(['diff', '--cached', '--name-only', '--', rel])).trim();
  if (staged.length === 0) return { committed: false };
  const email = (await g.raw(['config', '--get', 'user.email']).catch(() => '')).trim();
  const name = (await g.raw(['config', '--get', 'user.name']).catch(() => '')).trim();
  // A machine without a git identity must still be able to save its memories.
  const withId = email && name ? g : simpleGit({ baseDir: repo.root, config: [`user.name=${name || 'memory-engine'}`, `user.email=${email || `memory-engine@${machine}.invalid`}`] });
  // Trailers say which machine name and which clone wrote the commit: a clone that sees
  // its name on another clone's commits tells the user (two laptops called MacBook-Pro).
  const trailers = [`${MACHINE_TRAILER}: ${machine}`, ...(cloneId ? [`${CLONE_TRAILER}: ${cloneId}`] : [])].join('\n');
  await withId.raw(['commit', '--no-verify', '-q', '-m', message, '-m', trailers, '--', rel]);
  const sha = (await g.revparse(['HEAD'])).trim();
  return { committed: true, sha };
}

export const MACHINE_TRAILER = 'Memory-Machine';
export const CLONE_TRAILER = 'Memory-Clone';

/** Paths git should merge as append-only JSONL: every .jsonl under the export folder. */
export function exportJsonlMatcher(repo: Repo, exportDir: string): (path: string) => boolean {
  const rel = relative(repo.root, exportDir).split('\\').join('/');
  const prefix = rel === '' ? '' : `${rel}/`;
  return (path) => path.startsWith(prefix) && path.endsWith('.jsonl');
}

/**
 * `merge=union` for every JSONL under the export folder, in .git/info/attributes of the
 * repository that holds it (which may not be this checkout, so the committed
 * .gitattributes cannot be relied on). Union keeps both sides' lines: duplicated or
 * reordered lines are harmless (last-write-wins), conflict markers never are.
 */
export function ensureUnionMerge(repo: Repo, exportDir: string): boolean {
  const rel = relative(repo.root, exportDir).split('\\').join('/');
  const line = `${rel === '' ? '' : `/${rel}/`}**/*.jsonl merge=union`;
  const file = join(repo.gitDir, 'info', 'attributes');
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  if (text.split('\n').includes(line)) return false;
  mkdirSync(join(repo.gitDir, 'info'), { recursive: true });
  writeFileSync(file, `${text}${text === '' || text.endsWith('\n') ? '' : '\n'}# memory-engine: memories are append-only lines\n${line}\n`);
  return true;
}

/** Both sides' lines, each distinct line once, ours first: what `merge=union` would write. */
export function unionLines(a: string, b: string): string {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const l of [...a.split('\n'), ...b.split('\n')]) {
    if (l.length === 0 || seen.has(l)) continue;
    seen.add(l);
    out.push(l);
  }
  return out.length > 0 ? `${out.join('\n')}\n` : '';
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
  const cont = simpleGit({ baseDir: repo.root, config: [...MERGE_CONFIG, 'core.editor=true'], unsafe: { allowUnsafeEditor: true } });
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

export async function pullRebase(repo: Repo, remote: string, timeoutMs: number, isMemoryFile: (path: string) => boolean = () => false): Promise<PullOutcome> {
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
    if (c.kind === 'conflict' && (await settleRebase(repo, isMemoryFile))) {
      rmSync(marker, { force: true });
      return { status: 'pulled', detail: 'settled a conflict on memory files (lines of both sides kept)' };
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
  opts: { attempts?: number; timeoutMs?: number; isMemoryFile?: (path: string) => boolean } = {},
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
      const pulled = await pullRebase(repo, remote, opts.timeoutMs ?? PUSH_SILENCE_MS, opts.isMemoryFile);
      if (pulled.status === 'conflict') return { status: 'conflict', attempts: i, detail: pulled.detail ?? last };
      if (pulled.status === 'offline' || pulled.status === 'auth') return { status: pulled.status, attempts: i, detail: pulled.detail ?? last };
    }
  }
  return { status: 'failed', attempts, detail: `still rejected after ${attempts} attempts: ${last}` };
}

/** Undo our last commit, keeping uncommitted work (used to redo a monthly-merge on fresh inputs). */
export async function dropLastCommit(repo: Repo): Promise<void> {
  await git(repo.root).raw(['reset', '-q', '--keep', 'HEAD~1']);
}

/** The project name of a working directory: its git top level's folder name. */
export async function gitTopLevel(dir: string): Promise<string | undefined> {
  return (await findRepo(dir))?.root;
}

/** The URL of a remote, or undefined when there is no such remote. */
export async function remoteUrlOf(repo: Repo, name: string): Promise<string | undefined> {
  try {
    const url = (await git(repo.root).raw(['remote', 'get-url', name])).trim();
    return url.length > 0 ? url : undefined;
  } catch {
    return undefined;
  }
}

/** Point remote `name` at `url` (add it, or change its URL). */
export async function setRemote(repo: Repo, name: string, url: string): Promise<void> {
  const current = await remoteUrlOf(repo, name);
  if (current === url) return;
  await git(repo.root).raw(current === undefined ? ['remote', 'add', name, url] : ['remote', 'set-url', name, url]);
}

/** Can we read that repository? Lists its branches. */
export async function probeRemote(repo: Repo, url: string, timeoutMs: number): Promise<{ ok: boolean; branches: string[]; detail?: string }> {
  try {
    const out = await git(repo.root, timeoutMs).raw(['ls-remote', '--heads', url]);
    const branches = out.split('\n').map((l) => l.split('\t')[1] ?? '').filter((r) => r.startsWith('refs/heads/')).map((r) => r.slice('refs/heads/'.length));
    return { ok: true, branches };
  } catch (err) {
    return { ok: false, branches: [], detail: classify(err).detail };
  }
}

export async function fetchRemote(repo: Repo, remote: string, timeoutMs: number): Promise<{ ok: boolean; detail?: string }> {
  try {
    await git(repo.root, timeoutMs).raw(['fetch', '-q', remote]);
    return { ok: true };
  } catch (err) {
    return { ok: false, detail: classify(err).detail };
  }
}

/** Whether HEAD and `ref` share history (a memory remote holding unrelated history cannot be joined). */
export async function sharesHistory(repo: Repo, ref: string): Promise<boolean> {
  try {
    await git(repo.root).raw(['merge-base', 'HEAD', ref]);
    return true;
  } catch {
    return false;
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

/** Size of loose objects in KiB (`git count-objects -v`). */
export async function looseObjectsKb(repo: Repo): Promise<number> {
  const out = await git(repo.root).raw(['count-objects', '-v']);
  const m = /^size: (\d+)$/m.exec(out);
  return m ? Number(m[1]) : 0;
}

/**
 * Pack everything into one pack, so versions of a growing month file are stored as
 * deltas. `git gc --auto` waits for ~6,700 loose objects, and each commit of a 1 MB month
 * file adds a whole compressed copy (measured: 104 MiB of loose objects after 300 commits).
 */
export async function repackAll(repo: Repo): Promise<void> {
  await git(repo.root, PUSH_SILENCE_MS).raw(['repack', '-a', '-d', '-q']);
  await git(repo.root).raw(['prune-packed', '-q']);
}

/** Uncommitted changes under the export folder. */
export async function exportIsDirty(repo: Repo, exportDir: string): Promise<boolean> {
  const rel = relative(repo.root, exportDir) || '.';
  const out = await git(repo.root).raw(['status', '--porcelain', '--untracked-files=all', '--', rel]);
  return out.trim().length > 0;
}
