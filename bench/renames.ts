/**
 * What reading a repository's renames costs (`node dist/bench/renames.js [--commits N]`, default
 * 20,000): a history written with `git fast-import` — 2,000 files, one file changed a commit, one
 * commit in 40 a rename — then `refreshRenameMap` as `memory renames` runs it in the background
 * at session start: the first reading (the whole history), a reading after one more commit (the
 * commits since the map's HEAD), and one after the history was rewritten (the whole again).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { refreshRenameMap } from '../src/changes/renames.js';
import { tempDir } from '../test/helpers.js';

const FILES = 2000;

async function history(dir: string, commits: number): Promise<void> {
  execFileSync('git', ['init', '-q', dir]);
  const fi = spawn('git', ['-C', dir, 'fast-import', '--quiet'], { stdio: ['pipe', 'ignore', 'inherit'] });
  const done = new Promise<void>((res, rej) => fi.on('exit', (code) => (code === 0 ? res() : rej(new Error(`fast-import exited ${code}`)))));
  const names = Array.from({ length: FILES }, (_, i) => `src/m${Math.floor(i / 50)}/f${i}.ts`);
  const body = (i: number, v: number) => `export const f${i} = ${v};\n${'// a line of code that stays the same from version to version\n'.repeat(20)}`;
  const t0 = 1_700_000_000;
  const write = (s: string) => new Promise<void>((res) => (fi.stdin.write(s) ? res() : fi.stdin.once('drain', () => res())));
  const data = (s: string) => `data ${Buffer.byteLength(s)}\n${s}\n`;
  let renames = 0;
  for (let c = 0; c < commits; c++) {
    const when = `${t0 + c * 600} +0000`;
    let ops = '';
    if (c === 0) ops = names.map((n, i) => `M 100644 inline ${n}\n${data(body(i, 0))}`).join('');
    else if (c % 40 === 0) {
      const i = (c * 7) % FILES;
      const to = `src/moved${renames++}/f${i}.ts`;
      ops = `R ${names[i]} ${to}\n`;
      names[i] = to;
    } else {
      const i = (c * 13) % FILES;
      ops = `M 100644 inline ${names[i]}\n${data(body(i, c))}`;
    }
    await write(`commit refs/heads/main\ncommitter t <t@example.com> ${when}\n${data(`c${c}`)}${ops}\n`);
  }
  fi.stdin.end();
  await done;
  execFileSync('git', ['-C', dir, 'symbolic-ref', 'HEAD', 'refs/heads/main']);
  execFileSync('git', ['-C', dir, 'reset', '-q', '--hard']);
}

export async function runRenamesBench(commits: number): Promise<string> {
  const { dir: root, cleanup } = tempDir('memory-renames-bench-');
  try {
    const repo = join(root, 'api');
    await history(repo, commits);
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
    const s = (ms: number) => (ms / 1000).toFixed(2);
    return [
      `Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, git ${execFileSync('git', ['--version'], { encoding: 'utf8' }).trim().replace('git version ', '')}`,
      '',
      `| a history of ${commits} commits, ${FILES} files, one commit in 40 a rename | seconds | renames in the map | complete |`,
      '|---|---:|---:|---|',
      `| the first reading (the whole history) | ${s(firstMs)} | ${first?.renames.length ?? '-'} | ${first?.complete ?? '-'} |`,
      `| after one more commit (the commits since the map's HEAD) | ${s(grownMs)} | ${grown?.renames.length ?? '-'} | ${grown?.complete ?? '-'} |`,
      `| after that commit was amended (history rewritten: the whole again) | ${s(rewrittenMs)} | ${rewritten?.renames.length ?? '-'} | ${rewritten?.complete ?? '-'} |`,
    ].join('\n');
  } finally {
    cleanup();
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf('--commits');
  process.stdout.write(`${await runRenamesBench(i > 0 ? Number(process.argv[i + 1]) : 20_000)}\n`);
}
