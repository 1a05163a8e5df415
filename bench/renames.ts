/**
 * What reading a repository's renames costs (`node dist/bench/renames.js [--commits N]`, default
 * 20,000): a history written with `git fast-import` — 2,000 files, one file changed a commit, one
 * commit in 40 a rename — then `refreshRenameMap` as `memory renames` runs it in the background
 * at session start: the first reading (the whole history), a reading after one more commit (the
 * commits since the map's HEAD), and one after the history was rewritten (the whole again); then
 * a worktree on a diverged branch and the first checkout taking turns, each with its own map.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { refreshRenameMap } from '../src/changes/renames.js';
import { renamingHistory } from '../test/support/git-fixture.js';
import { tempDir } from '../test/support/helpers.js';

const FILES = 2000;

export async function runRenamesBench(commits: number): Promise<string> {
  const { dir: root, cleanup } = tempDir('memory-renames-bench-');
  try {
    const repo = join(root, 'api');
    await renamingHistory(repo, commits, FILES);
    const head = () => execFileSync('git', ['-C', repo, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
    const home = join(root, 'home');
    mkdirSync(join(home, '.cache'), { recursive: true });
    const opts = { timeoutMs: 30_000, maxCommits: 50_000 };
    let t = performance.now();
    const first = refreshRenameMap(home, repo, 'github.com/acme/api', head(), opts);
    const firstMs = performance.now() - t;
    const some = execFileSync('git', ['-C', repo, 'ls-files'], { encoding: 'utf8' }).split('\n')[0] as string;
    execFileSync('git', ['-C', repo, 'mv', some, 'src/one-more-moved.ts']);
    execFileSync('git', ['-C', repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'one more']);
    t = performance.now();
    const grown = refreshRenameMap(home, repo, 'github.com/acme/api', head(), opts);
    const grownMs = performance.now() - t;
    execFileSync('git', ['-C', repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '--amend', '-m', 'one more, reworded']);
    t = performance.now();
    const rewritten = refreshRenameMap(home, repo, 'github.com/acme/api', head(), opts);
    const rewrittenMs = performance.now() - t;
    // A worktree on a branch from the commit before, with a commit of its own (diverged): its own
    // map, the whole history the first time; then each checkout after a commit of its own, in turn.
    const side = join(root, 'api-side');
    const commit = (dir: string, message: string) => execFileSync('git', ['-C', dir, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '--allow-empty', '-m', message]);
    execFileSync('git', ['-C', repo, 'worktree', 'add', '-q', '-b', 'side', side, 'HEAD~1']);
    commit(side, 'on the side');
    const headOf = (dir: string) => execFileSync('git', ['-C', dir, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
    t = performance.now();
    const sideFirst = refreshRenameMap(home, side, 'github.com/acme/api', headOf(side), opts);
    const sideFirstMs = performance.now() - t;
    commit(repo, 'main again');
    t = performance.now();
    const mainAgain = refreshRenameMap(home, repo, 'github.com/acme/api', head(), opts);
    const mainAgainMs = performance.now() - t;
    commit(side, 'side again');
    t = performance.now();
    const sideAgain = refreshRenameMap(home, side, 'github.com/acme/api', headOf(side), opts);
    const sideAgainMs = performance.now() - t;
    const s = (ms: number) => (ms / 1000).toFixed(2);
    return [
      `Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, git ${execFileSync('git', ['--version'], { encoding: 'utf8' }).trim().replace('git version ', '')}`,
      '',
      `| a history of ${commits} commits, ${FILES} files, one commit in 40 a rename | seconds | renames in the map | complete |`,
      '|---|---:|---:|---|',
      `| the first reading (the whole history) | ${s(firstMs)} | ${first?.renames.length ?? '-'} | ${first?.complete ?? '-'} |`,
      `| after one more commit (the commits since the map's HEAD) | ${s(grownMs)} | ${grown?.renames.length ?? '-'} | ${grown?.complete ?? '-'} |`,
      `| after that commit was amended (history rewritten: the whole again) | ${s(rewrittenMs)} | ${rewritten?.renames.length ?? '-'} | ${rewritten?.complete ?? '-'} |`,
      `| a worktree on a branch that left a commit before, its first reading (its own map: the whole history) | ${s(sideFirstMs)} | ${sideFirst?.renames.length ?? '-'} | ${sideFirst?.complete ?? '-'} |`,
      `| the first checkout after a commit of its own (its own map: the commits since) | ${s(mainAgainMs)} | ${mainAgain?.renames.length ?? '-'} | ${mainAgain?.complete ?? '-'} |`,
      `| the worktree after a commit of its own (the commits since) | ${s(sideAgainMs)} | ${sideAgain?.renames.length ?? '-'} | ${sideAgain?.complete ?? '-'} |`,
    ].join('\n');
  } finally {
    cleanup();
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf('--commits');
  process.stdout.write(`${await runRenamesBench(i > 0 ? Number(process.argv[i + 1]) : 20_000)}\n`);
}
