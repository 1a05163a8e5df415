/**
 * Files moved in the working tree without git (an editor's rename, a plain `mv` in a terminal, not
 * staged): `git status` shows the old path deleted and the new one untracked, and finds no rename
 * (it compares only what is staged). Paired here by content, as git's exact rename detection does:
 * an untracked file whose blob is the one the index still holds for a deleted path is that file
 * moved. A file moved and then edited is not found (git would compare similarity; this costs what
 * session start cannot).
 */
import { readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { gitBlobId } from './git-files.js';
import { readGit, type WorkInProgress } from '../project/work-tree.js';

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

/**
 * The moves the working tree at `top` shows and no one staged: each deleted file (not staged)
 * whose content one untracked file holds whole, that file and no other, and no other deleted
 * file's. Empty files say nothing. One `git ls-files`, within `timeoutMs`, only when the tree
 * has both; none when git does not answer.
 */
export function unstagedMoves(top: string, wip: Pick<WorkInProgress, 'deleted' | 'untracked'>, opts: { timeoutMs: number }): Array<{ from: string; to: string }> {
  if (wip.deleted.length === 0 || wip.untracked.length === 0) return [];
  const names = new Set(wip.deleted.map((p) => basename(p)));
  const candidates = (wip.untracked.length <= ALL_BELOW ? wip.untracked : wip.untracked.filter((p) => names.has(basename(p)))).slice(0, CANDIDATES_MAX);
  if (candidates.length === 0) return [];
  const staged = readGit(top, ['ls-files', '-s', '-z', '--', ...wip.deleted.slice(0, CANDIDATES_MAX).map((p) => `:(literal)${p}`)], opts);
  if (!staged.ok) return [];
  // Each deleted file's blob; a blob two deleted files share names neither.
  const byBlob = new Map<string, string | null>();
  for (const [path, blob] of parseStage(staged.out)) byBlob.set(blob, byBlob.has(blob) ? null : path);
  const found = new Map<string, string | null>();
  for (const to of candidates) {
    let content: Buffer;
    try {
      const abs = join(top, to);
      const size = statSync(abs).size;
      if (size === 0 || size > FILE_BYTES_MAX) continue;
      content = readFileSync(abs);
    } catch {
      continue;
    }
    const from = byBlob.get(gitBlobId(content));
    if (typeof from === 'string') found.set(from, found.has(from) ? null : to);
  }
  return [...found].filter((e): e is [string, string] => typeof e[1] === 'string').map(([from, to]) => ({ from, to }));
}
