/**
 * Files as git sees them, for "what changed since this memory" (staleness.ts and the file
 * states a capture records): the blob id git gives a file's content, and a recorded path
 * relative to its work tree.
 */
import { realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { sha1 as jsSha1 } from '@noble/hashes/legacy.js';
import { sha1 } from '../later.js';

/**
 * Content up to this size is hashed in JavaScript (@noble/hashes): node:crypto's start, OpenSSL
 * with it, costs a hook 5–7 ms whatever the size, which hashing a 64 KB file in JavaScript, cold,
 * does not reach (bench/RESULTS.md). Larger content goes to node:crypto.
 */
export const JS_HASH_MAX_BYTES = 64 * 1024;

/** The id git gives this content as a blob (`git hash-object`, SHA-1 repositories). */
export function gitBlobId(content: Buffer): string {
  const header = `blob ${content.length}\0`;
  if (content.length > JS_HASH_MAX_BYTES) return sha1().update(header).update(content).digest('hex');
  return Buffer.from(jsSha1.create().update(Buffer.from(header, 'latin1')).update(content).digest()).toString('hex');
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
