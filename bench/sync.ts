/**
 * Sync benchmark (`npm run bench:sync`, also part of `npm run bench`):
 *  1. What a session waits for: the Stop hook as a whole process, alone and with 8 Stops,
 *     a session start and a search running at once, against node's own start-up.
 *  2. How much `.git` grows: a long session of 300 Stops, and 60 Stops on a month file that
 *     already holds ~400 memories, through the real worker path (queue → capture → batched
 *     commit → push → repack) with a clock handed in. Vectors come from a stand-in
 *     embedder at the rim (384-d, as the default model's), so records are the real size.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { cpus, hostname, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { makeContext, type IO } from '../src/app/context.js';
import { runtimeOf } from '../src/app/context.js';
import type { Embedder } from '../src/embed/embedder.js';
import { recordStop } from '../src/app/capture/stop.js';
import { drainOnce } from '../src/app/capture/worker.js';
import { encodeProjectDir } from '../src/agents/claude-code/transcripts.js';
import { git, gitObjectsKb, gitWorld } from '../test/support/gitworld.js';
import { assistant, text, transcript, user, type T } from '../test/support/transcript-builder.js';
import { prng, synthRecords, unitVector, writeSynthExport } from './synth.js';

const here = resolve(fileURLToPath(import.meta.url), '..');
const CLI = resolve(here, '..', 'src', 'cli', 'main.js');
const DIM = 384;

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((s.length - 1) * p))] as number;
}

function exportKb(dir: string): number {
  return readdirSync(dir).filter((f) => f.endsWith('.jsonl')).reduce((s, f) => s + statSync(join(dir, f)).size, 0) / 1024;
}

/** 384-d vectors from a seeded generator: the size and entropy of real ones, no model. */
function standInEmbedder(): Embedder {
  const rand = prng(99);
  return {
    model: 'bench-model',
    dim: DIM,
    embedDocuments: async (texts) => texts.map(() => unitVector(rand, DIM)),
    embedQuery: async () => unitVector(rand, DIM),
  };
}

interface GrowthRow {
  name: string;
  stops: number;
  preloaded: number;
  minutes: number;
  commits: number;
  exportGrowthKb: number;
  gitGrowthKb: number;
  looseLeftKb: number;
  ratio: number;
  budgetKb: number;
  msPerStop: number;
}

async function growth(name: string, opts: { preload: number; stops: number; turnEveryS: number; budget: (exportKb: number) => number }): Promise<GrowthRow> {
  const w = gitWorld();
  const m = w.machine('laptop', { model: 'bench-model' });
  try {
    if (opts.preload > 0) {
      // A month file that already holds memories, committed, pushed and packed (a repository that has lived a while).
      writeSynthExport(m.exportDir, { records: opts.preload, machines: ['laptop'], months: 1, endMonth: '2026-11', dim: DIM, model: 'bench-model', seed: 7 });
      git(m.repo, 'add', '-A');
      git(m.repo, 'commit', '-q', '-m', 'memories so far');
      git(m.repo, 'push', '-q', 'origin', 'main');
      git(m.repo, 'repack', '-a', '-d', '-q');
    }
    let clock = Date.parse('2026-11-20T08:00:00.000Z');
    const io: IO = { stdout: new PassThrough(), stderr: new PassThrough() as unknown as NodeJS.WriteStream, stdin: new PassThrough(), env: { HOME: m.home }, cwd: m.repo, now: () => new Date(clock) };
    const ctx = await makeContext({ config: m.config }, io);
    const rt = runtimeOf(ctx, { quiet: true });
    const where = { baseDir: ctx.config.baseDir, projectsDir: () => ctx.config.general.claude_projects_dir };
    const embedder = standInEmbedder();
    const loadEmbedder = () => Promise.resolve(embedder);
    const cwd = '/home/dev/work';
    const t: T = transcript('s-bench-growth', cwd);
    t.clock = clock;
    const dir = join(m.projects, encodeProjectDir(cwd));
    mkdirSync(dir, { recursive: true });
    const path = join(dir, 's-bench-growth.jsonl');
    const turns = synthRecords({ records: opts.stops, machines: ['laptop'], months: 1, endMonth: '2026-11', dim: 4, model: 'x', seed: 11 });
    const commitsBefore = Number(git(m.repo, 'rev-list', '--count', 'HEAD'));
    const gitBefore = gitObjectsKb(m.repo).total;
    const exportBefore = exportKb(m.exportDir);
    const started = performance.now();
    for (let i = 0; i < opts.stops; i++) {
      const r = turns.next().value as { question: string; answer: string };
      t.clock = clock;
      user(t, r.question);
      assistant(t, [{ text: r.answer }]);
      writeFileSync(path, text(t));
      await recordStop(where, { transcript: path, sessionId: 's-bench-growth', cwd, push: true, flush: false }, { now: io.now, spawnWorker: () => undefined });
      await drainOnce(rt, { loadEmbedder });
      clock += opts.turnEveryS * 1000;
    }
    await recordStop(where, { transcript: path, sessionId: 's-bench-growth', cwd, push: true, flush: true }, { now: io.now, spawnWorker: () => undefined });
    await drainOnce(rt, { loadEmbedder });
    const ms = performance.now() - started;
    const after = gitObjectsKb(m.repo);
    const exportGrowthKb = exportKb(m.exportDir) - exportBefore;
    const gitGrowthKb = after.total - gitBefore;
    return {
      name, stops: opts.stops, preloaded: opts.preload, minutes: (opts.stops * opts.turnEveryS) / 60,
      commits: Number(git(m.repo, 'rev-list', '--count', 'HEAD')) - commitsBefore,
      exportGrowthKb, gitGrowthKb, looseLeftKb: after.loose, ratio: gitGrowthKb / exportGrowthKb, budgetKb: opts.budget(exportGrowthKb), msPerStop: ms / (opts.stops + 1),
    };
  } finally {
    w.cleanup();
  }
}

function timeProcess(args: string[], input: string, env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((res, rej) => {
    const t = performance.now();
    const c = spawn(process.execPath, args, { stdio: ['pipe', 'ignore', 'ignore'], env });
    c.on('error', rej);
    c.on('exit', () => res(performance.now() - t));
    c.stdin.end(input);
  });
}

interface HookRow {
  alone: { p50: number; p95: number };
  node: number;
  loaded: { p50: number; p95: number; max: number; n: number };
  loadedFloor: { p50: number; p95: number };
  startP50: number;
  searchP50: number;
}

async function hooks(): Promise<HookRow> {
  const w = gitWorld();
  const m = w.machine('laptop');
  try {
    writeSynthExport(m.exportDir, { records: 10_000, machines: ['laptop'], months: 6, endMonth: '2026-10', dim: DIM, model: 'bench-model' });
    git(m.repo, 'add', '-A');
    git(m.repo, 'commit', '-q', '-m', 'history');
    git(m.repo, 'push', '-q', 'origin', 'main');
    execFileSync(process.execPath, [CLI, '-c', m.config, 'rebuild'], { stdio: 'pipe' });
    const env = { ...process.env, HOME: m.home };
    const sessions = Array.from({ length: 8 }, (_, i) => {
      const cwd = `/home/dev/app-${i}`;
      const t = transcript(`s-hook-${i}`, cwd);
      for (let k = 0; k < 5; k++) {
        user(t, `Session ${i} question ${k} about the heron deploy pipeline and its cache`);
        assistant(t, [{ text: `Session ${i} answer ${k}: the heron pipeline caches build layers for a day.` }]);
      }
      const dir = join(m.projects, encodeProjectDir(cwd));
      mkdirSync(dir, { recursive: true });
      const path = join(dir, `s-hook-${i}.jsonl`);
      writeFileSync(path, text(t));
      return { path, input: JSON.stringify({ session_id: `s-hook-${i}`, transcript_path: path, cwd, hook_event_name: 'Stop' }) };
    });
    const stop = (i: number) => timeProcess([CLI, '-c', m.config, 'session-end'], (sessions[i % 8] as { input: string }).input, env);
    // Alone: the hook's own cost. A live process holds the worker lock (a worker busy
    // elsewhere), so no capture runs beside the measurement; interleaved with the floor.
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 600000)'], { stdio: 'ignore' });
    mkdirSync(join(m.home, '.cache'), { recursive: true });
    writeFileSync(join(m.home, '.cache', 'worker.lock'), JSON.stringify({ pid: holder.pid, host: hostname(), since: new Date().toISOString() }));
    const alone: number[] = [];
    const node: number[] = [];
    for (let i = 0; i < 21; i++) {
      alone.push(await stop(i));
      node.push(await timeProcess(['-e', '0'], '', env));
    }
    holder.kill();
    await new Promise((r) => holder.once('exit', r));
    const loaded: number[] = [];
    const loadedFloor: number[] = [];
    const starts: number[] = [];
    const searches: number[] = [];
    for (let round = 0; round < 10; round++) {
      // Odd rounds: the floor, eight `node -e 0` under the same load.
      const floorRound = round % 2 === 1;
      const all = [
        ...sessions.map((_, i) => (floorRound ? timeProcess(['-e', '0'], '', env).then((ms) => loadedFloor.push(ms)) : stop(i).then((ms) => loaded.push(ms)))),
        timeProcess([CLI, '-c', m.config, 'session-start', '--inject'], JSON.stringify({ cwd: '/home/dev/app-0', hook_event_name: 'SessionStart' }), env).then((ms) => starts.push(ms)),
        timeProcess([CLI, '-c', m.config, 'search', '--json', 'heron pipeline cache layers'], '', env).then((ms) => searches.push(ms)),
      ];
      await Promise.all(all);
      await new Promise((r) => setTimeout(r, 500));
    }
    // Let the worker finish before the folder goes.
    for (let i = 0; i < 600 && existsSync(join(m.home, '.cache', 'worker.lock')); i++) await new Promise((r) => setTimeout(r, 100));
    return {
      alone: { p50: pct(alone, 0.5), p95: pct(alone, 0.95) },
      node: pct(node, 0.5),
      loaded: { p50: pct(loaded, 0.5), p95: pct(loaded, 0.95), max: Math.max(...loaded), n: loaded.length },
      loadedFloor: { p50: pct(loadedFloor, 0.5), p95: pct(loadedFloor, 0.95) },
      startP50: pct(starts, 0.5),
      searchP50: pct(searches, 0.5),
    };
  } finally {
    w.cleanup();
  }
}

export async function runSyncBench(opts: { growth: boolean } = { growth: true }): Promise<string> {
  const h = await hooks();
  const rows = !opts.growth ? [] : [
    await growth('long session: 300 Stops, a turn every 30 s, new month file', { preload: 0, stops: 300, turnEveryS: 30, budget: (e) => 3 * e }),
    await growth('60 Stops, a turn a minute, on a month file of 400 memories', { preload: 400, stops: 60, turnEveryS: 60, budget: (e) => 4 * e + 512 }),
  ];
  const f = (ms: number) => (ms / 1000).toFixed(3);
  const lines = [
    `Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`,
    '',
    '| Stop hook (whole process) | p50 s | p95 s | floor: `node -e 0` p50 s | floor p95 s |',
    '|---|---:|---:|---:|---:|',
    `| alone | ${f(h.alone.p50)} | ${f(h.alone.p95)} | ${f(h.node)} | |`,
    `| 8 Stops + a session start + a search at once (${h.loaded.n} samples, max ${f(h.loaded.max)} s; floor: 8 × \`node -e 0\` under the same load) | ${f(h.loaded.p50)} | ${f(h.loaded.p95)} | ${f(h.loadedFloor.p50)} | ${f(h.loadedFloor.p95)} |`,
    '',
    `Under that load: session start (pull, push, inject) p50 ${f(h.startP50)} s; search (hybrid, tiny model) p50 ${f(h.searchP50)} s.`,
    '',
    '| session | commits | export growth KiB | .git growth KiB | .git / export | budget KiB | loose left KiB | worker ms per Stop |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map((r) => `| ${r.name} (${r.minutes} min) | ${r.commits} | ${r.exportGrowthKb.toFixed(0)} | ${r.gitGrowthKb.toFixed(0)} | ${r.ratio.toFixed(2)} | ${r.budgetKb.toFixed(0)} ${r.gitGrowthKb <= r.budgetKb ? '(met)' : '(**not met**)'} | ${r.looseLeftKb} | ${r.msPerStop.toFixed(0)} |`),
  ];
  return lines.join('\n');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  // npm run bench:sync [-- --hooks-only]
  process.stdout.write(`${await runSyncBench({ growth: !process.argv.includes('--hooks-only') })}\n`);
}
