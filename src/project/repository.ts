/**
 * Which repository a folder belongs to, read from `.git` with node:fs only (per-prompt recall
 * asks on every prompt; a git process costs ~5 ms and more on a busy machine).
 *
 * A repository is named by its `origin` remote, normalised so that the scp, ssh and https
 * spellings of one repository are one key (`github.com/acme/api`); without a usable origin
 * (none, or a local path) by its main worktree's folder (`folder:api`). Every checkout and
 * worktree of a repository, on every machine, has the same key.
 */
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { normalizeRemoteUrl, originUrlIn, repoKey } from './remote-url.js';

export { normalizeRemoteUrl, originUrlIn, repoKey } from './remote-url.js';

export interface Checkout {
  /** The work tree's top folder (symlinks resolved), as `git rev-parse --show-toplevel` names it. */
  top: string;
  /** This work tree's git dir (`<top>/.git`, or `<common>/worktrees/<name>` for a linked worktree). */
  gitDir: string;
  /** The repository's shared git dir (objects, refs, config). */
  commonDir: string;
}

export interface RepoIdentity extends Checkout {
  /** `host/owner/repo` from the origin URL, or `folder:<main worktree folder>`. */
  key: string;
  /** The repository's own short name: the URL's last segment or the main worktree's folder. */
  short: string;
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** Whether `path` is a folder there now. */
export function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The git dir a `.git` entry stands for: the folder itself, or the target of a `gitdir:` file. */
function gitDirAt(top: string): string | undefined {
  const dotGit = join(top, '.git');
  let st;
  try {
    st = statSync(dotGit);
  } catch {
    return undefined;
  }
  if (st.isDirectory()) return dotGit;
  if (!st.isFile()) return undefined;
  const m = /^gitdir:\s*(.+?)\s*$/m.exec(readText(dotGit) ?? '');
  if (!m) return undefined;
  const target = resolve(top, m[1] as string);
  return isDir(target) ? target : undefined;
}

/** The checkout holding `dir`: nearest folder upwards with a `.git` folder or `gitdir:` file. */
export function checkoutOf(dir: string): Checkout | undefined {
  let cur: string;
  try {
    cur = realpathSync(dir);
  } catch {
    return undefined;
  }
  for (;;) {
    const gitDir = gitDirAt(cur);
    if (gitDir) {
      const common = readText(join(gitDir, 'commondir'))?.trim();
      const commonDir = common ? resolve(gitDir, common) : gitDir;
      return { top: cur, gitDir, commonDir };
    }
    const up = dirname(cur);
    if (up === cur) return undefined;
    cur = up;
  }
}

/** The main worktree's folder name, composed (repoKey): one name for a folder a Mac spells decomposed. */
function mainFolderName(commonDir: string): string {
  return repoKey(basename(commonDir) === '.git' ? basename(dirname(commonDir)) : basename(commonDir).replace(/\.git$/i, ''));
}

/** Key and short name of the repository `dir` is in; undefined outside a git work tree. */
export function repoIdentity(dir: string): RepoIdentity | undefined {
  const co = checkoutOf(dir);
  if (!co) return undefined;
  const url = originUrlIn(readText(join(co.commonDir, 'config')) ?? '');
  const norm = url === undefined ? undefined : normalizeRemoteUrl(url);
  if (norm) return { ...co, key: norm, short: norm.slice(norm.lastIndexOf('/') + 1) };
  const folder = mainFolderName(co.commonDir);
  return { ...co, key: `folder:${folder}`, short: folder };
}

/** A path's real form; for a file not there (about to be written), its folder's real form and its name. */
function realPath(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    try {
      return join(realpathSync(dirname(p)), basename(p));
    } catch {
      return p;
    }
  }
}

/**
 * A file as the file index knows it: its repository's key and its path inside (forward
 * slashes), whatever checkout folder or symlink it was named through, and the checkout it was
 * named in (its top folder, symlinks resolved); undefined outside a git work tree, or for the
 * work tree's top itself.
 */
export function fileInRepository(file: string): { repo: string; path: string; top: string } | undefined {
  const abs = realPath(resolve(file));
  const repo = repoIdentity(dirname(abs));
  if (!repo) return undefined;
  const top = realPath(repo.top);
  const rel = relative(top, abs);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return undefined;
  return { repo: repo.key, path: rel.split(sep).join('/'), top };
}

/** The commit HEAD points at (a branch's loose or packed ref, or a detached id); undefined when unknown. */
export function headCommit(co: Checkout): string | undefined {
  const head = readText(join(co.gitDir, 'HEAD'))?.trim();
  if (!head) return undefined;
  if (/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(head)) return head;
  const m = /^ref:\s*(\S+)$/.exec(head);
  if (!m) return undefined;
  const ref = m[1] as string;
  for (const dir of [co.gitDir, co.commonDir]) {
    const loose = readText(join(dir, ref))?.trim();
    if (loose && /^[0-9a-f]{40,64}$/.test(loose)) return loose;
  }
  for (const line of (readText(join(co.commonDir, 'packed-refs')) ?? '').split('\n')) {
    const p = /^([0-9a-f]{40,64}) (\S+)$/.exec(line.trim());
    if (p && p[2] === ref) return p[1];
  }
  return undefined;
}

/**
 * The key of the repository a folder is in on this machine, for memories that name none. A
 * Claude Code worktree that is gone still names its main checkout in its path.
 */
export function folderRepositoryKey(cwd: string): string | undefined {
  const key = repoIdentity(cwd)?.key;
  if (key) return key;
  const m = /^(.*?)[\\/]\.claude[\\/]worktrees[\\/][^\\/]+/.exec(cwd);
  return m ? repoIdentity(m[1] as string)?.key : undefined;
}
