/**
 * What a checkout's working tree says about the work in progress: the files changed (staged,
 * unstaged, untracked), the renames staged and the branch. One `git status`, with a time limit: a huge tree (10,000
 * changed files) costs no more than the limit, and a git that cannot answer in time says nothing.
 */
import { spawnSync } from 'node:child_process';

export interface WorkInProgress {
  /** The branch checked out (undefined: detached, or not known). */
  branch?: string;
  /** Changed paths inside the repository, at most `maxFiles` of them. */
  changed: string[];
  /** More changed files than were read. */
  more: boolean;
  /** Files renamed and not committed yet (`git mv` staged), at most `maxFiles`: where each was, where it is. */
  renamed: Array<{ from: string; to: string }>;
  /** Of the changed files, those deleted and not staged (` D`: the index still holds them) and those untracked: a plain `mv` looks so. */
  deleted: string[];
  untracked: string[];
}

/** Branches that say nothing about what is being worked on: every memory of the repository is on them. */
export const MAINLINE = new Set(['main', 'master', 'trunk', 'develop', 'development', 'default']);

/** The porcelain v1 -z output of `git status --branch`, parsed (pure). */
export function parseStatus(out: string, maxFiles: number): WorkInProgress {
  const parts = out.split('\0');
  const res: WorkInProgress = { changed: [], more: false, renamed: [], deleted: [], untracked: [] };
  for (let i = 0; i < parts.length; i++) {
    const e = parts[i] as string;
    if (e === '') continue;
    if (e.startsWith('## ')) {
      const head = e.slice(3);
      if (!head.startsWith('HEAD (no branch)')) {
        const name = head.replace(/^No commits yet on /, '').split('...')[0]?.split(' ')[0];
        if (name) res.branch = name;
      }
      continue;
    }
    const xy = e.slice(0, 2);
    const path = e.slice(3);
    // A rename or copy names its source next: the new path is the one being worked on.
    if (xy.includes('R') || xy.includes('C')) {
      const from = parts[++i];
      if (xy.includes('R') && from && path && res.renamed.length < maxFiles) res.renamed.push({ from, to: path });
    }
    if (xy === '!!' || path === '') continue;
    if (res.changed.length >= maxFiles) {
      res.more = true;
      break;
    }
    if (xy === ' D') res.deleted.push(path);
    if (xy === '??' && !path.endsWith('/')) res.untracked.push(path);
    if (!path.endsWith('/')) res.changed.push(path);
  }
  return res;
}

/**
 * What a git command prints in the checkout at `top`, byte for byte, reading only (no optional
 * locks, paths unquoted), within `timeoutMs`, with `input` on its standard input: `ok` when it
 * ran to its end, and what it printed before a timeout too. Bytes, for output that counts them
 * (`git cat-file --batch`).
 */
export function readGitBytes(top: string, args: string[], opts: { timeoutMs: number; maxBuffer?: number; input?: string }): { ok: boolean; out: Buffer; timedOut: boolean } {
  const r = spawnSync('git', ['-C', top, '-c', 'core.quotePath=false', ...args], {
    timeout: opts.timeoutMs,
    maxBuffer: opts.maxBuffer ?? 16 * 1024 * 1024,
    ...(opts.input === undefined ? { stdio: ['ignore', 'pipe', 'ignore'] } : { input: opts.input, stdio: ['pipe', 'pipe', 'ignore'] }),
    env: { ...process.env, GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C' },
  });
  const out = Buffer.isBuffer(r.stdout) ? r.stdout : Buffer.alloc(0);
  return { ok: !r.error && r.status === 0 && Buffer.isBuffer(r.stdout), out, timedOut: (r.error as NodeJS.ErrnoException | undefined)?.code === 'ETIMEDOUT' };
}

/** readGitBytes, its output read as UTF-8 text. */
export function readGit(top: string, args: string[], opts: { timeoutMs: number; maxBuffer?: number }): { ok: boolean; out: string; timedOut: boolean } {
  const r = readGitBytes(top, args, opts);
  return { ...r, out: r.out.toString('utf8') };
}

/** The work in progress in the checkout at `top`, or undefined when git does not answer within `timeoutMs`. */
export function workInProgress(top: string, opts: { timeoutMs?: number; maxFiles?: number } = {}): WorkInProgress | undefined {
  // Staged renames found too (git's own limit on the pairs it compares; 2,000 staged renames with 10,000 untracked files: 0.01 s).
  const r = readGit(top, ['status', '--porcelain=v1', '-z', '--branch', '--untracked-files=all'], { timeoutMs: opts.timeoutMs ?? 1000 });
  return r.ok ? parseStatus(r.out, opts.maxFiles ?? 200) : undefined;
}
