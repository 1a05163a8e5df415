/**
 * Scale of a years-long, many-machine history: export size, file count and the cost of
 * `git clone` + `memory rebuild` on a new machine, before and after monthly-merge.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeSynthExport } from './synth.js';

const CLI = resolve(fileURLToPath(import.meta.url), '..', '..', 'src', 'cli', 'main.js');

function sh(cwd: string, cmd: string, ...args: string[]): string {
  return execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
}

function time(fn: () => void): number {
  const t = performance.now();
  fn();
  return (performance.now() - t) / 1000;
}

function exportStats(dir: string): { files: number; mb: number } {
  let files = 0;
  let bytes = 0;
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      else if (name.endsWith('.jsonl')) {
        files++;
        bytes += st.size;
      }
    }
  };
  walk(dir);
  return { files, mb: bytes / 1e6 };
}

/** Size of the repository's objects (packed and loose), as git counts them. */
function packMb(repo: string): number {
  const out = sh(repo, 'git', 'count-objects', '-v');
  const kb = (k: string) => Number(new RegExp(`^${k}: (\\d+)`, 'm').exec(out)?.[1] ?? 0);
  return (kb('size') + kb('size-pack')) / 1000;
}

function config(home: string, repo: string, machine: string): string {
  mkdirSync(home, { recursive: true });
  const path = join(home, 'memory.toml');
  writeFileSync(
    path,
    `[general]\nmachine_name = "${machine}"\nexport_dir = ${JSON.stringify(join(repo, 'export'))}\ndb_path = ${JSON.stringify(join(home, 'memory.db'))}\n` +
      `[embedding]\nmodel = "bench-model"\ndim = 384\n`,
  );
  return path;
}

export interface MergeRow {
  phase: string;
  files: number;
  exportMb: number;
  repoMb: number;
  cloneS: number;
  rebuildS: number;
  mergeS?: number;
}

function newMachine(root: string, remote: string, name: string): { cloneS: number; rebuildS: number; repoMb: number } {
  const repo = join(root, name);
  // file:// makes git pack and transfer as it would from a real remote (a plain path hardlinks).
  const cloneS = time(() => sh(root, 'git', 'clone', '-q', `file://${remote}`, repo));
  const cfg = config(join(root, `${name}-home`), repo, name);
  const rebuildS = time(() => sh(root, process.execPath, CLI, '-c', cfg, 'rebuild', '--json'));
  const repoMb = packMb(repo);
  return { cloneS, rebuildS, repoMb };
}

export function runMergeBench(records: number): MergeRow[] {
  const root = mkdtempSync(join(tmpdir(), 'memory-bench-merge-'));
  try {
    const remote = join(root, 'remote.git');
    sh(root, 'git', 'init', '-q', '--bare', '-b', 'main', remote);
    const work = join(root, 'work');
    sh(root, 'git', 'clone', '-q', remote, work);
    for (const [k, v] of [['user.name', 'bench'], ['user.email', 'bench@example.com']]) sh(work, 'git', 'config', k as string, v as string);
    process.stderr.write(`merge bench: generating ${records} records (3 machines × 24 months, with re-embedded duplicates)…\n`);
    // A re-embedded or grown memory is written again under the same id: ~15% of lines here.
    writeSynthExport(join(work, 'export'), {
      records, machines: ['laptop', 'desktop', 'server'], months: 24, endMonth: '2026-10', dim: 384, model: 'bench-model', duplicates: 0.15,
    });
    sh(work, 'git', 'add', '-A');
    sh(work, 'git', 'commit', '-q', '-m', 'history');
    sh(work, 'git', 'push', '-q', 'origin', 'main');
    const before = exportStats(join(work, 'export'));
    process.stderr.write('merge bench: clone + rebuild before merge…\n');
    const m1 = newMachine(root, remote, 'fresh-before');
    const cfg = config(join(root, 'work-home'), work, 'laptop');
    // The merging machine already has its cache (it has been capturing all along).
    sh(root, process.execPath, CLI, '-c', cfg, 'rebuild', '--json');
    process.stderr.write('merge bench: monthly-merge…\n');
    let mergeOut = '';
    const mergeS = time(() => (mergeOut = sh(root, process.execPath, CLI, '-c', cfg, 'monthly-merge', '--json')));
    const merged = JSON.parse(mergeOut) as { sync?: { committed: boolean; push?: string } };
    if (merged.sync?.push !== 'pushed') throw new Error(`monthly-merge did not push: ${mergeOut.slice(0, 300)}`);
    const after = exportStats(join(work, 'export'));
    process.stderr.write('merge bench: clone + rebuild after merge…\n');
    const m2 = newMachine(root, remote, 'fresh-after');
    const shallow = join(root, 'shallow');
    const shallowS = time(() => sh(root, 'git', 'clone', '-q', '--depth', '1', `file://${remote}`, shallow));
    const shallowMb = packMb(shallow);
    return [
      { phase: 'before merge', files: before.files, exportMb: before.mb, repoMb: m1.repoMb, cloneS: m1.cloneS, rebuildS: m1.rebuildS },
      { phase: 'after merge', files: after.files, exportMb: after.mb, repoMb: m2.repoMb, cloneS: m2.cloneS, rebuildS: m2.rebuildS, mergeS },
      { phase: 'after merge, `git clone --depth 1`', files: after.files, exportMb: after.mb, repoMb: shallowMb, cloneS: shallowS, rebuildS: m2.rebuildS },
    ];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

export function mergeTable(records: number, rows: MergeRow[]): string {
  return [
    `History: ${records} memories written by 3 machines over 24 months (all months closed), ~15% of lines are superseded versions.`,
    '',
    '| phase | JSONL files | export MB | .git MB on the new machine | git clone s | rebuild s (new machine, process) | monthly-merge s (fold + cache + commit + push) |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...rows.map((r) => `| ${r.phase} | ${r.files} | ${r.exportMb.toFixed(1)} | ${r.repoMb.toFixed(1)} | ${r.cloneS.toFixed(2)} | ${r.rebuildS.toFixed(1)} | ${r.mergeS?.toFixed(1) ?? ''} |`),
  ].join('\n');
}
