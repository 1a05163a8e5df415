/** Which project a session belongs to. node:fs only: per-prompt recall asks on every prompt. */
import { existsSync, realpathSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { sanitizeName } from '../config/validate.js';

/**
 * The top folder of the git work tree holding `dir` (where `.git` is, a folder or a
 * worktree's file), as git's `--show-toplevel` names it (symlinks resolved); undefined outside one.
 */
export function gitTopOf(dir: string): string | undefined {
  let cur: string;
  try {
    cur = realpathSync(dir);
  } catch {
    return undefined;
  }
  for (;;) {
    if (existsSync(join(cur, '.git'))) return cur;
    const up = dirname(cur);
    if (up === cur) return undefined;
    cur = up;
  }
}

/** Project name: the configured one, else the basename of the cwd's git top level (or the cwd). */
export function projectFor(cwd: string | undefined, configured: string | undefined): string {
  if (configured) return configured;
  if (!cwd) return 'unknown';
  return sanitizeName(basename(gitTopOf(cwd) ?? cwd));
}
