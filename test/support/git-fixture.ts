/**
 * Git for the suite's own fixtures: one builder instead of a hand-built world per test file.
 * Whoever runs the tests may sign every commit and run hooks from a global config
 * (`commit.gpgsign`, `core.hooksPath`): the suite's own commits (seeds, the edits of another
 * person it plays) are never signed and run no hook, and every repository it makes has an
 * identity of its own. Only the suite's git: the product's git decides for itself (sync/process.ts),
 * and the tests of the person's own settings (sync/git-settings.test.ts) see them as they are.
 */
import { execFileSync, spawn } from 'node:child_process';
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

/**
 * A repository at `dir` with a history of `commits` commits written by `git fast-import`: `files`
 * files, one of them changed a commit, one commit in 40 a rename (the work tree checked out).
 */
export async function renamingHistory(dir: string, commits: number, files: number): Promise<void> {
  execFileSync('git', ['init', '-q', dir]);
  const fi = spawn('git', ['-C', dir, 'fast-import', '--quiet'], { stdio: ['pipe', 'ignore', 'inherit'] });
  const done = new Promise<void>((res, rej) => fi.on('exit', (code) => (code === 0 ? res() : rej(new Error(`fast-import exited ${code}`)))));
  const names = Array.from({ length: files }, (_, i) => `src/m${Math.floor(i / 50)}/f${i}.ts`);
  const body = (i: number, v: number) => `export const f${i} = ${v};\n${'// a line of code that stays the same from version to version\n'.repeat(20)}`;
  const t0 = 1_700_000_000;
  const write = (s: string) => new Promise<void>((res) => (fi.stdin.write(s) ? res() : fi.stdin.once('drain', () => res())));
  const data = (s: string) => `data ${Buffer.byteLength(s)}\n${s}\n`;
  let renames = 0;
  for (let c = 0; c < commits; c++) {
    let ops: string;
    if (c === 0) ops = names.map((n, i) => `M 100644 inline ${n}\n${data(body(i, 0))}`).join('');
    else if (c % 40 === 0) {
      const i = (c * 7) % files;
      const to = `src/moved${renames++}/f${i}.ts`;
      ops = `R ${names[i]} ${to}\n`;
      names[i] = to;
    } else {
      const i = (c * 13) % files;
      ops = `M 100644 inline ${names[i]}\n${data(body(i, c))}`;
    }
    await write(`commit refs/heads/main\ncommitter t <t@example.com> ${t0 + c * 600} +0000\n${data(`c${c}`)}${ops}\n`);
  }
  fi.stdin.end();
  await done;
  execFileSync('git', ['-C', dir, 'symbolic-ref', 'HEAD', 'refs/heads/main']);
  execFileSync('git', ['-C', dir, 'reset', '-q', '--hard']);
}
