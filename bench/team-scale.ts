/**
 * Team memory at scale (`npm run bench:team [-- --records N]`, default 1,000,000): a synthetic
 * team remote — 50 people with two machines each, 24 months, five projects (each person works
 * mostly in one, sometimes in a second) — written with `git fast-import` in the layout and with
 * the trailers the tool writes (`<project>/<handle>/archive/<YYYY-MM>.jsonl` for the folded
 * months, `<YYYY-MM>_<machine>.jsonl` for the last two; one commit per person and month,
 * `Memory-Author`/`Memory-Machine`), served as GitHub serves (partial clones allowed). Then what
 * a newcomer to one project pays, through the built CLI: `memory team join` (a partial, sparse
 * clone of that project, its cache built), the cache rebuilt from scratch, a day of the others'
 * work (3,000 memories) pulled and read at session start, project-scoped hybrid search p50/p95
 * in the team cache, and the Stop and recall hooks with the team configured, against node's own
 * start. Also: the largest file, the fullest folder, and a full clone for comparison.
 *
 * Vectors are 384-d unit vectors from a seeded generator (the default model's size); the
 * newcomer's configured model is the records' ('bench-model'), so the cache indexes them.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, hostname, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encodeProjectDir } from '../src/agents/claude-code/transcripts.js';
import { encodeEntry, monthOf } from '../src/export/jsonl.js';
import { openCacheAsIs } from '../src/store/cache.js';
import { search } from '../src/search/search.js';
import { teamRecord } from '../src/team/outbox.js';
import { renderManifest, type TeamManifest } from '../src/team/manifest.js';
import { AUTHOR_TRAILER, MACHINE_TRAILER } from '../src/sync/commit.js';
import type { MemoryRecord } from '../src/types.js';
import { conversation } from '../test/support/gitworld.js';
import { homeMachine } from '../test/support/homes.js';
import { tempDir } from '../test/support/helpers.js';
import { text as transcriptText } from '../test/support/transcript-builder.js';
import { prng, synthRecords, unitVector } from './synth.js';

const here = resolve(fileURLToPath(import.meta.url), '..');
const CLI = resolve(here, '..', 'src', 'cli', 'main.js');
const DIM = 384;
const MODEL = 'bench-model';
const PEOPLE = 50;
const MONTHS = 24;
const END_MONTH = '2026-11';
const PROJECTS = ['api', 'web', 'mobile', 'infra', 'data'];
const REPO = (p: string) => `github.com/acme/${p}`;
const handle = (i: number) => `p${String(i).padStart(2, '0')}`;
/** The files of every project's code the memories record (four each, as a session reads a few): the file hook's lookups. */
const CODE_FILES = Array.from({ length: 200 }, (_, i) => ({ path: `src/mod${i}.ts`, blob: '0'.repeat(40) }));
const machinesOf = (h: string) => [`${h}-laptop`, `${h}-desktop`];

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((s.length - 1) * p))] as number;
}

function timeProcess(args: string[], input: string, env: NodeJS.ProcessEnv, cwd?: string): Promise<number> {
  return new Promise((res, rej) => {
    const t = performance.now();
    const c = spawn(process.execPath, args, { stdio: ['pipe', 'ignore', 'ignore'], env, ...(cwd ? { cwd } : {}) });
    c.on('error', rej);
    c.on('exit', () => res(performance.now() - t));
    c.stdin.end(input);
  });
}

function du(path: string): number {
  return Number(execFileSync('du', ['-sb', path], { encoding: 'utf8' }).split('\t')[0]);
}

/** A git fast-import process and a writer that respects its pipe. */
function fastImport(gitDir: string): { write: (s: string | Buffer) => Promise<void>; end: () => Promise<void> } {
  const child = spawn('git', ['--git-dir', gitDir, 'fast-import', '--quiet', '--done'], { stdio: ['pipe', 'inherit', 'inherit'] });
  const done = new Promise<void>((res, rej) => child.on('exit', (code) => (code === 0 ? res() : rej(new Error(`git fast-import exited ${code}`)))));
  return {
    write: (s) => (child.stdin.write(s) ? Promise.resolve() : new Promise<void>((r) => child.stdin.once('drain', () => r()))),
    end: async () => {
      child.stdin.end('done\n');
      await done;
    },
  };
}

/** One commit of files on branch `memories`, as the tool writes it (who, from which machine). */
async function commit(fi: ReturnType<typeof fastImport>, files: Map<string, string>, who: { handle: string; machine: string; at: number; message: string }): Promise<void> {
  const msg = `${who.message}\n\n${MACHINE_TRAILER}: ${who.machine}\n${AUTHOR_TRAILER}: ${who.handle}\n`;
  await fi.write(`commit refs/heads/memories\ncommitter ${who.handle} <${who.handle}@acme.example> ${Math.floor(who.at / 1000)} +0000\ndata ${Buffer.byteLength(msg)}\n${msg}`);
  for (const [path, content] of files) {
    const bytes = Buffer.from(content);
    await fi.write(`M 100644 inline ${path}\ndata ${bytes.length}\n`);
    await fi.write(bytes);
    await fi.write('\n');
  }
}

interface Built {
  remote: string;
  records: number;
  jsonlBytes: number;
  files: number;
  commits: number;
  buildS: number;
  packBytes: number;
  largestFile: { path: string; bytes: number };
  fullestFolder: { path: string; entries: number };
  byProject: Record<string, number>;
}

/** Which project a memory of person `p` is in: their own 80 %, their second 20 %. */
function projectOf(p: number, r: number): string {
  return PROJECTS[(p + (r < 0.8 ? 0 : 1)) % PROJECTS.length] as string;
}

async function buildRemote(root: string, records: number): Promise<Built> {
  const t0 = performance.now();
  const remote = join(root, 'team-acme.git');
  execFileSync('git', ['init', '-q', '--bare', remote]);
  execFileSync('git', ['--git-dir', remote, 'symbolic-ref', 'HEAD', 'refs/heads/memories']);
  // As GitHub and GitLab serve: partial clones allowed.
  execFileSync('git', ['--git-dir', remote, 'config', 'uploadpack.allowFilter', 'true']);
  const fi = fastImport(remote);
  const manifest: TeamManifest = {
    name: 'acme',
    model: MODEL,
    maintainers: [handle(0)],
    members: Array.from({ length: PEOPLE }, (_, i) => ({ handle: handle(i), machines: machinesOf(handle(i)), joined: '2024-12-01T00:00:00.000Z' })),
    projects: PROJECTS.map((p) => ({ name: p, repo: REPO(p) })),
  };
  const [ey, em] = END_MONTH.split('-').map(Number) as [number, number];
  const start = Date.UTC(ey, em - MONTHS, 1);
  await commit(fi, new Map([['team.toml', renderManifest(manifest)], ['.gitattributes', '*.jsonl text eol=lf merge=union\n*.toml text eol=lf\n']]), { handle: handle(0), machine: machinesOf(handle(0))[0] as string, at: start, message: 'team: acme created by p00' });
  const months: string[] = [];
  for (let i = 0; i < MONTHS; i++) months.push(new Date(Date.UTC(ey, em - MONTHS + i, 1)).toISOString().slice(0, 7));
  const folded = new Set(months.slice(0, -2));
  const pick = prng(7);
  let month = '';
  // person → path → lines, for the month being read (records come in time order).
  let pending = new Map<number, Map<string, string[]>>();
  let jsonlBytes = 0;
  let files = 0;
  let commits = 1;
  const byProject: Record<string, number> = {};
  const flush = async () => {
    const monthEnd = Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 1) - 1;
    for (const [p, paths] of [...pending].sort((a, b) => a[0] - b[0])) {
      const h = handle(p);
      const out = new Map<string, string>();
      for (const [path, lines] of paths) {
        const content = `${lines.join('\n')}\n`;
        out.set(path, content);
        jsonlBytes += Buffer.byteLength(content);
        files++;
      }
      await commit(fi, out, { handle: h, machine: machinesOf(h)[0] as string, at: monthEnd - (PEOPLE - p) * 60_000, message: `team: ${h} publishes (${month})` });
      commits++;
    }
    pending = new Map();
  };
  for (const r of synthRecords({ records, machines: Array.from({ length: PEOPLE * 2 }, (_, i) => machinesOf(handle(Math.floor(i / 2)))[i % 2] as string), months: MONTHS, endMonth: END_MONTH, dim: DIM, model: MODEL, projects: 1, code: { repo: REPO('api'), cwd: '/work', files: CODE_FILES, perMemory: 4 } })) {
    const m = monthOf(r.timestamp);
    if (m !== month) {
      if (month) await flush();
      month = m;
    }
    const p = Number.parseInt(r.machine.slice(1, 3), 10);
    const project = projectOf(p, pick());
    byProject[project] = (byProject[project] ?? 0) + 1;
    const h = handle(p);
    const rec = teamRecord({ ...r, cwd: `/home/${h}/src/${project}` } as MemoryRecord, { author: h, project, repo: REPO(project), model: MODEL });
    const path = folded.has(m) ? `${project}/${h}/archive/${m}.jsonl` : `${project}/${h}/${m}_${r.machine}.jsonl`;
    let paths = pending.get(p);
    if (!paths) pending.set(p, (paths = new Map()));
    let lines = paths.get(path);
    if (!lines) paths.set(path, (lines = []));
    lines.push(encodeEntry(rec));
  }
  await flush();
  await fi.end();
  return { remote, records, jsonlBytes, files, commits, buildS: (performance.now() - t0) / 1000, byProject, ...treeStats(remote) };
}

/** Sizes of the remote's objects, its largest file and its fullest folder, from its tree. */
function treeStats(remote: string): Pick<Built, 'packBytes' | 'largestFile' | 'fullestFolder'> {
  const sizes = new Map<string, number>();
  for (const l of execFileSync('git', ['--git-dir', remote, 'ls-tree', '-r', '-l', 'memories'], { encoding: 'utf8', maxBuffer: 1 << 28 }).split('\n')) {
    const m = /^\d+ blob [0-9a-f]+ +(\d+)\t(.+)$/.exec(l);
    if (m) sizes.set(m[2] as string, Number(m[1]));
  }
  const packBytes = du(join(remote, 'objects'));
  let largestFile = { path: '', bytes: 0 };
  for (const [path, bytes] of sizes) if (bytes > largestFile.bytes) largestFile = { path, bytes };
  // Entries per folder of the final tree.
  const entries = new Map<string, Set<string>>();
  for (const path of sizes.keys()) {
    const parts = path.split('/');
    for (let i = 0; i < parts.length; i++) {
      const dir = parts.slice(0, i).join('/') || '.';
      let set = entries.get(dir);
      if (!set) entries.set(dir, (set = new Set()));
      set.add(parts[i] as string);
    }
  }
  let fullestFolder = { path: '', entries: 0 };
  for (const [path, set] of entries) if (set.size > fullestFolder.entries) fullestFolder = { path, entries: set.size };
  return { packBytes, largestFile, fullestFolder };
}

/**
 * The team remote: built, or — `cache`, a folder kept between runs while tuning — copied from
 * the one built there before (its stats beside it).
 */
async function teamRemote(root: string, records: number, cache: string | undefined): Promise<Built> {
  // `files`: the records carry the files they touched (a remote kept from before they did is not reused).
  const kept = cache ? join(cache, `team-files-${records}.git`) : undefined;
  const stats = cache ? join(cache, `team-files-${records}.json`) : undefined;
  if (kept && stats && existsSync(kept) && existsSync(stats)) {
    const remote = join(root, 'team-acme.git');
    execFileSync('cp', ['-r', kept, remote]);
    return { ...(JSON.parse(readFileSync(stats, 'utf8')) as Built), remote };
  }
  const built = await buildRemote(root, records);
  if (kept && stats) {
    mkdirSync(cache as string, { recursive: true });
    execFileSync('cp', ['-r', built.remote, kept]);
    writeFileSync(stats, JSON.stringify(built));
  }
  return built;
}

/** A day of the others' work: 3,000 memories, one commit per person, appended to their month files. */
export async function dayOfWork(remote: string, n: number, seed: number): Promise<Record<string, number>> {
  const fi = fastImport(remote);
  const head = execFileSync('git', ['--git-dir', remote, 'rev-parse', 'memories'], { encoding: 'utf8' }).trim();
  const rand = prng(seed);
  const month = END_MONTH;
  const at = Date.UTC(2026, 10, 29, 12);
  const byPerson = new Map<number, MemoryRecord[]>();
  const byProject: Record<string, number> = {};
  let i = 0;
  for (const r of synthRecords({ records: n, machines: ['x'], months: 1, endMonth: month, dim: DIM, model: MODEL, projects: 1, seed })) {
    const p = 1 + (i++ % (PEOPLE - 1));
    const list = byPerson.get(p) ?? [];
    list.push({ ...r, id: `day-${seed}-${i}`, session_id: `day-${seed}-${r.session_id}`, machine: machinesOf(handle(p))[0] as string });
    byPerson.set(p, list);
  }
  let first = true;
  for (const [p, recs] of byPerson) {
    const h = handle(p);
    const files = new Map<string, string>();
    for (const r of recs) {
      const project = projectOf(p, rand());
      byProject[project] = (byProject[project] ?? 0) + 1;
      const path = `${project}/${h}/${month}_${r.machine}.jsonl`;
      if (!files.has(path)) {
        const was = spawnSync('git', ['--git-dir', remote, 'show', `${head}:${path}`], { encoding: 'utf8', maxBuffer: 1 << 30 });
        files.set(path, was.status === 0 ? was.stdout : '');
      }
      files.set(path, `${files.get(path)}${encodeEntry(teamRecord(r, { author: h, project, repo: REPO(project), model: MODEL }))}\n`);
    }
    const msg = `team: ${h} publishes ${recs.length} memories\n\n${MACHINE_TRAILER}: ${machinesOf(h)[0]}\n${AUTHOR_TRAILER}: ${h}\n`;
    await fi.write(`commit refs/heads/memories\ncommitter ${h} <${h}@acme.example> ${Math.floor(at / 1000) + p} +0000\ndata ${Buffer.byteLength(msg)}\n${msg}${first ? `from ${head}\n` : ''}`);
    first = false;
    for (const [path, content] of files) {
      const bytes = Buffer.from(content);
      await fi.write(`M 100644 inline ${path}\ndata ${bytes.length}\n`);
      await fi.write(bytes);
      await fi.write('\n');
    }
  }
  await fi.end();
  return byProject;
}

export async function runTeamBench(records: number, cache?: string): Promise<string> {
  const { dir: root, cleanup } = tempDir('memory-team-scale-');
  try {
    const built = await teamRemote(root, records, cache);
    process.stderr.write(`team remote: ${built.records} memories, ${(built.jsonlBytes / 2 ** 20).toFixed(0)} MB of JSONL in ${built.files} files, ${built.commits} commits, ${(built.packBytes / 2 ** 20).toFixed(0)} MB of objects, built in ${built.buildS.toFixed(0)} s\n`);

    // The newcomer: works in api (one memory of it in her own home), joins.
    const nina = homeMachine(root, 'nina', { env: { MEMORY_EMBEDDING_MODEL: MODEL, MEMORY_EMBEDDING_ALLOW_REMOTE: 'false', MEMORY_SYNC_PULL_TIMEOUT_MS: '8000' } });
    const api = join(nina.user, 'src', 'api');
    mkdirSync(api, { recursive: true });
    execFileSync('git', ['init', '-q', api]);
    execFileSync('git', ['-C', api, 'remote', 'add', 'origin', `git@${REPO('api').replace('/', ':')}.git`]);
    mkdirSync(join(api, 'src'));
    for (const f of [...CODE_FILES, { path: 'src/untouched.ts' }]) writeFileSync(join(api, f.path), 'export {};\n');
    const t = conversation('nina-1', [['Where does the api keep its idempotency keys?', 'In Redis for a day.']], { cwd: api });
    const tdir = join(nina.projects, encodeProjectDir(api));
    mkdirSync(tdir, { recursive: true });
    writeFileSync(join(tdir, 'nina-1.jsonl'), transcriptText(t));
    const captured = nina.cli(['session-end', '--foreground', '--transcript', join(tdir, 'nina-1.jsonl'), '--cwd', api]);
    if (captured.code !== 0) throw new Error(captured.stderr);

    let tj = performance.now();
    // Longer than the test helper allows: a project of a million-memory team.
    const joined = spawnSync(process.execPath, [CLI, 'team', 'join', 'acme', '--remote', built.remote, '--handle', 'nina', '--json'], { env: { ...process.env, ...nina.env }, encoding: 'utf8', maxBuffer: 1 << 26 });
    const joinS = (performance.now() - tj) / 1000;
    if (joined.status !== 0) throw new Error(joined.stderr);
    const j = JSON.parse(joined.stdout) as { reading: string[]; memories: number; fetched: boolean };
    if (!j.fetched) throw new Error(`join could not fetch ${j.reading.join(', ')}: ${joined.stderr}`);
    const teamDir = join(nina.home, '.cache', 'teams', 'acme');
    const cloneBytes = du(join(teamDir, 'repo', '.git'));
    const treeBytes = du(join(teamDir, 'repo')) - cloneBytes;
    const cacheBytes = ['memory.db', 'memory.db-wal'].reduce((n, f) => n + (existsSync(join(teamDir, f)) ? statSync(join(teamDir, f)).size : 0), 0);

    // The cache rebuilt from scratch (the clone as it is): a disposable cache's worst case.
    for (const f of readdirSync(teamDir)) if (f.startsWith('memory.db')) rmSync(join(teamDir, f));
    tj = performance.now();
    const st = spawnSync(process.execPath, [CLI, 'team', 'status', '--json'], { env: { ...process.env, ...nina.env }, encoding: 'utf8' });
    const rebuildS = (performance.now() - tj) / 1000;
    if (st.status !== 0) throw new Error(st.stderr);

    // For comparison: a full clone of the team remote (what a clone without the cone would hold).
    tj = performance.now();
    execFileSync('git', ['clone', '-q', '--bare', '--no-local', built.remote, join(root, 'full.git')]);
    const fullCloneS = (performance.now() - tj) / 1000;
    const fullCloneBytes = du(join(root, 'full.git'));
    rmSync(join(root, 'full.git'), { recursive: true, force: true });

    // Session start with nothing new, then after a day of the others' work.
    const startInput = JSON.stringify({ session_id: 'nina-s', cwd: api, hook_event_name: 'SessionStart' });
    const quiet: number[] = [];
    for (let i = 0; i < 5; i++) quiet.push(await timeProcess([CLI, 'session-start', '--inject'], startInput, nina.env, api));
    const day = await dayOfWork(built.remote, 3000, 4242);
    const before = JSON.parse(nina.cli(['team', 'status', '--json']).stdout) as { teams: Array<{ team_memories: number }> };
    const dayStart = await timeProcess([CLI, 'session-start', '--inject'], startInput, nina.env, api);
    const after = JSON.parse(nina.cli(['team', 'status', '--json']).stdout) as { teams: Array<{ team_memories: number }> };
    const ingested = (after.teams[0]?.team_memories ?? 0) - (before.teams[0]?.team_memories ?? 0);

    // Project-scoped hybrid and keyword search in the team cache, in process (the query's vector given).
    const store = openCacheAsIs({ dbPath: join(teamDir, 'memory.db'), exportDir: join(teamDir, 'repo'), model: MODEL, dim: DIM });
    if (!store) throw new Error('no team cache');
    const rand = prng(5);
    const words = ['cache', 'deploy', 'webhook retry', 'migration schema', 'session token', 'queue worker', 'データベース 移行', 'キャッシュ 設定', 'flaky test', 'payment invoice'];
    const lat = { hybrid: [] as number[], keyword: [] as number[] };
    const now = Date.UTC(2026, 11, 1);
    for (let round = 0; round < 6; round++) {
      for (const q of words) {
        const qvec = unitVector(rand, DIM);
        for (const mode of ['hybrid', 'keyword'] as const) {
          const t1 = performance.now();
          await search({ store, embedQuery: async () => qvec, now }, { query: q, mode, topK: 10, filters: { project: 'api' }, halfLifeDays: 30, rrfK: 60 });
          if (round > 0) lat[mode].push(performance.now() - t1);
        }
      }
    }
    store.close();

    // The hooks with the team configured: Stop (the worker held elsewhere, as sync.ts measures it), recall.
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 600000)'], { stdio: 'ignore' });
    mkdirSync(join(nina.home, '.cache'), { recursive: true });
    writeFileSync(join(nina.home, '.cache', 'worker.lock'), JSON.stringify({ pid: holder.pid, host: hostname(), since: new Date().toISOString() }));
    const stopInput = JSON.stringify({ session_id: 'nina-1', transcript_path: join(tdir, 'nina-1.jsonl'), cwd: api, hook_event_name: 'Stop' });
    const recallInput = JSON.stringify({ session_id: 'nina-2', prompt: 'how does the api retry the payment webhook when the queue worker times out', cwd: api, hook_event_name: 'UserPromptSubmit' });
    // The same Stop in a home with no team, its worker held too: what a team adds to the hook.
    const solo = homeMachine(root, 'solo', { env: { MEMORY_EMBEDDING_MODEL: MODEL, MEMORY_EMBEDDING_ALLOW_REMOTE: 'false' } });
    const soloDir = join(solo.projects, encodeProjectDir(api));
    mkdirSync(soloDir, { recursive: true });
    writeFileSync(join(soloDir, 'nina-1.jsonl'), transcriptText(t));
    if (solo.cli(['session-end', '--foreground', '--transcript', join(soloDir, 'nina-1.jsonl'), '--cwd', api]).code !== 0) throw new Error('solo capture');
    writeFileSync(join(solo.home, '.cache', 'worker.lock'), JSON.stringify({ pid: holder.pid, host: hostname(), since: new Date().toISOString() }));
    const soloStop = JSON.stringify({ session_id: 'nina-1', transcript_path: join(soloDir, 'nina-1.jsonl'), cwd: api, hook_event_name: 'Stop' });
    const stop: number[] = [];
    const stopSolo: number[] = [];
    const recall: number[] = [];
    const fileRead: number[] = [];
    const fileSolo: number[] = [];
    let given = 0;
    const node: number[] = [];
    for (let i = 0; i < 21; i++) {
      stop.push(await timeProcess([CLI, 'session-end', '--no-push'], stopInput, nina.env, api));
      stopSolo.push(await timeProcess([CLI, 'session-end', '--no-push'], soloStop, solo.env, api));
      recall.push(await timeProcess([CLI, 'recall'], recallInput, nina.env, api));
      // A Read of a file the team's memories recorded (one in four: a file none did), with the team and without.
      const path = i % 4 === 3 ? 'src/untouched.ts' : (CODE_FILES[(i * 7) % CODE_FILES.length] as { path: string }).path;
      const readInput = JSON.stringify({ session_id: `nina-f${i}`, cwd: api, hook_event_name: 'PostToolUse', tool_name: 'Read', tool_input: { file_path: join(api, path) } });
      fileRead.push(await timeProcess([CLI, 'file-recall'], readInput, nina.env, api));
      fileSolo.push(await timeProcess([CLI, 'file-recall'], readInput, solo.env, api));
      if (/a teammate's session/.test(spawnSync(process.execPath, [CLI, 'file-recall'], { input: readInput.replace(`nina-f${i}`, `nina-g${i}`), env: { ...process.env, ...nina.env }, cwd: api, encoding: 'utf8' }).stdout)) given++;
      node.push(await timeProcess(['-e', '0'], '', nina.env));
    }
    holder.kill();
    await new Promise((r) => holder.once('exit', r));

    const mb = (b: number) => (b / 2 ** 20).toFixed(0);
    const f1 = (x: number) => x.toFixed(1);
    return [
      `Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, git ${execFileSync('git', ['--version'], { encoding: 'utf8' }).trim().replace('git version ', '')}`,
      '',
      '| the team remote | |',
      '|---|---:|',
      `| memories (${PEOPLE} people × 2 machines, ${MONTHS} months, ${PROJECTS.length} projects: ${Object.entries(built.byProject).map(([p, n]) => `${p} ${n}`).join(', ')}) | ${built.records} |`,
      `| JSONL | ${mb(built.jsonlBytes)} MB in ${built.files} files |`,
      `| commits (one per person and month, as published monthly) | ${built.commits} |`,
      `| objects on the remote | ${mb(built.packBytes)} MB |`,
      `| largest file (limit 50 MB) | ${(built.largestFile.bytes / 2 ** 20).toFixed(2)} MB (\`${built.largestFile.path}\`) |`,
      `| fullest folder (limit 3,000 entries) | ${built.fullestFolder.entries} (\`${built.fullestFolder.path}\`) |`,
      '',
      `| a newcomer to api (${j.reading.join(', ')}: ${j.memories} memories) | |`,
      '|---|---:|',
      `| \`memory team join\`: partial, sparse clone and the cache built | ${f1(joinS)} s |`,
      `| its clone's .git / checked-out files / cache | ${mb(cloneBytes)} MB / ${mb(treeBytes)} MB / ${mb(cacheBytes)} MB |`,
      `| for comparison: a full clone of the team remote | ${f1(fullCloneS)} s, ${mb(fullCloneBytes)} MB |`,
      `| team cache rebuilt from scratch (\`team status\` after deleting it) | ${f1(rebuildS)} s |`,
      `| session start in api, nothing new (5 runs, p50) | ${(pct(quiet, 0.5) / 1000).toFixed(2)} s |`,
      `| session start in api after a day's ${Object.values(day).reduce((a, b) => a + b, 0)} memories of the others (${day.api ?? 0} in api): pull and read | ${(dayStart / 1000).toFixed(2)} s (${ingested} new in the cache) |`,
      `| project-scoped hybrid search in the team cache p50 / p95 | ${f1(pct(lat.hybrid, 0.5))} / ${f1(pct(lat.hybrid, 0.95))} ms |`,
      `| project-scoped keyword search p50 / p95 | ${f1(pct(lat.keyword, 0.5))} / ${f1(pct(lat.keyword, 0.95))} ms |`,
      `| Stop hook (whole process) p50 / p95, team configured | ${(pct(stop, 0.5) / 1000).toFixed(3)} / ${(pct(stop, 0.95) / 1000).toFixed(3)} s |`,
      `| the same Stop hook in a home with no team, interleaved | ${(pct(stopSolo, 0.5) / 1000).toFixed(3)} / ${(pct(stopSolo, 0.95) / 1000).toFixed(3)} s |`,
      `| recall hook (whole process) p50 / p95, team configured | ${(pct(recall, 0.5) / 1000).toFixed(3)} / ${(pct(recall, 0.95) / 1000).toFixed(3)} s |`,
      `| file-recall hook (a Read; 3 in 4 of the files recorded by the team's memories) p50 / p95, team configured | ${(pct(fileRead, 0.5) / 1000).toFixed(3)} / ${(pct(fileRead, 0.95) / 1000).toFixed(3)} s (a teammate's memory given for ${given} of 21 Reads) |`,
      `| the same Reads in a home with no team | ${(pct(fileSolo, 0.5) / 1000).toFixed(3)} / ${(pct(fileSolo, 0.95) / 1000).toFixed(3)} s |`,
      `| floor: \`node -e 0\` p50 / p95 | ${(pct(node, 0.5) / 1000).toFixed(3)} / ${(pct(node, 0.95) / 1000).toFixed(3)} s |`,
    ].join('\n');
  } finally {
    if (process.argv.includes('--keep')) process.stderr.write(`kept: ${root}\n`);
    else cleanup();
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf('--records');
  const records = i > 0 ? Number(process.argv[i + 1]) : 1_000_000;
  const c = process.argv.indexOf('--cache');
  process.stdout.write(`${await runTeamBench(records, c > 0 ? process.argv[c + 1] : undefined)}\n`);
}
