/**
 * `memory renames`: read the renames in this checkout's history into the repository's rename map
 * (changes/renames.ts), so that a file's memories include those recorded under its earlier
 * names. Session start runs it in the background when HEAD moved; by hand it says what it read.
 */
import type { Command } from 'commander';
import { resolve } from 'node:path';
import type { Context } from '../../app/context.js';
import { readMoves, refreshRenameMap } from '../../changes/renames.js';
import { UserError } from '../../errors.js';
import { headCommit, repoIdentity } from '../../project/repository.js';
import { openCacheAsIs } from '../../store/cache.js';
import type { Runner } from '../runner.js';
import { printJson } from '../render.js';

/** The background reading's bounds: a history of years is read in part, newest first. */
export const RENAME_SCAN = { timeoutMs: 30_000, maxCommits: 50_000 };

export function registerRenames(program: Command, run: Runner): void {
  program
    .command('renames')
    .description("read the files renamed in this checkout's history since its oldest memory, so that a file's memories include those under its earlier names (session start does this in the background)")
    .option('--cwd <dir>', 'a folder of the checkout (default: the current folder)')
    .option('--json', 'print the result as JSON')
    .action((flags: { cwd?: string; json?: boolean }) => run((ctx) => renames(ctx, flags)));
}

async function renames(ctx: Context, flags: { cwd?: string; json?: boolean }): Promise<number> {
  const dir = resolve(ctx.io.cwd, flags.cwd ?? '.');
  const repo = repoIdentity(dir);
  if (!repo) throw new UserError(`${dir}: not inside a git checkout`);
  const head = headCommit(repo);
  if (!head) throw new UserError(`${repo.top}: no commit checked out yet`);
  // Back to the repository's oldest memory with files: a rename before it changes no memory's name.
  const c = ctx.config;
  const store = openCacheAsIs(ctx.cacheOptions(), { vectors: false });
  let since: number | undefined;
  try {
    since = store?.files.oldest(repo.key);
  } finally {
    store?.close();
  }
  if (since === undefined) {
    if (flags.json) printJson(ctx.io, { repo: repo.key, head, renames: 0, complete: true, memories: false });
    else ctx.io.stdout.write(`No memory records a file of ${repo.key} yet: nothing to follow.\n`);
    return 0;
  }
  const map = refreshRenameMap(c.baseDir, repo.top, repo.key, head, { sinceMs: since - 86_400_000, ...RENAME_SCAN });
  if (!map) throw new UserError(`git could not read the history of ${repo.top}`);
  // The moves the file hook saw (or session start found staged) in this checkout that a commit may not hold yet, and not put back.
  const moves = readMoves(c.baseDir, repo.key, ctx.io.now().getTime(), repo.top).length;
  if (flags.json) printJson(ctx.io, { repo: repo.key, head, renames: map.renames.length, complete: map.complete, memories: true, moves });
  else {
    const n = (k: number, one: string, many: string) => `${k} ${k === 1 ? one : many}`;
    ctx.io.stdout.write(`${n(map.renames.length, 'rename', 'renames')} in ${repo.key} up to ${head.slice(0, 12)}${map.complete ? '' : ' (the history was read in part: its time or commit limit)'}.\n`);
    if (moves > 0) ctx.io.stdout.write(`${n(moves, 'move', 'moves')} seen in sessions or in the working tree, not committed (followed until a month old or put back; once committed, the same rename).\n`);
  }
  return 0;
}
