/**
 * Files moved in the working tree without git (an editor's rename, a plain `mv` in a terminal, not
 * staged): `git status` shows the old path deleted and the new one untracked, and finds no rename
 * (it compares only what is staged). Paired here by content, as git's rename detection would pair
 * them once staged: an untracked file whose blob is the one the index still holds for a deleted
 * path is that file moved; failing that, one that keeps most of its lines (edited after the move),
 * when no other file comes as close.
 */
import { readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { gitBlobId } from './git-files.js';
import { readGit, readGitBytes, type WorkInProgress } from '../project/work-tree.js';

/** Untracked files hashed at most, and the largest hashed: a tree of generated files costs no more. */
const CANDIDATES_MAX = 50;
const FILE_BYTES_MAX = 256 * 1024;
/** Untracked files this few are all looked at; beyond, only those named as a deleted file was. */
const ALL_BELOW = 20;

/** The index's blob of each path (`git ls-files -s -z` output, parsed: pure). */
export function parseStage(out: string): Map<string, string> {
  const blobs = new Map<string, string>();
  for (const e of out.split('\0')) {
    const m = /^\d+ ([0-9a-f]{40,64}) 0\t(.+)$/s.exec(e);
    if (m) blobs.set(m[2] as string, m[1] as string);
  }
  return blobs;
}

/** Lines two files share, as a share of both (2·shared / (a + b)), at which one is the other edited: git's default rename threshold. */
export const SIMILAR_MIN = 0.5;
/** Deleted files compared line by line at most (each with every untracked candidate left). */
const SIMILAR_DELETED_MAX = 10;
/** Lines a file needs to be told apart by them (a short file is mostly its boilerplate). */
const SIMILAR_LINES_MIN = 3;

/** A file's lines that say something (trimmed; braces, blank lines and other short ones aside), counted. */
export function contentLines(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.length >= 4) out.set(line, (out.get(line) ?? 0) + 1);
  }
  return out;
}

/** How alike two files are by their lines: 2·shared / (a + b), 0 when either is too short to tell. */
export function similarity(a: Map<string, number>, b: Map<string, number>): number {
  let na = 0;
  let nb = 0;
  for (const n of a.values()) na += n;
  for (const n of b.values()) nb += n;
  if (na < SIMILAR_LINES_MIN || nb < SIMILAR_LINES_MIN) return 0;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let shared = 0;
  for (const [line, n] of small) shared += Math.min(n, large.get(line) ?? 0);
  return (2 * shared) / (na + nb);
}

/**
 * Pairs by likeness (pure): each deleted file with the untracked one closest to it, when that is
 * at least SIMILAR_MIN, closer than any other untracked file is to it, and closer to it than to
 * any other deleted file. Ties pair nothing.
 */
export function pairBySimilarity(deleted: ReadonlyMap<string, Map<string, number>>, untracked: ReadonlyMap<string, Map<string, number>>): Array<{ from: string; to: string }> {
  const score = new Map<string, number>();
  for (const [d, dl] of deleted) for (const [u, ul] of untracked) score.set(`${d}\0${u}`, similarity(dl, ul));
  const best = (keys: readonly string[], key: (k: string) => string): string | undefined => {
    let top: string | undefined;
    let topScore = -1;
    let tied = false;
    for (const k of keys) {
      const v = score.get(key(k)) ?? 0;
      if (v > topScore) [top, topScore, tied] = [k, v, false];
      else if (v === topScore) tied = true;
    }
    return top !== undefined && !tied && topScore >= SIMILAR_MIN ? top : undefined;
  };
  const ds = [...deleted.keys()];
  const us = [...untracked.keys()];
  const out: Array<{ from: string; to: string }> = [];
  for (const d of ds) {
    const u = best(us, (x) => `${d}\0${x}`);
    if (u !== undefined && best(ds, (x) => `${x}\0${u}`) === d) out.push({ from: d, to: u });
  }
  return out;
}

/** The content of blobs (`git cat-file --batch`), those of at most FILE_BYTES_MAX, within the time left; none when git does not answer. */
function blobTexts(top: string, blobs: readonly string[], deadline: number): Map<string, string> {
  const out = new Map<string, string>();
  const run = (args: string[], input: string, maxBuffer: number) => {
    const timeoutMs = deadline - Date.now();
    if (timeoutMs <= 0) return undefined;
    const r = readGitBytes(top, args, { timeoutMs, maxBuffer, input });
    return r.ok ? r.out : undefined;
  };
  // Their sizes first: a deleted file of megabytes is not read.
  const sizes = run(['cat-file', '--batch-check=%(objectname) %(objecttype) %(objectsize)'], `${blobs.join('\n')}\n`, 1024 * 1024)?.toString('latin1');
  const small = (sizes ?? '').split('\n').map((l) => l.split(' ')).filter((p) => p[1] === 'blob' && Number(p[2]) > 0 && Number(p[2]) <= FILE_BYTES_MAX).map((p) => p[0] as string);
  if (small.length === 0) return out;
  const batch = run(['cat-file', '--batch'], `${small.join('\n')}\n`, small.length * (FILE_BYTES_MAX + 200));
  if (!batch) return out;
  // Each: "<oid> blob <size>\n", that many bytes, "\n".
  let at = 0;
  while (at < batch.length) {
    const eol = batch.indexOf(0x0a, at);
    if (eol < 0) break;
    const [oid, , size] = batch.subarray(at, eol).toString('latin1').split(' ');
    const n = Number(size);
    if (!oid || !Number.isFinite(n)) break;
    out.set(oid, batch.subarray(eol + 1, eol + 1 + n).toString('utf8'));
    at = eol + 1 + n + 1;
  }
  return out;
}

/**
 * The moves the working tree at `top` shows and no one staged: each deleted file (not staged)
 * whose content one untracked file holds whole, that file and no other, and no other deleted
 * file's; then, of those left, each that one untracked file keeps most of (pairBySimilarity).
 * Empty files say nothing. One `git ls-files` when the tree has both, and two `git cat-file`
 * when files are left to compare; all within `timeoutMs`; none when git does not answer.
 */
export function unstagedMoves(top: string, wip: Pick<WorkInProgress, 'deleted' | 'untracked'>, opts: { timeoutMs: number }): Array<{ from: string; to: string }> {
  if (wip.deleted.length === 0 || wip.untracked.length === 0) return [];
  const deadline = Date.now() + opts.timeoutMs;
  const names = new Set(wip.deleted.map((p) => basename(p)));
  const candidates = (wip.untracked.length <= ALL_BELOW ? wip.untracked : wip.untracked.filter((p) => names.has(basename(p)))).slice(0, CANDIDATES_MAX);
  if (candidates.length === 0) return [];
  const staged = readGit(top, ['ls-files', '-s', '-z', '--', ...wip.deleted.slice(0, CANDIDATES_MAX).map((p) => `:(literal)${p}`)], opts);
  if (!staged.ok) return [];
  // Each deleted file's blob; a blob two deleted files share names neither.
  const stage = parseStage(staged.out);
  const byBlob = new Map<string, string | null>();
  for (const [path, blob] of stage) byBlob.set(blob, byBlob.has(blob) ? null : path);
  const found = new Map<string, string | null>();
  const contents = new Map<string, Buffer>();
  for (const to of candidates) {
    try {
      const abs = join(top, to);
      const size = statSync(abs).size;
      if (size === 0 || size > FILE_BYTES_MAX) continue;
      contents.set(to, readFileSync(abs));
    } catch {
      continue;
    }
  }
  const matched = new Set<string>();
  for (const [to, content] of contents) {
    const blob = gitBlobId(content);
    const from = byBlob.get(blob);
    if (from === undefined) continue;
    matched.add(to);
    if (from !== null) found.set(from, found.has(from) ? null : to);
  }
  const moves = [...found].filter((e): e is [string, string] => typeof e[1] === 'string').map(([from, to]) => ({ from, to }));
  // Edited after the move: the deleted files no untracked one holds whole, against the untracked files that hold no deleted one.
  const shared = new Set([...byBlob].filter(([, p]) => p === null).map(([b]) => b));
  const left = [...stage].filter(([path, blob]) => !found.has(path) && !shared.has(blob)).slice(0, SIMILAR_DELETED_MAX);
  const others = [...contents].filter(([to]) => !matched.has(to));
  if (left.length === 0 || others.length === 0) return moves;
  const texts = blobTexts(top, [...new Set(left.map(([, blob]) => blob))], deadline);
  const before = new Map(left.filter(([, blob]) => texts.has(blob)).map(([path, blob]) => [path, contentLines(texts.get(blob) as string)]));
  if (before.size === 0) return moves;
  const after = new Map(others.map(([to, content]) => [to, contentLines(content.toString('utf8'))]));
  return [...moves, ...pairBySimilarity(before, after)];
}
