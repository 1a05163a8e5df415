/**
 * The rule memory files live by in git: append-only lines, merged as a union of both sides,
 * and a work-tree file that lost committed lines is put back before anything is written.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { idEdits, wholeLinesOf } from '../export/jsonl.js';
import { type Repo, ourGit } from './process.js';

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
    // Whole lines only from the damaged copy (the one rule, jsonl.ts): a cut last line is not
    // a record, nor is a line that no longer parses, on either side (a hand edit; half a record
    // an older version committed): set aside, never restored.
    const { lines: whole, torn } = wholeLinesOf(now);
    const lines = unionLines(committed, whole.length > 0 ? `${whole.join('\n')}\n` : '').split('\n').filter((l) => l.length > 0);
    // A line whose id alone was changed by hand is no new memory either (jsonl.ts idEdits).
    const committedLines = committed.split('\n').filter((l) => l.length > 0);
    const inCommitted = new Set(committedLines);
    const inWorkTree = new Set(whole);
    const edited = idEdits(committedLines.filter((l) => !inWorkTree.has(l)), whole.filter((l) => !inCommitted.has(l)));
    const unusable = (l: string) => damaged(l) || edited.has(l);
    // A torn last line cut out of a committed line is that line, put back whole: nothing to keep.
    const keepTorn = torn !== undefined && !committedLines.some((l) => l.startsWith(torn));
    const bad = [...lines.filter(unusable), ...(keepTorn ? [torn] : [])];
    const kept = bad.length > 0 ? lines.filter((l) => !unusable(l)) : lines;
    writeFileSync(abs, kept.length > 0 ? `${kept.join('\n')}\n` : '');
    out.restored.push(path);
    if (bad.length > 0) out.setAside.set(path, bad);
  }
  return out;
}
