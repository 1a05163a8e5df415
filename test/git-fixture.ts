/**
 * Git for the suite's own fixtures: one builder instead of a hand-built world per test file.
 * Whoever runs the tests may sign every commit and run hooks from a global config
 * (`commit.gpgsign`, `core.hooksPath`): the suite's own commits (seeds, the edits of another
 * person it plays) are never signed and run no hook, and every repository it makes has an
 * identity of its own. Only the suite's git: the product's git decides for itself (sync/process.ts),
 * and the tests of the person's own settings (git-settings.test.ts) see them as they are.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const NO_HOOKS = process.platform === 'win32' ? 'NUL' : '/dev/null';
const FIXTURE_CONFIG = ['-c', 'commit.gpgsign=false', '-c', 'tag.gpgsign=false', '-c', `core.hooksPath=${NO_HOOKS}`];

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', [...FIXTURE_CONFIG, ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** git, or undefined when it fails (a ref that does not exist yet, while polling). */
export function gitOr(cwd: string, ...args: string[]): string | undefined {
  try {
    return git(cwd, ...args);
  } catch {
    return undefined;
  }
}

/** Give a repository an identity (`name`, `name@example.com`). */
export function withIdentity(dir: string, name: string): string {
  git(dir, 'config', 'user.name', name);
  git(dir, 'config', 'user.email', `${name}@example.com`);
  return dir;
}

/** A new repository on `branch`, with an identity. */
export function initRepo(dir: string, name: string, branch = 'main'): string {
  mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q', '-b', branch);
  return withIdentity(dir, name);
}

/** A clone of `source` at `dir`, with an identity. */
export function cloneRepo(source: string, dir: string, name: string): string {
  git(process.cwd(), 'clone', '-q', source, dir);
  return withIdentity(dir, name);
}

/** A bare repository at `root/name.git` whose one commit holds `files` (path → content): a code project's origin. */
export function codeOrigin(root: string, name: string, files: Record<string, string>): string {
  const work = join(root, `${name}-seed`);
  initRepo(work, 't');
  for (const [p, c] of Object.entries(files)) {
    mkdirSync(join(work, p, '..'), { recursive: true });
    writeFileSync(join(work, p), c);
  }
  git(work, 'add', '-A');
  git(work, 'commit', '-q', '-m', 'seed');
  const bare = join(root, `${name}.git`);
  git(root, 'clone', '-q', '--bare', work, bare);
  return bare;
}

/** A checkout of a code origin at `dir`, its `origin` then pointed at `url` (never contacted); its real path. */
export function cloneCode(origin: string, dir: string, url: string): string {
  cloneRepo(origin, dir, 't');
  git(dir, 'remote', 'set-url', 'origin', url);
  return realpathSync(dir);
}
