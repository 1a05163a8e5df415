/**
 * Files renamed in a repository's history, so that a file's memories include those recorded
 * under its earlier names (`git mv src/checkout.ts src/pay/checkout.ts`: the sessions on
 * src/checkout.ts before that commit are sessions on src/pay/checkout.ts).
 *
 * Reading renames out of history costs what the hook cannot pay (every commit diffed), so a map
 * per checkout of a repository is kept in the memory home's `.cache/renames/`, made in the background: session
 * start, finding HEAD moved since the map was made, starts `memory renames` detached, which reads
 * the commits since the map's HEAD (all of them, back to the repository's oldest memory with
 * files, when there is no map or history was rewritten), within a time limit. The file hook and
 * `search --file` read the map: one small JSON file.
 */
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { workDirFor, writeKeepingMode } from '../config/paths.js';
import { readGit } from '../project/work-tree.js';

/** One file renamed by one commit (its committer time), or a move seen in a checkout and not committed yet. */
export interface Rename {
  from: string;
  to: string;
  atMs: number;
  /** A move's checkout (its top folder, symlinks resolved): where the move holds until a commit takes it up. */
  top?: string;
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
  /** The checkout it was read in (its top folder); absent in maps written before they named it. */
  top?: string;
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
  /** `path` is a folder (ending in `/`): every file under it, for that time (folderNamesOf). */
  folder?: boolean;
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

/** FNV-1a, 32 bits, as 8 hex digits (node:crypto costs the hook ~5 ms to load). */
function fnv(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16).padStart(8, '0');
}

const safeName = (repo: string) => repo.replace(/[^A-Za-z0-9._-]+/g, '_').slice(-80);

/**
 * A repository's map file: its key made a file name, with a hash against two keys made alike;
 * with `top`, the map of that checkout (each worktree reads its own branch's history: two on
 * diverged branches would read each other's renames, and read the whole history again at every
 * session start that follows the other's). Without, the map made before maps were a checkout's.
 */
export function renameMapPath(baseDir: string, repo: string, top?: string): string {
  return join(workDirFor(baseDir), 'renames', `${safeName(repo)}-${fnv(top === undefined ? repo : `${repo}\0${top}`)}.json`);
}

/** The commit a checkout's map was read up to (a file of its own: session start reads only this). */
export function renameMapHead(baseDir: string, repo: string, top: string): string | undefined {
  try {
    return readFileSync(`${renameMapPath(baseDir, repo, top)}.head`, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

function mapAt(path: string, repo: string): RenameMap | undefined {
  try {
    const m = JSON.parse(readFileSync(path, 'utf8')) as RenameMap;
    if (m.v !== 1 || m.repo !== repo || typeof m.head !== 'string' || !Array.isArray(m.renames)) return undefined;
    return m;
  } catch {
    return undefined;
  }
}

/**
 * The map of a repository, when one was made and reads whole: the checkout `top`'s; with no
 * checkout named (the viewer), or none made for it yet (a worktree before its first session
 * start has read its own), the repository's written last.
 */
export function readRenameMap(baseDir: string, repo: string, top?: string): RenameMap | undefined {
  if (top !== undefined) return mapAt(renameMapPath(baseDir, repo, top), repo) ?? readRenameMap(baseDir, repo);
  const dir = join(workDirFor(baseDir), 'renames');
  let newest: { path: string; ms: number } | undefined;
  try {
    for (const f of readdirSync(dir)) {
      if (!f.startsWith(`${safeName(repo)}-`) || !f.endsWith('.json')) continue;
      const ms = statSync(join(dir, f)).mtimeMs;
      if (!newest || ms > newest.ms) newest = { path: join(dir, f), ms };
    }
  } catch {
    return undefined;
  }
  return newest ? mapAt(newest.path, repo) : undefined;
}

/**
 * Moves the file hook saw the agent make and no commit holds yet (`git mv`, `mv`, a Codex patch's
 * `*** Move to:`), a JSON line each beside the map: the file moved this minute is found under its
 * new name at once, not after its commit and the next session start. Dated by this machine's
 * clock, as its memories are.
 */
export function movesPath(baseDir: string, repo: string): string {
  return renameMapPath(baseDir, repo).replace(/\.json$/, '.moves.jsonl');
}

/** Moves read at most (the newest), and kept when the file has grown past MOVES_BYTES. */
const MAX_MOVES = 200;
const MOVES_BYTES = 64 * 1024;
/** A move no commit took up counts this long at most (one put back, or whose checkout is gone, stops counting at once: undone). */
const MOVE_DAYS = 30;

/** Add moves to a repository's list (the memory home's cache is made when missing; a home that is not there gets nothing). */
export function recordMoves(baseDir: string, repo: string, moves: readonly Rename[]): void {
  if (moves.length === 0 || !existsSync(baseDir)) return;
  const path = movesPath(baseDir, repo);
  appendMoves(path, moves, movesIn(path)[0]?.atMs);
}

/**
 * Append moves to the moves file at `path`, after the move noted last (`lastMs`, read by the
 * caller): each dated never before it, so their order is the order they were made in, whatever
 * each process's clock says (a clock set back; under faketime every process starts anew).
 * Returns the moves as written, newest first.
 */
function appendMoves(path: string, moves: readonly Rename[], lastMs: number | undefined): Rename[] {
  mkdirSync(join(path, '..'), { recursive: true, mode: 0o700 });
  let last = lastMs ?? Number.NEGATIVE_INFINITY;
  const written = moves.map((m) => {
    last = Math.max(m.atMs, last + 1);
    return { from: m.from, to: m.to, atMs: last, ...(m.top !== undefined ? { top: m.top } : {}) };
  });
  appendFileSync(path, written.map((m) => `${JSON.stringify(m)}\n`).join(''), { mode: 0o600 });
  // Grown past MOVES_BYTES: the newest kept, written whole.
  if (statSync(path).size > MOVES_BYTES) {
    const lines = readFileSync(path, 'utf8').split('\n').filter((l) => l !== '');
    writeKeepingMode(path, `${lines.slice(-MAX_MOVES).join('\n')}\n`);
  }
  return written.reverse();
}

/** The moves of a moves file, newest first, at most MAX_MOVES (lines that do not read are passed over); which stand is `standing`'s to say. */
function movesIn(path: string): Rename[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return [];
  }
  const out: Rename[] = [];
  for (const line of text.split('\n')) {
    try {
      const m = JSON.parse(line) as Partial<Rename>;
      if (typeof m.from === 'string' && typeof m.to === 'string' && m.from !== '' && m.to !== '' && typeof m.atMs === 'number') {
        out.push({ from: m.from, to: m.to, atMs: m.atMs, ...(typeof m.top === 'string' && m.top !== '' ? { top: m.top } : {}) });
      }
    } catch {
      /* a line cut short */
    }
  }
  return out.sort((a, b) => b.atMs - a.atMs).slice(0, MAX_MOVES);
}

/**
 * Whether a move no longer stands where it was made: put back in its checkout (its destination
 * gone and its source there again: `git reset --hard`, `git stash`, `git checkout .` after the
 * agent's `git mv`), or its checkout gone (a worktree removed: what it had not committed went
 * with it, and what it committed is in the history the other checkouts' maps read). Until a
 * commit took it up, the file never moved: its sessions are its own again. Both names missing in
 * a checkout that is there (moved on again): the move stands.
 */
function undone(m: Rename): boolean {
  if (m.top === undefined || existsSync(join(m.top, m.to))) return false;
  return existsSync(join(m.top, m.from)) || !existsSync(m.top);
}

/**
 * The moves of a repository that stand at `nowMs`, newest first: not older than MOVE_DAYS, not
 * undone since (two stats a move, a third when both names are missing; at most MAX_MOVES), and,
 * when the reader names its checkout (`here`, its top folder), those made in it: a move not
 * committed in one worktree is no move in another. Moves written before they named their
 * checkout hold everywhere.
 */
export function readMoves(baseDir: string, repo: string, nowMs: number, here?: string): Rename[] {
  return movesIn(movesPath(baseDir, repo)).filter(standing(nowMs, here));
}

/** Whether a move read from the moves file stands at `nowMs` for the checkout `here` (readMoves): not older than MOVE_DAYS, made there, not undone. The newest MAX_MOVES read first, then these kept: the old ones are the last read, so the same as keeping first. */
const standing = (nowMs: number, here: string | undefined) => (m: Rename) =>
  m.atMs >= nowMs - MOVE_DAYS * 86_400_000 && (here === undefined || m.top === undefined || m.top === here) && !undone(m);

/** Renames found staged in the working tree and not committed yet (`git mv` in a terminal) noted at once. */
const STAGED_MAX = 100;

/**
 * Renames the working tree holds staged, not committed (session start reads them with its
 * `git status`), added to the moves as of `nowMs`: a pair already there is not added again.
 * Returns the moves of the checkout `top` that stand once these are noted (readMoves' answer,
 * newest first, for renamesOf), read from the moves file once; undefined when there was nothing
 * to note (the file was not read).
 */
export function noteStagedRenames(baseDir: string, repo: string, top: string, pairs: ReadonlyArray<{ from: string; to: string }>, nowMs: number): Rename[] | undefined {
  if (pairs.length === 0) return undefined;
  const path = movesPath(baseDir, repo);
  const all = movesIn(path);
  const stand = all.filter(standing(nowMs, top));
  const known = new Set(stand.map(pairOf));
  const added = pairs.slice(0, STAGED_MAX).filter((p) => !known.has(pairOf(p))).map((p) => ({ from: p.from, to: p.to, atMs: nowMs, top }));
  if (added.length === 0 || !existsSync(baseDir)) return stand;
  return [...appendMoves(path, added, all[0]?.atMs), ...stand].slice(0, MAX_MOVES);
}

/**
 * A repository's renames as this machine knows them, newest first: its map's and the moves no
 * commit holds yet (readMoves: those standing, and only the checkout `here`'s when it is named;
 * `movesRead` when the caller has them already, from noteStagedRenames).
 */
export function renamesOf(baseDir: string, repo: string, nowMs: number, here?: string, movesRead?: Rename[]): Rename[] {
  const map = readRenameMap(baseDir, repo, here)?.renames ?? [];
  const moves = movesRead ?? readMoves(baseDir, repo, nowMs, here);
  return moves.length === 0 ? map : [...moves, ...map].sort((a, b) => b.atMs - a.atMs);
}

/** The names of the file at `path` of the repository `repo`, as this machine knows them at `nowMs`, seen from the checkout `here` when named (namesOf). */
export function namesIn(baseDir: string, repo: string, path: string, nowMs: number, here?: string): FileName[] {
  return namesOf(renamesOf(baseDir, repo, nowMs, here), path);
}

/** A folder moved whole (`git mv src/pay src/billing`, as the file hook sees it): both names end in `/`. */
const isFolder = (r: Rename) => r.from.endsWith('/') && r.to.endsWith('/');

/** The name `path` had before the rename `r` when `r` brought it there (the file itself, or a folder it is in), else undefined. */
function nameBefore(r: Rename, path: string): string | undefined {
  if (isFolder(r)) return path.startsWith(r.to) ? r.from + path.slice(r.to.length) : undefined;
  return r.to === path ? r.from : undefined;
}

/** Whether the rename `r` took whatever was at `path` away from it. */
function takesAway(r: Rename, path: string): boolean {
  return isFolder(r) ? path.startsWith(r.from) : r.from === path;
}

const pairOf = (r: Pick<Rename, 'from' | 'to'>) => `${r.from}\0${r.to}`;

/**
 * The names of the file at `path`, now first, then each earlier one followed back through the
 * renames into it (src/pay/checkout.ts ← src/checkout.ts ← checkout.js), each with the time it
 * held it (give or take CLOCK_SLACK_MS): a file made later under an old name is another file, and
 * so is one that had the name before a rename took it away. A file moved and moved back
 * (a → b → a) is one file all along; a rename seen twice (the hook's move, then the commit that
 * holds it) counts once.
 */
export function namesOf(renames: readonly Rename[] | undefined, path: string, max = 8): FileName[] {
  const chain: FileName[] = [{ path }];
  const followed = new Set<string>();
  let cur = chain[0] as FileName;
  for (const r of renames ?? []) {
    if (chain.length > max) break;
    if (r.atMs > (cur.beforeMs ?? Number.POSITIVE_INFINITY) || followed.has(pairOf(r))) continue;
    const earlier = nameBefore(r, cur.path);
    if (earlier !== undefined) {
      cur = { path: earlier, beforeMs: r.atMs };
      chain.push(cur);
      followed.add(pairOf(r));
    } else if (takesAway(r, cur.path)) break;
  }
  // Each name from the newest rename that took an earlier file away from it (not one of this file's own).
  const awayBefore = (name: string, until: number) => renames?.find((r) => r.atMs < until && takesAway(r, name) && !followed.has(pairOf(r)))?.atMs;
  const out: FileName[] = [];
  for (const n of chain) {
    const after = awayBefore(n.path, n.beforeMs ?? Number.POSITIVE_INFINITY);
    // Each edge moved by the clocks' slack (the chain above follows the renames' own times).
    const name: FileName = {
      path: n.path,
      ...(after !== undefined ? { afterMs: after + CLOCK_SLACK_MS } : {}),
      ...(n.beforeMs !== undefined ? { beforeMs: n.beforeMs + CLOCK_SLACK_MS } : {}),
    };
    // A name it had again (moved back) whose time an earlier entry already covers: once.
    const covered = out.some((o) => o.path === name.path && (o.afterMs ?? 0) <= (name.afterMs ?? 0) && (o.beforeMs ?? Number.POSITIVE_INFINITY) >= (name.beforeMs ?? Number.POSITIVE_INFINITY));
    if (!covered) out.push(name);
  }
  return out;
}

/** Earlier names followed for one folder at most: each one more condition of the file filter. */
const FOLDER_NAMES_MAX = 200;

/**
 * What is under the folder `folder` (ending in `/`) now had these other names (beyond the folder
 * itself, which holds every path under it at any time): the folder's own earlier names when it
 * was moved whole (`git mv src/pay src/billing`: src/pay/ until then), a folder moved into it,
 * and each file renamed into it from outside with the names it had before (git's history holds
 * a folder's move as one rename a file). Newest renames first, at most FOLDER_NAMES_MAX.
 */
export function folderNamesOf(renames: readonly Rename[] | undefined, folder: string): FileName[] {
  const out: FileName[] = [];
  const add = (n: FileName): boolean => {
    if (out.length >= FOLDER_NAMES_MAX || out.some((o) => o.path === n.path && o.folder === n.folder && o.beforeMs === n.beforeMs)) return false;
    out.push(n);
    return true;
  };
  const walk = (prefix: string, until: number, depth: number): void => {
    for (const r of renames ?? []) {
      if (out.length >= FOLDER_NAMES_MAX || depth > 8) return;
      if (r.atMs > until) continue;
      const inside = (p: string) => p.startsWith(prefix);
      const earlier = isFolder(r) ? (prefix.startsWith(r.to) ? r.from + prefix.slice(r.to.length) : r.to.startsWith(prefix) && !inside(r.from) ? r.from : undefined) : undefined;
      if (earlier !== undefined) {
        // The folder (or one moved into it) under its earlier name, until the move; and that name's own earlier ones.
        if (add({ path: earlier, folder: true, beforeMs: r.atMs + CLOCK_SLACK_MS })) walk(earlier, r.atMs, depth + 1);
      } else if (!isFolder(r) && inside(r.to) && !inside(r.from)) {
        // A file renamed into it: the names it had before, followed back as a file's are (those inside are the folder's anyway).
        for (const n of namesOf(renames?.filter((x) => x.atMs <= r.atMs), r.to).slice(1)) if (!inside(n.path)) add(n);
      }
    }
  };
  walk(folder, Number.POSITIVE_INFINITY, 0);
  return out;
}

/** folderNamesOf for a repository's folder as this machine knows its renames at `nowMs`, seen from the checkout `here` when named. */
export function folderNamesIn(baseDir: string, repo: string, folder: string, nowMs: number, here?: string): FileName[] {
  return folderNamesOf(renamesOf(baseDir, repo, nowMs, here), folder);
}

/**
 * Bring the map of the checkout at `top` up to its `head`: the commits since the map's HEAD when
 * that is in `head`'s history, else all of it back to `sinceMs`. Written atomically; returns the map.
 */
export function refreshRenameMap(baseDir: string, top: string, repo: string, head: string, opts: { sinceMs?: number; timeoutMs: number; maxCommits: number }): RenameMap | undefined {
  // Grown from this checkout's map, else from the repository's last (a new worktree: only the commits since, when its branch grew from there).
  const own = mapAt(renameMapPath(baseDir, repo, top), repo);
  if (own?.head === head) return own;
  const before = own ?? readRenameMap(baseDir, repo);
  const onTop = before !== undefined && readGit(top, ['merge-base', '--is-ancestor', before.head, head], opts).ok;
  const scanned = scanRenames(top, head, { ...(onTop ? { base: before.head } : {}), ...(opts.sinceMs !== undefined ? { sinceMs: opts.sinceMs } : {}), timeoutMs: opts.timeoutMs, maxCommits: opts.maxCommits });
  if (!scanned) return undefined;
  const map: RenameMap = {
    v: 1,
    repo,
    head,
    renames: [...scanned.renames, ...(onTop ? before.renames : [])].slice(0, MAX_RENAMES),
    complete: scanned.complete && (!onTop || before.complete),
    top,
  };
  const path = renameMapPath(baseDir, repo, top);
  // Only inside a memory home that is there (a reading that outlives its home writes nothing).
  if (!existsSync(join(path, '..'))) mkdirSync(join(path, '..'), { mode: 0o700 });
  writeKeepingMode(path, `${JSON.stringify(map)}\n`);
  writeKeepingMode(`${path}.head`, `${head}\n`);
  tidyMaps(baseDir, repo, path);
  return map;
}

/**
 * Beside the map just written (`kept`), the repository's maps that no checkout reads any more go:
 * those of checkouts that are gone (a person whose agent makes a worktree per task would gather
 * one per task, each up to MAX_RENAMES renames) and the one map from before maps were a
 * checkout's. A map that names no checkout (written before maps named theirs) stays.
 */
function tidyMaps(baseDir: string, repo: string, kept: string): void {
  const dir = join(kept, '..');
  const single = renameMapPath(baseDir, repo);
  try {
    for (const f of readdirSync(dir)) {
      const path = join(dir, f);
      if (path === kept || !f.startsWith(`${safeName(repo)}-`) || !f.endsWith('.json')) continue;
      const top = path === single ? undefined : mapAt(path, repo)?.top;
      if (path !== single && (top === undefined || existsSync(top))) continue;
      rmSync(path, { force: true });
      rmSync(`${path}.head`, { force: true });
    }
  } catch {
    /* a folder that cannot be read: nothing tidied, nothing lost */
  }
}
