/**
 * Files renamed in a repository's history, so that a file's memories include those recorded
 * under its earlier names (`git mv src/checkout.ts src/pay/checkout.ts`: the sessions on
 * src/checkout.ts before that commit are sessions on src/pay/checkout.ts).
 *
 * Reading renames out of history costs what the hook cannot pay (every commit diffed), so a map
 * per repository is kept in the memory home's `.cache/renames/`, made in the background: session
 * start, finding HEAD moved since the map was made, starts `memory renames` detached, which reads
 * the commits since the map's HEAD (all of them, back to the repository's oldest memory with
 * files, when there is no map or history was rewritten), within a time limit. The file hook and
 * `search --file` read the map: one small JSON file.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { workDirFor, writeKeepingMode } from '../config/paths.js';
import { readGit } from '../project/work-tree.js';

/** One file renamed by one commit (its committer time). */
export interface Rename {
  from: string;
  to: string;
  atMs: number;
}

export interface RenameMap {
  v: 1;
  repo: string;
  /** The commit the map was read up to. */
  head: string;
  /** Newest first. */
  renames: Rename[];
  /** False when the time or commit limit stopped the reading: older renames are missing. */
  complete: boolean;
}

/**
 * A name a file had, and when (its memories under that name are the file's): from `afterMs`
 * (when an earlier file of that name was renamed away; absent: always) until `beforeMs` (when
 * this file was renamed away from it; absent: it has the name still).
 */
export interface FileName {
  path: string;
  afterMs?: number;
  beforeMs?: number;
}

const MAX_RENAMES = 5_000;

/**
 * How far a memory's time may run past the commit that renamed its file and the memory still
 * count for the name the file had then: each machine dates its memories by its own clock, a
 * commit is dated to the second by its committer's, and the commit often comes after the turns
 * that did the work. A file made anew under the old name has it from then on.
 */
export const CLOCK_SLACK_MS = 3_600_000;

/**
 * `git log -z --format=%x01%ct --name-status -M --diff-filter=R`, parsed (pure): each commit's
 * renames, newest commit first. Output cut off mid-commit (the time limit) keeps what is whole.
 */
export function parseRenameLog(out: string): Rename[] {
  const res: Rename[] = [];
  for (const chunk of out.split('\u0001')) {
    const end = chunk.indexOf('\0');
    if (end < 0) continue;
    const atMs = Number(chunk.slice(0, end)) * 1000;
    if (!Number.isFinite(atMs)) continue;
    const parts = chunk.slice(end + 1).replace(/^\n/, '').split('\0');
    for (let i = 0; i + 2 < parts.length; i += 3) {
      const [status, from, to] = [parts[i] as string, parts[i + 1] as string, parts[i + 2] as string];
      if (!/^R\d*$/.test(status) || from === '' || to === '') break;
      res.push({ from, to, atMs });
    }
  }
  return res;
}

/**
 * The renames of the commits `base..head` (all of `head`'s history when `base` is undefined),
 * back to `sinceMs`, within `timeoutMs` and `maxCommits`; undefined when git cannot read them
 * (`base` unknown here, say).
 */
export function scanRenames(top: string, head: string, opts: { base?: string; sinceMs?: number; timeoutMs: number; maxCommits: number }): { renames: Rename[]; complete: boolean } | undefined {
  const args = ['log', '-z', '--no-merges', '-M', '--diff-filter=R', '--name-status', '--format=%x01%ct', `--max-count=${opts.maxCommits}`];
  if (opts.sinceMs !== undefined) args.push(`--since=${Math.floor(opts.sinceMs / 1000)}`);
  args.push(opts.base ? `${opts.base}..${head}` : head, '--');
  const r = readGit(top, args, { timeoutMs: opts.timeoutMs, maxBuffer: 64 * 1024 * 1024 });
  if (!r.ok && !r.timedOut) return undefined;
  // As many commits as the limit: the reading stopped there, older renames may be missing.
  const commits = r.out.split('\u0001').length - 1;
  return { renames: parseRenameLog(r.out), complete: r.ok && commits < opts.maxCommits };
}

/**
 * A repository's map file: its key made a file name, with a hash of the key against two keys
 * made alike (FNV-1a, 32 bits: node:crypto costs the hook ~5 ms to load).
 */
export function renameMapPath(baseDir: string, repo: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < repo.length; i++) h = Math.imul(h ^ repo.charCodeAt(i), 0x01000193) >>> 0;
  return join(workDirFor(baseDir), 'renames', `${repo.replace(/[^A-Za-z0-9._-]+/g, '_').slice(-80)}-${h.toString(16).padStart(8, '0')}.json`);
}

/** The commit a repository's map was read up to (a file of its own: session start reads only this). */
export function renameMapHead(baseDir: string, repo: string): string | undefined {
  try {
    return readFileSync(`${renameMapPath(baseDir, repo)}.head`, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/** The map of a repository, when one was made and reads whole. */
export function readRenameMap(baseDir: string, repo: string): RenameMap | undefined {
  try {
    const m = JSON.parse(readFileSync(renameMapPath(baseDir, repo), 'utf8')) as RenameMap;
    if (m.v !== 1 || m.repo !== repo || typeof m.head !== 'string' || !Array.isArray(m.renames)) return undefined;
    return m;
  } catch {
    return undefined;
  }
}

/** The names of the file at `path` of the repository `repo`, as this machine's map knows them (namesOf). */
export function namesIn(baseDir: string, repo: string, path: string): FileName[] {
  return namesOf(readRenameMap(baseDir, repo)?.renames, path);
}

/**
 * The names of the file at `path`, now first, then each earlier one followed back through the
 * renames into it (src/pay/checkout.ts ← src/checkout.ts ← checkout.js), each with the time it
 * held it (give or take CLOCK_SLACK_MS): a file made later under an old name is another file, and
 * so is one that had the name before a rename took it away.
 */
export function namesOf(renames: readonly Rename[] | undefined, path: string, max = 8): FileName[] {
  // The newest rename away from `name` before `until`: where an earlier file of that name ends.
  const awayBefore = (name: string, until: number) => renames?.find((r) => r.from === name && r.atMs < until)?.atMs;
  const now = awayBefore(path, Number.POSITIVE_INFINITY);
  const out: FileName[] = [{ path, ...(now !== undefined ? { afterMs: now } : {}) }];
  if (!renames) return out;
  // The name being followed back, and the time it held it: a rename into it counts only then.
  let cur = out[0] as FileName;
  const seen = new Set([path]);
  for (const r of renames) {
    if (out.length > max) break;
    if (r.to !== cur.path || r.atMs > (cur.beforeMs ?? Number.POSITIVE_INFINITY) || r.atMs < (cur.afterMs ?? 0) || seen.has(r.from)) continue;
    const after = awayBefore(r.from, r.atMs);
    cur = { path: r.from, beforeMs: r.atMs, ...(after !== undefined ? { afterMs: after } : {}) };
    out.push(cur);
    seen.add(r.from);
  }
  // Each edge moved by the clocks' slack (the chain above follows the commits' own times).
  return out.map((n) => ({
    path: n.path,
    ...(n.afterMs !== undefined ? { afterMs: n.afterMs + CLOCK_SLACK_MS } : {}),
    ...(n.beforeMs !== undefined ? { beforeMs: n.beforeMs + CLOCK_SLACK_MS } : {}),
  }));
}

/**
 * Bring a repository's map up to `head` (the checkout at `top`): the commits since the map's
 * HEAD when that is in `head`'s history, else all of it back to `sinceMs`. Written atomically;
 * returns the map.
 */
export function refreshRenameMap(baseDir: string, top: string, repo: string, head: string, opts: { sinceMs?: number; timeoutMs: number; maxCommits: number }): RenameMap | undefined {
  const before = readRenameMap(baseDir, repo);
  if (before?.head === head) return before;
  const onTop = before !== undefined && readGit(top, ['merge-base', '--is-ancestor', before.head, head], opts).ok;
  const scanned = scanRenames(top, head, { ...(onTop ? { base: before.head } : {}), ...(opts.sinceMs !== undefined ? { sinceMs: opts.sinceMs } : {}), timeoutMs: opts.timeoutMs, maxCommits: opts.maxCommits });
  if (!scanned) return undefined;
  const map: RenameMap = {
    v: 1,
    repo,
    head,
    renames: [...scanned.renames, ...(onTop ? before.renames : [])].slice(0, MAX_RENAMES),
    complete: scanned.complete && (!onTop || before.complete),
  };
  const path = renameMapPath(baseDir, repo);
  // Only inside a memory home that is there (a reading that outlives its home writes nothing).
  if (!existsSync(join(path, '..'))) mkdirSync(join(path, '..'), { mode: 0o700 });
  writeKeepingMode(path, `${JSON.stringify(map)}\n`);
  writeKeepingMode(`${path}.head`, `${head}\n`);
  return map;
}
