/**
 * Git plumbing for the memory repository, through simple-git. Sees paths and messages,
 * never record contents; returns outcomes, never prints. Never force-pushes, never leaves
 * a rebase open.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { createRequire } from 'node:module';
import type { SimpleGit } from 'simple-git';
import { errorMessage } from '../errors.js';

/**
 * simple-git is loaded at the first git call, not with this module: importing it takes about
 * 20 ms (Node 24, warm disk cache), which every command paid through the application context,
 * git or no git (`memory search` from the skill, `rebuild`, `show`). Its CommonJS build, the
 * same code as its ES module build, so that the load can be synchronous like ourGit.
 */
const requireHere = createRequire(import.meta.url);
let simpleGitModule: typeof import('simple-git') | undefined;
function simpleGit(...args: Parameters<typeof import('simple-git').simpleGit>): SimpleGit {
  simpleGitModule ??= requireHere('simple-git') as typeof import('simple-git');
  return simpleGitModule.simpleGit(...args);
}

export interface Repo {
  root: string;
  gitDir: string;
}

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

function git(dir: string, timeoutMs?: number): SimpleGit {
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
}

export class NetworkTimeout extends Error {}

export function runNetworkGit(cwd: string, args: string[], limits: NetworkLimits): Promise<{ stdout: string; stderr: string }> {
  const ssh = process.env.GIT_SSH_COMMAND || process.env.GIT_SSH || hasConfig(cwd, 'core.sshCommand') ? [] : ['-c', `core.sshCommand=${SSH_BOUNDED}`];
  const config = [...ourGitArgs(), '-c', 'http.lowSpeedLimit=1000', '-c', 'http.lowSpeedTime=30', ...ssh];
  return new Promise((resolveRun, reject) => {
    const child = spawn('git', [...config, ...args], {
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
    const total = limits.totalMs ? setTimeout(() => killAll(`timed out after ${Math.round((limits.totalMs ?? 0) / 1000)} s`), limits.totalMs) : undefined;
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
    return execFileSync('git', ['config', '--get', key], { cwd: dir, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim().length > 0;
  } catch {
    return false;
  }
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

function classify(err: unknown): { kind: 'rejected' | 'offline' | 'auth' | 'conflict' | 'timeout' | 'signing' | 'hook' | 'other'; detail: string } {
  const msg = errorMessage(err);
  const detail = msg.split('\n').map((l) => l.trim()).filter((l) => l.length > 0).slice(0, 3).join(' | ');
  if (err instanceof NetworkTimeout || /block timeout|timed out|timeout reached/i.test(msg)) return { kind: 'timeout', detail };
  // Before "conflict": a rebase whose commit failed to sign says "could not apply" too.
  if (/gpg failed to sign|failed to sign the data|cannot run gpg|error: (ssh-keygen|gpg)|signing failed/i.test(msg)) return { kind: 'signing', detail: `signing failed (your commit.gpgsign): ${detail}` };
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
const STASH_MESSAGE = 'memory-engine: before replaying onto the remote';

/** A rebase of ours that a killed run left open (undone by the next writer): not the person's. */
export function ourRebaseOpen(repo: Repo): boolean {
  return existsSync(join(repo.gitDir, REBASE_MARKER)) && (existsSync(join(repo.gitDir, 'rebase-merge')) || existsSync(join(repo.gitDir, 'rebase-apply')));
}

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
export async function commitExport(repo: Repo, exportDir: string, message: string, machine: string, cloneId?: string, also: string[] = []): Promise<{ committed: boolean; sha?: string }> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await commitOnce(repo, exportDir, message, machine, cloneId, also);
    } catch (err) {
      const wait = INDEX_LOCK_WAITS_MS[attempt];
      if (wait === undefined || !/index\.lock'?: File exists/.test(errorMessage(err))) throw err;
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}

/**
 * Called under our repository lock, so a fresh .git/index.lock is a git of the person's (an
 * editor refreshing its status, a `rebase --abort`), held for a moment: wait for it this
 * long, a little more each time (3.85 s in all), before the commit is left for next time.
 */
const INDEX_LOCK_WAITS_MS = [100, 250, 500, 1000, 2000];

async function commitOnce(repo: Repo, exportDir: string, message: string, machine: string, cloneId: string | undefined, also: string[]): Promise<{ committed: boolean; sha?: string }> {
  const rel = relative(repo.root, exportDir) || '.';
  // Never our lock files (held while this commit runs), nor a file still being written before
  // its rename (`*.tmp-<pid>`: export/files.ts), whatever the repository ignores.
  const paths = [rel, ...also, ':(exclude,glob)**/*.lock', ':(exclude,glob)**/*.tmp-*'];
  const g = git(repo.root);
  await g.raw(['add', '-A', '--', ...paths]);
  const staged = (await g.raw(['diff', '--cached', '--name-only', '--', ...paths])).trim();
  if (staged.length === 0) return { committed: false };
  const email = (await g.raw(['config', '--get', 'user.email']).catch(() => '')).trim();
  const name = (await g.raw(['config', '--get', 'user.name']).catch(() => '')).trim();
  // A machine without a git identity must still be able to save its memories.
  const withId = email && name ? g : ourGit(repo.root, undefined, [`user.name=${name || 'memory-engine'}`, `user.email=${email || `memory-engine@${machine}.invalid`}`]);
  // Trailers say which machine name and which clone wrote the commit: a clone that sees
  // its name on another clone's commits tells the user (two laptops called MacBook-Pro).
  const trailers = [`${MACHINE_TRAILER}: ${machine}`, ...(cloneId ? [`${CLONE_TRAILER}: ${cloneId}`] : [])].join('\n');
  await withId.raw(['commit', '--no-verify', '-q', '-m', message, '-m', trailers, '--', ...paths]);
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

const ID_IN_LINE = /"id":"((?:[^"\\]|\\.)*)"/;

/**
 * The id of a line that is a whole JSON object, else undefined: a line whose id survives a
 * hand edit that broke its JSON (`"answer":"` → `"answer":`) is not a memory any more, so it
 * neither keeps that memory present nor counts as one removed.
 */
export function idOfWholeLine(line: string): string | undefined {
  const m = ID_IN_LINE.exec(line);
  if (!m?.[1]) return undefined;
  try {
    const o = JSON.parse(line) as unknown;
    return typeof o === 'object' && o !== null && typeof (o as { id?: unknown }).id === 'string' ? (o as { id: string }).id : undefined;
  } catch {
    return undefined;
  }
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
export async function lostLines(repo: Repo, before: string, after: string, rel: string): Promise<LineChange[]> {
  // Paths as they are (a machine name may not be ASCII), not quoted.
  const g = ourGit(repo.root, undefined, ['core.quotePath=false']);
  const numstat = await g.raw(['diff', '--numstat', '--no-renames', before, after, '--', rel || '.']);
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
export async function idsPresent(repo: Repo, at: string, rel: string, wanted: Set<string>): Promise<Set<string>> {
  const present = new Set<string>();
  if (wanted.size === 0) return present;
  const files = (await git(repo.root).raw(['ls-tree', '-r', '--name-only', at, '--', rel || '.'])).split('\n').filter((f) => f.endsWith('.jsonl'));
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
export async function droppedIds(repo: Repo, before: string, after: string, rel: string): Promise<string[]> {
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
 * Mends what a pull brought before it is judged (app/repair.ts): lines that no longer parse
 * are set aside and the versions they replaced restored, committed. Says what it did, if anything.
 */
export type RepairPulled = (before: string) => Promise<string | undefined>;

export async function pullRebase(repo: Repo, remote: string, limits: NetworkLimits, isMemoryFile: (path: string) => boolean = () => false, exportRel = '', repair?: RepairPulled): Promise<PullOutcome> {
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

/** Local work that may be long (repacking a large history): generous, and never across a network wait. */
export const PUSH_SILENCE_MS = 10 * 60_000;
/** A remote that says nothing for a minute is stalled (transfers run with --progress). */
export const DEFAULT_LIMITS: NetworkLimits = { silenceMs: 60_000 };

/** Push; when rejected because another machine pushed first, rebase onto it and retry. */
export async function pushWithRetry(
  repo: Repo,
  remote: string,
  opts: { attempts?: number; limits?: NetworkLimits; isMemoryFile?: (path: string) => boolean; exportRel?: string; repair?: RepairPulled } = {},
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
      const pulled = await pullRebase(repo, remote, opts.limits ?? DEFAULT_LIMITS, opts.isMemoryFile, opts.exportRel, opts.repair);
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
export async function probeRemote(repo: Repo, url: string, limits: NetworkLimits): Promise<{ ok: boolean; branches: string[]; detail?: string }> {
  try {
    const out = (await runNetworkGit(repo.root, ['ls-remote', '--heads', url], limits)).stdout;
    const branches = out.split('\n').map((l) => l.split('\t')[1] ?? '').filter((r) => r.startsWith('refs/heads/')).map((r) => r.slice('refs/heads/'.length));
    return { ok: true, branches };
  } catch (err) {
    return { ok: false, branches: [], detail: classify(err).detail };
  }
}


/** Fetch `branch` of `url` into `ref` (no remote named), bounded like every network call. */
export async function fetchInto(repo: Repo, url: string, branch: string, ref: string, limits: NetworkLimits): Promise<{ ok: boolean; detail?: string }> {
  try {
    await runNetworkGit(repo.root, ['fetch', '--progress', '--no-tags', url, `+refs/heads/${branch}:${ref}`], limits);
    return { ok: true };
  } catch (err) {
    return { ok: false, detail: classify(err).detail };
  }
}

export async function deleteRef(repo: Repo, ref: string): Promise<void> {
  await git(repo.root).raw(['update-ref', '-d', ref]).catch(() => '');
}

export async function removeRemote(repo: Repo, name: string): Promise<void> {
  await git(repo.root).raw(['remote', 'remove', name]).catch(() => '');
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

/**
 * Memory files are append-only, so a work-tree file that lost lines against HEAD was damaged
 * (truncated, overwritten by a full disk, cut by a tool): put the committed lines back,
 * keeping any appended after them, before anything is appended or committed. Returns the
 * paths restored. (Deletions of whole files are left to git: monthly-merge removes folded
 * month files, and restores of those would only duplicate lines the archive holds.)
 */
export async function restoreShrunkMemoryFiles(repo: Repo, rel: string, isMemoryFile: (path: string) => boolean, damaged: (line: string) => boolean = () => false): Promise<{ restored: string[]; setAside: Map<string, string[]> }> {
  const g = ourGit(repo.root, undefined, ['core.quotePath=false']);
  const out = { restored: [] as string[], setAside: new Map<string, string[]>() };
  let numstat: string;
  try {
    numstat = await g.raw(['diff', '--numstat', '--no-renames', 'HEAD', '--', rel || '.']);
  } catch {
    return out; // no HEAD yet
  }
  for (const line of numstat.split('\n')) {
    const [, removed, path] = line.split('\t');
    if (!path || !isMemoryFile(path) || removed === '0' || removed === '-') continue;
    const abs = join(repo.root, path);
    if (!existsSync(abs)) continue;
    const committed = await g.raw(['show', `HEAD:${path}`]).catch(() => undefined);
    if (committed === undefined) continue;
    const now = readFileSync(abs, 'utf8');
    // Whole lines only from the damaged copy: a cut last line is not a record.
    const whole = now.endsWith('\n') ? now : now.slice(0, now.lastIndexOf('\n') + 1);
    // Nor is a line that no longer parses, on either side (a hand edit; half a record an
    // older version committed): set aside, never restored.
    const lines = unionLines(committed, whole).split('\n').filter((l) => l.length > 0);
    const bad = lines.filter(damaged);
    const kept = bad.length > 0 ? lines.filter((l) => !damaged(l)) : lines;
    writeFileSync(abs, kept.length > 0 ? `${kept.join('\n')}\n` : '');
    out.restored.push(path);
    if (bad.length > 0) out.setAside.set(path, bad);
  }
  return out;
}

/** Uncommitted changes under the export folder. */
export async function exportIsDirty(repo: Repo, exportDir: string): Promise<boolean> {
  const rel = relative(repo.root, exportDir) || '.';
  const out = await git(repo.root).raw(['status', '--porcelain', '--untracked-files=all', '--', rel]);
  return out.trim().length > 0;
}
