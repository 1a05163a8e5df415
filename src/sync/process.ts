/**
 * Git as a process of ours: simple-git (loaded at the first call) under our own settings
 * (unsigned, no hooks, no rename guessing), the bounded runner for everything that talks to a
 * remote, the words git fails with sorted into kinds, and where a folder's repository is.
 * Sees paths and messages, never record contents; returns outcomes, never prints.
 */
import { existsSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import type { SimpleGit } from 'simple-git';
import { errorMessage } from '../errors.js';
import { later } from '../later.js';

/**
 * simple-git is loaded at the first git call, not with this module: importing it takes about
 * 20 ms (Node 24, warm disk cache), which every command paid through the application context,
 * git or no git (`memory search` from the skill, `rebuild`, `show`). Its CommonJS build, the
 * same code as its ES module build, so that the load can be synchronous like ourGit.
 */
const simpleGitModule = later<typeof import('simple-git')>('simple-git');
const childProcess = later<typeof import('node:child_process')>('node:child_process');

function simpleGit(...args: Parameters<typeof import('simple-git').simpleGit>): SimpleGit {
  return simpleGitModule().simpleGit(...args);
}

export interface Repo {
  root: string;
  gitDir: string;
}

/**
 * Rename detection off for our merges and rebases: a month file folded into the archive
 * must surface as the modify/delete it is (settled by keeping the late lines), not be
 * guessed into a rename of the archive.
 */
const MERGE_CONFIG = ['merge.renames=false'];

/**
 * Our commits, rebases and pushes are ours alone: a person's global `commit.gpgsign` (a signer
 * that waits for a passphrase, or fails) or `core.hooksPath` (a pre-push that refuses) must not
 * stop memories from being committed and pushed. Unless `[sync] my_git_settings` says
 * otherwise, our git runs unsigned and without hooks: the repository's own .git/hooks too.
 */
let personalGit = false;

export function useMyGitSettings(on: boolean): void {
  personalGit = on;
}

const NO_HOOKS = process.platform === 'win32' ? 'NUL' : '/dev/null';

export function ourGitConfig(): string[] {
  return personalGit ? [...MERGE_CONFIG] : [...MERGE_CONFIG, 'commit.gpgsign=false', 'tag.gpgsign=false', `core.hooksPath=${NO_HOOKS}`];
}

/** `-c key=value` arguments of ourGitConfig, for git run without simple-git. */
export function ourGitArgs(): string[] {
  return ourGitConfig().flatMap((c) => ['-c', c]);
}

/** A local git command that has said nothing for this long is ended (a signer or hook waiting on a terminal). */
const LOCAL_SILENCE_MS = 120_000;

/** simple-git for a memory repository, under our config (see ourGitConfig). */
export function ourGit(dir: string, timeoutMs?: number, extraConfig: string[] = []): SimpleGit {
  return simpleGit({
    baseDir: dir,
    config: [...ourGitConfig(), ...extraConfig],
    // core.hooksPath is ours to set here (hooks off); simple-git asks for that to be said.
    unsafe: { allowUnsafeHooksPath: true, ...(extraConfig.some((c) => c.startsWith('core.editor=')) ? { allowUnsafeEditor: true } : {}) },
    timeout: { block: timeoutMs ?? LOCAL_SILENCE_MS },
  });
}

export function git(dir: string, timeoutMs?: number): SimpleGit {
  return ourGit(dir, timeoutMs);
}

/**
 * Git that talks to a remote runs in a process group of its own, so that a time limit ends
 * all of it — ssh and the HTTP remote helper included, which a kill of git alone leaves
 * running (measured: a killed ssh child did not end `git push`, and simple-git's silence
 * timeout kills only git). Two limits: `silenceMs` without a byte of output (transfers run
 * with --progress, so a large push that is moving keeps talking) and `totalMs` overall.
 * Stalls also end inside git: HTTP below 1 KB/s for 30 s, ssh with no connection in 15 s or
 * 3 unanswered keep-alives. A person's own GIT_SSH_COMMAND or core.sshCommand wins.
 */
export const SSH_BOUNDED = 'ssh -o ConnectTimeout=15 -o ServerAliveInterval=15 -o ServerAliveCountMax=3 -o BatchMode=yes';

export interface NetworkLimits {
  silenceMs: number;
  totalMs?: number;
  /** Epoch ms by which every call sharing these limits is over (several calls, one bound). */
  deadline?: number;
}

export class NetworkTimeout extends Error {}

export function runNetworkGit(cwd: string, args: string[], limits: NetworkLimits): Promise<{ stdout: string; stderr: string }> {
  const ssh = process.env.GIT_SSH_COMMAND || process.env.GIT_SSH || hasConfig(cwd, 'core.sshCommand') ? [] : ['-c', `core.sshCommand=${SSH_BOUNDED}`];
  const config = [...ourGitArgs(), '-c', 'http.lowSpeedLimit=1000', '-c', 'http.lowSpeedTime=30', ...ssh];
  return new Promise((resolveRun, reject) => {
    const child = childProcess().spawn('git', [...config, ...args], {
      cwd,
      detached: true, // its own process group: killed whole
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' },
    });
    let stdout = '';
    let stderr = '';
    let done = false;
    /** The first outcome wins; the timers go with it. */
    const finish = (): boolean => {
      if (done) return false;
      done = true;
      clearTimeout(silence);
      clearTimeout(total);
      return true;
    };
    const killAll = (why: string) => {
      if (!finish()) return;
      try {
        process.kill(-(child.pid as number), 'SIGKILL');
      } catch {
        /* already gone */
      }
      reject(new NetworkTimeout(why));
    };
    const silent = () => setTimeout(() => killAll(`timed out: no answer from the remote for ${Math.round(limits.silenceMs / 1000)} s`), limits.silenceMs);
    let silence = silent();
    const totalMs = limits.deadline !== undefined ? Math.max(1, Math.min(limits.totalMs ?? Infinity, limits.deadline - Date.now())) : limits.totalMs;
    const total = totalMs ? setTimeout(() => killAll(`timed out after ${Math.round((limits.totalMs ?? totalMs) / 1000)} s`), totalMs) : undefined;
    const heard = () => {
      clearTimeout(silence);
      silence = silent();
    };
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      heard();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      heard();
    });
    child.on('error', (err) => {
      if (finish()) reject(err);
    });
    child.on('close', (code) => {
      if (!finish()) return;
      if (code === 0) resolveRun({ stdout, stderr });
      // A push's porcelain lines (stdout) say why each ref was refused: `[rejected]` by the
      // remote's branch, `[remote rejected]` by its hooks; with no such line it never got there.
      else reject(new Error([stderr.trim(), ...stdout.split('\n').filter((l) => /^!\t/.test(l))].filter((l) => l.length > 0).join('\n') || `git ${args[0] ?? ''} exited with ${code}`));
    });
  });
}

function hasConfig(dir: string, key: string): boolean {
  try {
    return childProcess().execFileSync('git', ['config', '--get', key], { cwd: dir, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim().length > 0;
  } catch {
    return false;
  }
}

let gitChecked: { ok: true; version: string } | { ok: false; detail: string } | undefined;

/**
 * Whether git runs on this machine (`git --version`, asked once per process): without it
 * nothing can be committed or synced, and every place that would say "not a git repository"
 * says this instead.
 */
export function gitProgram(): { ok: true; version: string } | { ok: false; detail: string } {
  if (gitChecked) return gitChecked;
  try {
    const out = childProcess().execFileSync('git', ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 10_000 }).trim();
    gitChecked = { ok: true, version: out.replace(/^git version /, '') };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    gitChecked = { ok: false, detail: code === 'ENOENT' ? 'git is not installed, or not on the PATH this process was given' : `git does not run (${errorMessage(err).split('\n')[0]})` };
  }
  return gitChecked;
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

/** git's progress lines ("Enumerating objects: 5, done.", "remote: Counting objects…"): never what went wrong. */
const PROGRESS = /^(remote: )?(Enumerating|Counting|Compressing|Writing|Receiving|Resolving|Total|Delta|Unpacking|Finding sources)\b|^To |^\s*$/;

/** What git said that matters: its own words without the progress lines. */
function gitSaid(msg: string): string[] {
  return msg.split(/[\r\n]+/).map((l) => l.trim()).filter((l) => l.length > 0 && !PROGRESS.test(l));
}

export function classify(err: unknown): { kind: 'rejected' | 'offline' | 'auth' | 'conflict' | 'timeout' | 'signing' | 'hook' | 'refused' | 'other'; detail: string } {
  const msg = errorMessage(err);
  const said = gitSaid(msg);
  const detail = said.slice(0, 3).join(' | ');
  if (err instanceof NetworkTimeout || /block timeout|timed out|timeout reached/i.test(msg)) return { kind: 'timeout', detail };
  // Before "conflict": a rebase whose commit failed to sign says "could not apply" too.
  if (/gpg failed to sign|failed to sign the data|cannot run gpg|error: (ssh-keygen|gpg)|signing failed/i.test(msg)) return { kind: 'signing', detail: `signing failed (your commit.gpgsign): ${detail}` };
  // The remote's own hook (pre-receive, update) refused: its reason is on its `remote:` lines.
  if (/\[remote rejected\]/.test(msg) && /hook declined/i.test(msg)) {
    const reason = said.filter((l) => l.startsWith('remote:')).map((l) => l.replace(/^remote:\s*/, '')).filter((l) => l.length > 0);
    return { kind: 'refused', detail: `the memory remote refused the push${reason.length > 0 ? `: ${reason.slice(0, 5).join(' | ')}` : ` (${detail})`}` };
  }
  if (/hook declined|pre-push hook|pre-commit hook|hook .* (failed|exited)/i.test(msg)) return { kind: 'hook', detail: `a git hook refused: ${detail}` };
  // Refused because the branch moved: another machine pushed first, or at the same moment (the
  // remote could not lock or update the ref). Both are retried after a fetch and a rebase.
  if (/\[rejected\]|non-fast-forward|fetch first|updates were rejected|cannot lock ref|failed to update ref|incorrect old value|but expected/i.test(msg) && !/permission|denied|authentication/i.test(msg)) {
    return { kind: 'rejected', detail };
  }
  // "failed to push some refs" with no ref refused by the remote: stopped before it was
  // reached, by a pre-push hook (the only thing that runs there). Never retried as "rejected".
  if (/failed to push some refs/i.test(msg) && !/remote rejected|could not read from remote|unable to access/i.test(msg)) {
    return { kind: 'hook', detail: `a git hook refused (pre-push): ${detail}` };
  }
  if (/authentication failed|permission denied|could not read username|access denied|returned error: 403|\b403 forbidden/i.test(msg)) return { kind: 'auth', detail };
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

export async function hasRemote(repo: Repo, remote: string): Promise<boolean> {
  const remotes = await git(repo.root).getRemotes();
  return remotes.some((r) => r.name === remote);
}

/** Local work that may be long (repacking a large history): generous, and never across a network wait. */
export const PUSH_SILENCE_MS = 10 * 60_000;

/** A remote that says nothing for a minute is stalled (transfers run with --progress). */
export const DEFAULT_LIMITS: NetworkLimits = { silenceMs: 60_000 };

/** The project name of a working directory: its git top level's folder name. */
export async function gitTopLevel(dir: string): Promise<string | undefined> {
  return (await findRepo(dir))?.root;
}
