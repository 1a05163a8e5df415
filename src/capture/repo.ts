/**
 * Which repository a folder belongs to, read from `.git` with node:fs only (per-prompt recall
 * asks on every prompt; a git process costs ~5 ms and more on a busy machine).
 *
 * A repository is named by its `origin` remote, normalised so that the scp, ssh and https
 * spellings of one repository are one key (`github.com/acme/api`); without a usable origin
 * (none, or a local path) by its main worktree's folder (`folder:api`). Every checkout and
 * worktree of a repository, on every machine, has the same key.
 */
import { createHash } from 'node:crypto';
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';

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

function isDir(path: string): boolean {
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

/** `url` of `[remote "origin"]` in a git config file's text (the last one wins, as in git). */
export function originUrlIn(configText: string): string | undefined {
  let inOrigin = false;
  let url: string | undefined;
  for (const raw of configText.split(/\r?\n/)) {
    const line = raw.trim();
    if (line.startsWith('[')) {
      inOrigin = /^\[\s*remote\s+"origin"\s*\]/i.test(line);
      continue;
    }
    if (!inOrigin) continue;
    const m = /^url\s*=\s*(.*)$/i.exec(line);
    if (m) url = (m[1] as string).replace(/^"(.*)"$/, '$1').trim();
  }
  return url;
}

/**
 * `host/path` of a remote URL, lower-cased, without user, port, `.git` or slashes at the
 * ends; undefined for a local path or `file://` (no identity a second machine shares).
 * `git@host:owner/repo.git`, `ssh://git@host:2222/owner/repo` and
 * `https://host/owner/repo` are all `host/owner/repo`.
 */
export function normalizeRemoteUrl(url: string): string | undefined {
  const u = url.trim();
  if (u === '') return undefined;
  let host: string;
  let path: string;
  const scheme = /^([a-z][a-z0-9+.-]*):\/\/(.*)$/i.exec(u);
  if (scheme) {
    const proto = (scheme[1] as string).toLowerCase();
    if (proto === 'file') return undefined;
    const rest = scheme[2] as string;
    const slash = rest.indexOf('/');
    const authority = slash < 0 ? rest : rest.slice(0, slash);
    path = slash < 0 ? '' : rest.slice(slash + 1);
    // user[:password]@host[:port]; an IPv6 host is bracketed.
    const hostPort = authority.slice(authority.lastIndexOf('@') + 1);
    host = hostPort.startsWith('[') ? hostPort.slice(0, hostPort.indexOf(']') + 1) : (hostPort.split(':')[0] as string);
  } else {
    // scp syntax, `[user@]host:path`: no slash before the first colon (else a local path
    // like `./a:b`), and not a Windows drive (`C:\repo`).
    const m = /^(?:[^@/]+@)?(\[[^\]]+\]|[^:/]+):(.*)$/.exec(u);
    if (!m || /^[a-z]$/i.test(m[1] as string)) return undefined;
    host = m[1] as string;
    path = m[2] as string;
  }
  if (host === '') return undefined;
  const parts = path
    .replace(/\\/g, '/')
    .split('/')
    .filter((p) => p !== '' && p !== '.');
  const last = parts.length - 1;
  if (last < 0) return undefined;
  parts[last] = (parts[last] as string).replace(/\.git$/i, '');
  if (parts[last] === '') parts.pop();
  if (parts.length === 0) return undefined;
  return `${host}/${parts.join('/')}`.toLowerCase();
}

/** The folder of the repository's main worktree (a bare repository: its own name without `.git`). */
function mainFolderName(commonDir: string): string {
  return basename(commonDir) === '.git' ? basename(dirname(commonDir)) : basename(commonDir).replace(/\.git$/i, '');
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

/** The id git gives this content as a blob (`git hash-object`, SHA-1 repositories). */
export function gitBlobId(content: Buffer): string {
  return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
}

/**
 * A recorded file's path relative to the work tree's top (with `/`), or undefined when it
 * lies outside it. Relative paths are taken from the session's folder, as the agent used them.
 */
export function pathInRepo(file: string, top: string, cwd: string | undefined): string | undefined {
  const abs = isAbsolute(file) ? file : cwd ? resolve(cwd, file) : undefined;
  if (!abs) return undefined;
  return relativeInside(top, abs);
}

function relativeInside(top: string, abs: string): string | undefined {
  const t = top.endsWith('/') ? top : `${top}/`;
  let a = resolve(abs);
  if (!a.startsWith(t)) {
    // The session named the file through a symlinked folder; the top is a real path.
    try {
      a = realpathSync(a);
    } catch {
      try {
        a = join(realpathSync(dirname(a)), basename(a));
      } catch {
        return undefined;
      }
    }
    if (!a.startsWith(t)) return undefined;
  }
  const rel = a.slice(t.length);
  return rel === '' || rel.split('/').includes('.git') ? undefined : rel;
}
