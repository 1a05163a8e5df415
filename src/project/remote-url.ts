/**
 * A repository's identity from its remote URL: pure text, no file or `.git` read, so the
 * registry (and the cache through it) can use it.
 */

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
  return repoKey(`${host}/${parts.join('/')}`.toLowerCase());
}

/**
 * A repository key as every machine spells it: Unicode's composed form (NFC). A Mac may name a
 * folder decomposed (`デモ` as `テ` + `゛` + `モ`: folders made in Finder), which Linux and
 * Windows spell composed; a key read from a record or a manifest written there is composed here.
 */
export function repoKey(key: string): string {
  return key.normalize('NFC');
}

/** The folder of the repository's main worktree (a bare repository: its own name without `.git`). */
