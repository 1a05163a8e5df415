/**
 * What pairing files moved without git costs session start (`node dist/bench/tree-moves.js`):
 * a checkout of 2,000 files of 40 lines each, then files moved as an editor or a plain `mv`
 * moves them, not staged — as they are, or edited after the move — and `git status` read as
 * session start reads it, then `unstagedMoves` (changes/tree-moves.ts). Medians of 20.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { unstagedMoves } from '../src/changes/tree-moves.js';
import { workInProgress } from '../src/project/work-tree.js';
import { tempDir } from '../test/support/helpers.js';

const FILES = 2000;
const RUNS = 20;

/** A file of 40 lines, each its own. */
const body = (n: number) => Array.from({ length: 40 }, (_, i) => `  const value${n}_${i} = compute${n}(input, ${i}); // step ${i} of ${n}`).join('\n') + '\n';

function median(f: () => number): { ms: number; paired: number } {
  const times: number[] = [];
  let paired = 0;
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    paired = f();
    times.push(performance.now() - t);
  }
  return { ms: times.sort((a, b) => a - b)[Math.floor(RUNS / 2)] as number, paired };
}

export function runTreeMovesBench(): string {
  const { dir: root, cleanup } = tempDir('memory-tree-moves-bench-');
  try {
    const dir = join(root, 'api');
    mkdirSync(join(dir, 'src'), { recursive: true });
    const git = (...args: string[]) => execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8' });
    git('init', '-q');
    for (let i = 0; i < FILES; i++) writeFileSync(join(dir, 'src', `f${i}.ts`), body(i));
    git('add', '-A');
    git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'files');
    mkdirSync(join(dir, 'lib'));
    const rows: string[] = [];
    const row = (what: string) => {
      const status = median(() => (workInProgress(dir) ? 1 : 0));
      const wip = workInProgress(dir);
      if (!wip) throw new Error('git status did not answer');
      const pairing = median(() => unstagedMoves(dir, wip, { timeoutMs: 5000 }).length);
      rows.push(`| ${what} | ${wip.deleted.length} / ${wip.untracked.length} | ${status.ms.toFixed(1)} | ${pairing.ms.toFixed(1)} | ${pairing.paired} |`);
    };
    renameSync(join(dir, 'src', 'f1.ts'), join(dir, 'lib', 'moved.ts'));
    row('one file moved (`mv`)');
    rmSync(join(dir, 'src', 'f2.ts'));
    writeFileSync(join(dir, 'lib', 'renamed.ts'), `${body(2).replace('step 3 ', 'step three ')}export {};\n`);
    row('and one moved, then edited');
    for (let i = 100; i < 117; i++) {
      rmSync(join(dir, 'src', `f${i}.ts`));
      writeFileSync(join(dir, 'lib', `n${i}.ts`), body(i).replace('step 1 ', 'step one '));
    }
    row('and 17 more moved, then edited (10 compared by lines at most)');
    return [
      `Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, git ${execFileSync('git', ['--version'], { encoding: 'utf8' }).trim().replace('git version ', '')}`,
      '',
      `| a checkout of ${FILES} files, not staged | deleted / untracked | \`git status\` ms | pairing ms | paired |`,
      '|---|---:|---:|---:|---:|',
      ...rows,
    ].join('\n');
  } finally {
    cleanup();
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.stdout.write(`${runTreeMovesBench()}\n`);
}
