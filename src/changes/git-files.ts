/**
 * Files as git sees them, for "what changed since this memory" (staleness.ts and the file
 * states a capture records): the blob id git gives a file's content, and a recorded path
 * relative to its work tree.
 */
import { realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { sha1 } from '../later.js';

/** The id git gives this content as a blob (`git hash-object`, SHA-1 repositories). */
export function gitBlobId(content: Buffer): string {
  return sha1().update(`blob ${content.length}\0`).update(content).digest('hex');
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
