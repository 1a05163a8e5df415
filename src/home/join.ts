/**
 * Joining memories that grew apart. Memory homes are made on each machine by `git init`, so
 * a second machine's home and the memory remote it joins share no history; and the upgrade
 * brings memories out of a tool checkout whose history is the tool's. Neither is a reason to
 * refuse: memory data is per-machine JSONL whose lines unite without conflict. Their memory
 * files are united line by line on top of the other side's branch, and nothing else of the
 * local history is kept but a ref to it (`refs/memory-engine/before-join`), so nothing is
 * lost even by mistake.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { isDir } from '../project/repository.js';
import { ourGit, type Repo } from '../sync/process.js';
import { unionLines } from '../sync/memory-files.js';

/** Whole lines of a memory file (a torn last line, half a record, is left behind). */
export function wholeLines(text: string): string {
  const end = text.lastIndexOf('\n');
  const whole = end < 0 ? '' : text.slice(0, end + 1);
  const tail = text.slice(end + 1);
  if (tail.length === 0) return whole;
  try {
    JSON.parse(tail);
    return `${whole}${tail}\n`;
  } catch {
    return whole;
  }
}

export interface UniteResult {
  /** Memory files written (new or with lines added). */
  files: number;
  /** Lines added that the target did not have. */
  lines: number;
  /** Distinct lines of the input the target holds now, added now or before (a move a killed run began). */
  present: number;
  /** Input files with a line in the target. */
  presentFiles: number;
}

/**
 * Unite `files` (path inside the repository → text) into the work tree of `root`: each
 * distinct line once, the target's first. Returns what changed.
 */
export function uniteInto(root: string, files: Map<string, string>): UniteResult {
  const result: UniteResult = { files: 0, lines: 0, present: 0, presentFiles: 0 };
  for (const [path, text] of files) {
    const target = join(root, path);
    const before = existsSync(target) ? wholeLines(readFileSync(target, 'utf8')) : '';
    const input = wholeLines(text);
    const after = unionLines(before, input);
    const mine = new Set(input.split('\n').filter((l) => l.length > 0)).size;
    result.present += mine;
    if (mine > 0) result.presentFiles++;
    if (after === before) continue;
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, after);
    result.files++;
    result.lines += count(after) - count(before);
  }
  return result;
}

function count(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/** The `.jsonl` files under `prefix` in a commit, with their text. */
export async function memoryFilesAt(root: string, rev: string, prefix: string): Promise<Map<string, string>> {
  const g = ourGit(root);
  const out = new Map<string, string>();
  const listed = (await g.raw(['ls-tree', '-r', '--name-only', rev, '--', prefix]).catch(() => '')).split('\n');
  for (const path of listed) {
    if (!path.endsWith('.jsonl')) continue;
    out.set(path, await g.raw(['show', `${rev}:${path}`]));
  }
  return out;
}

export const BEFORE_JOIN_REF = 'refs/memory-engine/before-join';

/**
 * Put this repository on `ref` (another machine's memory branch, fetched) and unite our
 * memory files into it: what was committed here and what the work tree holds uncommitted.
 * The shared settings are theirs (a machine joining takes the memory's settings); ours, when
 * they differ, stay in `config.toml.before-join`. The caller commits the result.
 */
export async function joinOnto(repo: Repo, ref: string, exportRel: string): Promise<UniteResult & { settingsKept?: string }> {
  const g = ourGit(repo.root);
  const head = (await g.raw(['rev-parse', '--verify', '-q', 'HEAD']).catch(() => '')).trim();
  const ours = head ? await memoryFilesAt(repo.root, head, exportRel || '.') : new Map<string, string>();
  // Uncommitted lines too: what the work tree holds beyond HEAD.
  for (const [path, text] of workTreeMemoryFiles(repo.root, exportRel)) ours.set(path, unionLines(ours.get(path) ?? '', wholeLines(text)));
  const ourSettings = existsSync(join(repo.root, 'config.toml')) ? readFileSync(join(repo.root, 'config.toml'), 'utf8') : undefined;
  if (head) await g.raw(['update-ref', BEFORE_JOIN_REF, head]);
  await g.raw(['reset', '-q', '--hard', ref]);
  const united = uniteInto(repo.root, ours);
  const theirSettings = existsSync(join(repo.root, 'config.toml')) ? readFileSync(join(repo.root, 'config.toml'), 'utf8') : undefined;
  if (ourSettings !== undefined && theirSettings === undefined) writeFileSync(join(repo.root, 'config.toml'), ourSettings);
  if (ourSettings !== undefined && theirSettings !== undefined && ourSettings !== theirSettings) {
    writeFileSync(join(repo.root, 'config.toml.before-join'), ourSettings);
    return { ...united, settingsKept: 'config.toml.before-join' };
  }
  return united;
}

/** The `.jsonl` files under the export folder of a work tree, read from disk. */
export function workTreeMemoryFiles(root: string, exportRel: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string, rel: string) => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      const p = join(dir, name);
      const r = rel ? `${rel}/${name}` : name;
      if (name === '.git' || name === '.cache') continue;
      if (isDir(p)) walk(p, r);
      else if (name.endsWith('.jsonl')) out.set(r, readFileSync(p, 'utf8'));
    }
  };
  walk(exportRel ? join(root, exportRel) : root, exportRel);
  return out;
}
