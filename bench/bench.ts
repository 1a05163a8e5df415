/**
 * npm run bench — measured numbers, never a pass/fail test. Prints a markdown table
 * (paste it into bench/RESULTS.md with the machine description).
 *
 * Each figure comes with its floor measured in the same run: the plain cost of reading and
 * JSON.parse-ing the same files, and a brute-force dot-product scan in JS.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { decodeEmbedding } from '../src/export/jsonl.js';
import { openCache } from '../src/store/cache.js';
import { search } from '../src/search/search.js';
import { indexText } from '../src/store/analyze.js';
import { KEYWORD_TOKENIZER } from '../src/store/schema.js';
import { runMergeBench, mergeTable } from './merge.js';
import { ORDINARY_EN } from './ordinary-prompts.js';
import { prng, unitVector, writeSynthExport, type SynthOptions } from './synth.js';
import { gitBlobId } from '../src/changes/git-files.js';
import { movesPath, renameMapPath, type Rename } from '../src/changes/renames.js';
import { changeNote, staleness } from '../src/changes/staleness.js';
import { formatRecall, recall } from '../src/search/recall.js';

const DIM = 384;
const MODEL = 'bench-model';
const CLI = resolve(fileURLToPath(import.meta.url), '..', '..', 'src', 'cli', 'main.js');
const NODE_SH = resolve(fileURLToPath(import.meta.url), '..', '..', '..', 'plugin', 'node.sh');
const HOOK_FLOOR = resolve(fileURLToPath(import.meta.url), '..', 'hook-floor.js');

/**
 * A code repository for the memories to point at: 200 files of ~4 KB, each memory recording
 * 4 of them; a tenth of the files rewritten since (so some hits have changed files).
 */
function codeRepo(root: string): NonNullable<SynthOptions['code']> {
  const cwd = join(root, 'code', 'api');
  mkdirSync(join(cwd, 'src'), { recursive: true });
  execFileSync('git', ['init', '-q'], { cwd });
  execFileSync('git', ['remote', 'add', 'origin', 'git@github.com:acme/api.git'], { cwd });
  const rand = prng(99);
  const files: Array<{ path: string; blob: string }> = [];
  for (let i = 0; i < 200; i++) {
    const path = `src/mod${i}.ts`;
    const body = Buffer.from(Array.from({ length: 4096 }, () => String.fromCharCode(32 + Math.floor(rand() * 90))).join(''));
    writeFileSync(join(cwd, path), body);
    files.push({ path, blob: gitBlobId(body) });
    if (i % 10 === 0) writeFileSync(join(cwd, path), Buffer.concat([body, Buffer.from('// changed since\n')]));
  }
  return { repo: 'github.com/acme/api', cwd, files, perMemory: 4 };
}

/**
 * Prompts for per-prompt recall: half questions of stored memories (every 20th of the first
 * file's first 400 lines: they should recall something), half ordinary coding requests (they should not).
 */
function recallPrompts(exportDir: string): string[] {
  const file = join(exportDir, readdirSync(exportDir).filter((f) => f.endsWith('.jsonl')).sort()[0] as string);
  const questions = readFileSync(file, 'utf8').split('\n').filter((l) => l.length > 0).slice(0, 400).filter((_, i) => i % 20 === 0)
    .map((l) => Array.from((JSON.parse(l) as { question: string }).question).slice(0, 200).join(''));
  return [...questions, ...ORDINARY_EN.slice(0, questions.length)];
}

/** Prompts that ask only what was done at a time (the bench's clock is 1 November 2026; its memories end in October). */
const LISTING_PROMPTS = ['what did we do last time?', '前回何をしたっけ', 'what were we working on last month?', '先月やったこと', 'what did we talk about in March 2026?'];

const QUERIES = [
  'sqlite lock timeout retry',
  'データベース 移行 エラー',
  'flaky test fixed workaround',
  '認証エラーの原因',
  'docker container deploy failed',
  'git rebase conflict hook',
  'キャッシュ 性能 改善',
  'typescript generic inference error',
  'DB',
  'payment webhook retry queue',
];

function pct(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)] as number;
}

function p50(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

function timeIt(fn: () => void): number {
  const t = performance.now();
  fn();
  return performance.now() - t;
}

/** Floor for a rebuild: read every file and JSON.parse every line, nothing else. */
function parseFloor(dir: string): { ms: number; vectors: Float32Array; texts: Array<[string, string]> } {
  let count = 0;
  const vecs: Float32Array[] = [];
  const texts: Array<[string, string]> = [];
  const ms = timeIt(() => {
    for (const name of readdirSync(dir).sort()) {
      if (!name.endsWith('.jsonl')) continue;
      const text = readFileSync(join(dir, name), 'utf8');
      for (const line of text.split('\n')) {
        if (!line) continue;
        const o = JSON.parse(line) as { embedding?: string; question: string; answer: string };
        count++;
        texts.push([o.question, o.answer]);
        if (o.embedding) vecs.push(decodeEmbedding(o.embedding) as Float32Array);
      }
    }
  });
  const all = new Float32Array(vecs.length * DIM);
  vecs.forEach((v, i) => all.set(v, i * DIM));
  void count;
  return { ms, vectors: all, texts };
}

/**
 * Floor for a full rebuild's indexing: the same texts, analysed as the cache does (CJK
 * bigrams, identifier parts), into a bare table + the same FTS5 word index, nothing else.
 */
function ftsFloor(texts: Array<[string, string]>, dir: string): number {
  const db = new Database(join(dir, 'fts-floor.db'));
  db.pragma('journal_mode = MEMORY'); // as the cache's own build (OFF is refused: store/database.ts)
  db.pragma('synchronous = OFF');
  db.exec(`CREATE TABLE m (rowid INTEGER PRIMARY KEY, q TEXT, a TEXT); CREATE VIRTUAL TABLE f USING fts5(q, a, content='', contentless_delete=1, tokenize='${KEYWORD_TOKENIZER}')`);
  const ins = db.prepare('INSERT INTO m (q, a) VALUES (?, ?)');
  const fts = db.prepare('INSERT INTO f (rowid, q, a) VALUES (?, ?, ?)');
  const ms = timeIt(() =>
    db.transaction(() => {
      for (const [q, a] of texts) fts.run(ins.run(q, a).lastInsertRowid, indexText(q), indexText(a));
    })(),
  );
  db.close();
  return ms;
}

/**
 * The plain floor of a full rebuild (issue 28): the same texts into a bare trigram FTS5 table
 * and the same vectors into a bare vec0 table, in one transaction, after the same read and
 * parse (parseFloor, added by the caller). Also the floor of a keyword query: the simplest
 * safe FTS5 query on that table, every word quoted and OR-ed, bm25 order, top 5.
 */
function trigramFloor(texts: Array<[string, string]>, vectors: Float32Array, dir: string): { insertMs: number; queryP50: number; mb: number } {
  const path = join(dir, 'trigram-floor.db');
  const db = new Database(path);
  sqliteVec.load(db);
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  db.exec(`CREATE VIRTUAL TABLE f USING fts5(q, a, tokenize='trigram'); CREATE VIRTUAL TABLE v USING vec0(id INTEGER PRIMARY KEY, embedding float[${DIM}] distance_metric=cosine)`);
  const fts = db.prepare('INSERT INTO f (rowid, q, a) VALUES (?, ?, ?)');
  const vec = db.prepare('INSERT INTO v (id, embedding) VALUES (?, ?)');
  const n = vectors.length / DIM;
  const insertMs = timeIt(() =>
    db.transaction(() => {
      texts.forEach(([q, a], i) => {
        fts.run(i + 1, q, a);
        if (i < n) vec.run(BigInt(i + 1), Buffer.from(vectors.buffer, vectors.byteOffset + i * DIM * 4, DIM * 4));
      });
    })(),
  );
  const stmt = db.prepare('SELECT rowid FROM f WHERE f MATCH ? ORDER BY rank LIMIT 5');
  const times: number[] = [];
  for (let round = 0; round < 3; round++) {
    for (const q of QUERIES) {
      const words = q.split(/\s+/).filter((w) => w.length > 0).map((w) => `"${w.replace(/"/g, '""')}"`);
      times.push(timeIt(() => stmt.all(words.join(' OR '))));
    }
  }
  db.close();
  const mb = readFileSync(path).length / 1e6;
  rmSync(path, { force: true });
  return { insertMs, queryP50: p50(times), mb };
}

/** Floor for vector search: brute-force dot products over every vector in a Float32Array. */
function scanFloor(all: Float32Array, q: Float32Array): number {
  const n = all.length / DIM;
  let best = -Infinity;
  const ms = timeIt(() => {
    for (let i = 0; i < n; i++) {
      let s = 0;
      const o = i * DIM;
      for (let d = 0; d < DIM; d++) s += (all[o + d] as number) * (q[d] as number);
      if (s > best) best = s;
    }
  });
  return ms;
}

interface Row {
  records: number;
  jsonlMb: number;
  files: number;
  fullS: number;
  parseFloorS: number;
  ftsFloorS: number;
  /** Read + parse + plain trigram FTS5 + vec0 inserts. */
  trigramFloorS: number;
  trigramQueryMs: number;
  trigramMb: number;
  kwP95: number;
  hybP95: number;
  /** The recall hook as a whole process on this cache, and `node -e 0`, ms. */
  hook: { p50: number; p95: number; pluginP50: number; pluginP95: number; nodeP50: number; nodeP95: number; n: number };
  /** The file-recall hook (PostToolUse on a Read) as a whole process, ms; Reads given memories (3 in 4 of the files were touched). */
  /** `renamed*`: the same Reads with a rename map of 5,000 renames, three earlier names a file read. */
  fileRecall: { p50: number; p95: number; nodeP95: number; packagesP95: number; n: number; given: number; renamedP50: number; renamedP95: number; renamedGiven: number };
  /** The same hook on Codex's shell commands (PostToolUse Bash), ms: commands naming no file, and reads (`sed -n`) of files the memories touched. */
  shellRecall: { noneP50: number; noneP95: number; readP50: number; readP95: number; n: number; given: number; moveP50: number; moveP95: number; moves: number; moveGiven: number };
  noopS: number;
  nodeFloorS: number;
  kw: number;
  vec: number;
  hyb: number;
  kwStale: number;
  hybStale: number;
  /** Per-prompt recall in process (query + format), without and with changed files: p50/p95 ms, prompts given memories. */
  recall: { p50: number; p95: number; staleP50: number; staleP95: number; n: number; given: number; listP50: number; listP95: number; listN: number; listed: number };
  scanFloor: number;
  dbMb: number;
}

async function runSize(records: number, withFiles: boolean): Promise<Row> {
  const root = mkdtempSync(join(tmpdir(), `memory-bench-${records}-`));
  const exportDir = join(root, 'export');
  const dbPath = join(root, '.cache', 'memory.db');
  try {
    process.stderr.write(`generating ${records} records…\n`);
    const code = codeRepo(root);
    const gen = writeSynthExport(exportDir, {
      records, machines: ['laptop', 'desktop', 'server'], months: 24, endMonth: '2026-10', dim: DIM, model: MODEL, ...(withFiles ? { code } : {}),
    });
    const floor = parseFloor(exportDir);
    process.stderr.write(`FTS5 floor…\n`);
    const ftsMs = ftsFloor(floor.texts, root);
    process.stderr.write(`trigram + vec0 floor…\n`);
    const tri = trigramFloor(floor.texts, floor.vectors, root);
    floor.texts.length = 0;
    process.stderr.write(`full rebuild…\n`);
    const opts = { dbPath, exportDir, model: MODEL, dim: DIM };
    let store;
    const fullMs = timeIt(() => {
      store = openCache({ ...opts, full: true }).store;
    });
    const s = store as unknown as ReturnType<typeof openCache>['store'];
    const rand = prng(7);
    const qvec = unitVector(rand, DIM);
    const now = Date.parse('2026-11-01T00:00:00Z');
    const modes = { keyword: [] as number[], vector: [] as number[], hybrid: [] as number[] };
    const stale = { keyword: [] as number[], hybrid: [] as number[] };
    for (let round = 0; round < 3; round++) {
      for (const q of QUERIES) {
        for (const mode of ['keyword', 'vector', 'hybrid'] as const) {
          const t = performance.now();
          await search(
            { store: s, embedQuery: async () => qvec, now },
            { query: q, mode, filters: {}, topK: 5, halfLifeDays: 30, rrfK: 60 },
          );
          modes[mode].push(performance.now() - t);
          if (mode === 'vector') continue;
          // The same search with each hit's files compared to the checkout, as \`memory search\`
          // does: a new comparer per query (a new process), the stat cache in the database.
          const t2 = performance.now();
          await search(
            { store: s, embedQuery: async () => qvec, now, staleness: staleness(s, { here: code.cwd, machine: 'laptop' }) },
            { query: q, mode, filters: {}, topK: 5, halfLifeDays: 30, rrfK: 60 },
          );
          stale[mode].push(performance.now() - t2);
        }
      }
    }
    // Per-prompt recall in process (the hook's work after node start): half questions of stored
    // memories, half ordinary requests; then the same with each recalled memory's files compared.
    const prompts = recallPrompts(exportDir);
    const plain: number[] = [];
    const compared: number[] = [];
    let given = 0;
    for (let round = 0; round < 2; round++) {
      for (const prompt of prompts) {
        const opts = { prompt, project: 'proj-1', maxItems: 3, minCoverage: 0.5, minRareWords: 2.25 };
        let t = performance.now();
        const hits = recall(s, opts);
        formatRecall(hits, 2000);
        plain.push(performance.now() - t);
        if (round === 0 && hits.length > 0) given++;
        t = performance.now();
        const st = staleness(s, { here: code.cwd, machine: 'laptop', persist: false });
        formatRecall(recall(s, opts), 2000, (r) => changeNote(st, r));
        compared.push(performance.now() - t);
      }
    }
    // Prompts that ask only what was done at a time: the project's memories of it, listed (recall.ts listingAsked).
    const listing: number[] = [];
    let listed = 0;
    for (let round = 0; round < 10; round++) {
      for (const prompt of LISTING_PROMPTS) {
        const t = performance.now();
        const hits = recall(s, { prompt, project: 'proj-1', sessionId: 'bench', maxItems: 3, minCoverage: 0.5, minRareWords: 2.25, now });
        formatRecall(hits, 2000);
        listing.push(performance.now() - t);
        if (round === 0 && hits.length > 0) listed++;
      }
    }
    const recallRow = { p50: p50(plain), p95: pct(plain, 0.95), staleP50: p50(compared), staleP95: pct(compared, 0.95), n: plain.length, given, listP50: p50(listing), listP95: pct(listing, 0.95), listN: listing.length, listed };
    s.close();
    const cfg = join(root, 'config.toml');
    writeFileSync(cfg, `[general]\nmachine_name = "bench"\n[embedding]\nmodel = "${MODEL}"\ndim = ${DIM}\n`);
    const noop: number[] = [];
    const nodeFloor: number[] = [];
    for (let i = 0; i < 5; i++) {
      noop.push(timeIt(() => execFileSync(process.execPath, [CLI, '-c', cfg, 'rebuild', '--json'], { stdio: 'pipe' })));
      nodeFloor.push(timeIt(() => execFileSync(process.execPath, ['-e', '0'], { stdio: 'pipe' })));
    }
    // UserPromptSubmit as a whole process on this cache (what a prompt waits for), against Node's own start.
    // The same through the plugins' launcher (sh plugin/node.sh → run.mjs → the CLI), as an agent runs it.
    const hookMs: number[] = [];
    const pluginMs: number[] = [];
    const hookFloor: number[] = [];
    const pluginEnv = { ...process.env, CLAUDE_PLUGIN_DATA: join(root, 'plugin-data'), MEMORY_ENGINE_PLUGIN: 'claude-code' };
    // Each prompt in a session of its own, each route too: what a session was given is not given again (app/session/given.ts).
    const hookInput = (prompt: string, session: string) => JSON.stringify({ session_id: session, cwd: root, hook_event_name: 'UserPromptSubmit', prompt });
    execFileSync('sh', [NODE_SH, '-c', cfg, 'recall'], { input: hookInput('warm up: the launcher records its Node.js', 'bench-warm-up'), env: pluginEnv, stdio: 'pipe' });
    for (const [i, prompt] of prompts.entries()) {
      hookMs.push(timeIt(() => execFileSync(process.execPath, [CLI, '-c', cfg, 'recall'], { input: hookInput(prompt, `bench-hook-${i}`), stdio: ['pipe', 'pipe', 'pipe'] })));
      pluginMs.push(timeIt(() => execFileSync('sh', [NODE_SH, '-c', cfg, 'recall'], { input: hookInput(prompt, `bench-plugin-${i}`), env: pluginEnv, stdio: ['pipe', 'pipe', 'pipe'] })));
      hookFloor.push(timeIt(() => execFileSync(process.execPath, ['-e', '0'], { stdio: 'pipe' })));
    }
    // PostToolUse file recall as a whole process (its budget: node's start + 40 ms at p95): Reads
    // in the checkout of files the memories touched, each in a new session (once per session never
    // cuts it short), and of a file none touched.
    const fileFloor: number[] = [];
    const packagesFloor: number[] = [];
    /** 40 Reads, each in a new session `<label>-<i>`, timed; how many brought memories. `between`: after each Read. */
    const reads = (label: string, between?: (path: string) => void) => {
      const ms: number[] = [];
      let given = 0;
      for (let i = 0; i < 40; i++) {
        const path = i % 4 === 3 ? 'src/untouched.ts' : (code.files[(i * 7) % code.files.length] as { path: string }).path;
        const input = JSON.stringify({ session_id: `${label}-${i}`, cwd: code.cwd, hook_event_name: 'PostToolUse', tool_name: 'Read', tool_input: { file_path: join(code.cwd, path) } });
        let out = '';
        ms.push(timeIt(() => (out = execFileSync(process.execPath, [CLI, '-c', cfg, 'file-recall'], { input, stdio: ['pipe', 'pipe', 'pipe'] }).toString())));
        if (out.includes('earlier sessions on')) given++;
        between?.(path);
      }
      return { ms, given };
    };
    let fileMs: number[] = [];
    let fileGiven = 0;
    if (withFiles) {
      writeFileSync(join(code.cwd, 'src', 'untouched.ts'), 'export {};\n');
      ({ ms: fileMs, given: fileGiven } = reads('bench-file', (path) => {
        fileFloor.push(timeIt(() => execFileSync(process.execPath, ['-e', '0'], { stdio: 'pipe' })));
        packagesFloor.push(timeIt(() => execFileSync(process.execPath, [HOOK_FLOOR, cfg, dbPath, code.repo, path], { stdio: 'pipe' })));
      }));
    }
    // Codex reads with shell commands, and the hook runs on every one of them: most name no file.
    const shellNone: number[] = [];
    const shellRead: number[] = [];
    let shellGiven = 0;
    if (withFiles) {
      const commands = ['npm test', 'git status --short', 'rg -n "retry" src', 'ls -la src', 'npx tsc --noEmit'];
      for (let i = 0; i < 40; i++) {
        const read = i % 2 === 0;
        const path = (code.files[(i * 11) % code.files.length] as { path: string }).path;
        const command = read ? `sed -n '1,120p' ${path}` : (commands[(i >> 1) % commands.length] as string);
        const input = JSON.stringify({ session_id: `bench-shell-${i}`, cwd: code.cwd, hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command } });
        let out = '';
        (read ? shellRead : shellNone).push(timeIt(() => (out = execFileSync(process.execPath, [CLI, '-c', cfg, 'file-recall'], { input, stdio: ['pipe', 'pipe', 'pipe'] }).toString())));
        if (read && out.includes('earlier sessions on')) shellGiven++;
      }
    }
    // Claude Code's Bash and Codex's shell moving a file with memories (`git mv`, run first): the
    // move noted beside the rename map, the file's memories given under its new name.
    const shellMove: number[] = [];
    let moveGiven = 0;
    if (withFiles) {
      mkdirSync(join(code.cwd, 'moved'), { recursive: true });
      for (let i = 0; i < 20; i++) {
        const path = (code.files[(i * 13) % code.files.length] as { path: string }).path;
        const to = `moved/${i}-${path.split('/').pop() as string}`;
        renameSync(join(code.cwd, path), join(code.cwd, to));
        const input = JSON.stringify({ session_id: `bench-move-${i}`, cwd: code.cwd, hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command: `git mv ${path} ${to}` } });
        let out = '';
        shellMove.push(timeIt(() => (out = execFileSync(process.execPath, [CLI, '-c', cfg, 'file-recall'], { input, stdio: ['pipe', 'pipe', 'pipe'] }).toString())));
        if (out.includes(`earlier sessions on ${to}`)) moveGiven++;
        renameSync(join(code.cwd, to), join(code.cwd, path));
      }
      rmSync(movesPath(root, code.repo), { force: true });
    }
    // The same Reads with a rename map at its largest (5,000 renames), each file read having had
    // three earlier names, and a moves file at its longest (200 moves not committed in this
    // checkout, each looked at: two stats): the map read and each earlier name looked up (changes/renames.ts).
    let renamedMs: number[] = [];
    let renamedGiven = 0;
    if (withFiles) {
      const renames: Rename[] = [];
      const at = Date.UTC(2026, 9, 1);
      for (const [i, f] of code.files.entries()) for (let d = 0; d < 3; d++) renames.push({ from: `old${d + 1}/${f.path}`, to: d === 0 ? f.path : `old${d}/${f.path}`, atMs: at - i * 1000 - d * 86_400_000 });
      for (let i = renames.length; i < 5000; i++) renames.push({ from: `gone/a${i}.ts`, to: `gone/b${i}.ts`, atMs: at - 200 * 86_400_000 - i });
      renames.sort((a, b) => b.atMs - a.atMs);
      const top = realpathSync(code.cwd);
      const mapPath = renameMapPath(root, code.repo, top);
      mkdirSync(join(mapPath, '..'), { recursive: true });
      writeFileSync(mapPath, JSON.stringify({ v: 1, repo: code.repo, head: 'bench', renames, complete: true }));
      writeFileSync(movesPath(root, code.repo), Array.from({ length: 200 }, (_, i) => `${JSON.stringify({ from: `gone/m${i}.ts`, to: `gone/n${i}.ts`, atMs: Date.now() - 86_400_000 + i, top })}\n`).join(''));
      ({ ms: renamedMs, given: renamedGiven } = reads('bench-renamed'));
      rmSync(mapPath);
      rmSync(movesPath(root, code.repo));
    }
    const dbBytes = readFileSync(dbPath).length;
    const scans: number[] = [];
    for (let i = 0; i < 5; i++) scans.push(scanFloor(floor.vectors, qvec));
    return {
        records,
        jsonlMb: gen.bytes / 1e6,
        files: gen.files,
        fullS: fullMs / 1000,
        parseFloorS: floor.ms / 1000,
        ftsFloorS: ftsMs / 1000,
        trigramFloorS: (floor.ms + tri.insertMs) / 1000,
        trigramQueryMs: tri.queryP50,
        trigramMb: tri.mb,
        noopS: p50(noop) / 1000,
        nodeFloorS: p50(nodeFloor) / 1000,
        kw: p50(modes.keyword),
        kwP95: pct(modes.keyword, 0.95),
        hybP95: pct(modes.hybrid, 0.95),
        fileRecall: { p50: p50(fileMs), p95: pct(fileMs, 0.95), nodeP95: pct(fileFloor, 0.95), packagesP95: pct(packagesFloor, 0.95), n: fileMs.length, given: fileGiven, renamedP50: p50(renamedMs), renamedP95: pct(renamedMs, 0.95), renamedGiven },
        shellRecall: { noneP50: p50(shellNone), noneP95: pct(shellNone, 0.95), readP50: p50(shellRead), readP95: pct(shellRead, 0.95), n: shellRead.length + shellNone.length, given: shellGiven, moveP50: p50(shellMove), moveP95: pct(shellMove, 0.95), moves: shellMove.length, moveGiven },
        hook: { p50: p50(hookMs), p95: pct(hookMs, 0.95), pluginP50: p50(pluginMs), pluginP95: pct(pluginMs, 0.95), nodeP50: p50(hookFloor), nodeP95: pct(hookFloor, 0.95), n: hookMs.length },
        vec: p50(modes.vector),
        hyb: p50(modes.hybrid),
        kwStale: p50(stale.keyword),
        hybStale: p50(stale.hybrid),
        recall: recallRow,
        scanFloor: p50(scans),
        dbMb: dbBytes / 1e6,
      };
  } finally {
    if (flag('--keep')) process.stderr.write(`kept ${root}\n`);
    else rmSync(root, { recursive: true, force: true });
  }
}

/**
 * What a Claude Code session waits for: the Stop hook (session-end hands the work to a
 * detached worker and returns) and the SessionStart hook without git (cache check +
 * injection), as whole processes, on a 10k-memory cache.
 */
async function hookLatency(withFiles: boolean): Promise<{ end: number; start: number; node: number; recall: { p50: number; p95: number; n: number; injected: number; nodeP95: number } }> {
  const root = mkdtempSync(join(tmpdir(), 'memory-bench-hooks-'));
  try {
    const exportDir = join(root, 'export');
    // Filed under the repository's project, so session start injects (and compares) them.
    const code = withFiles ? { ...codeRepo(root), project: 'api' } : undefined;
    writeSynthExport(exportDir, { records: 10_000, machines: ['laptop'], months: 6, endMonth: '2026-10', dim: DIM, model: MODEL, ...(code ? { code } : {}) });
    // The session's folder: the repository the memories point at (recall then compares files).
    const here = code?.cwd ?? root;
    const cfg = join(root, 'config.toml');
    // A model folder that does not exist: the hook must not need the model at all.
    writeFileSync(cfg, `[general]\nmachine_name = "laptop"\n[embedding]\nmodel = ${JSON.stringify(join(root, 'no-model'))}\n`);
    execFileSync(process.execPath, [CLI, '-c', cfg, 'rebuild'], { stdio: 'pipe' });
    // The memories read against today's redaction rules, as a session start after an upgrade
    // leaves to the background (once per version of the rules): the hooks are timed as on every
    // day after, not beside that one-time reading.
    execFileSync(process.execPath, [CLI, '-c', cfg, 'scrub', '--dry-run'], { stdio: 'pipe' });
    const transcript = join(root, 'session.jsonl');
    writeFileSync(transcript, '');
    const input = JSON.stringify({ session_id: 'bench', transcript_path: transcript, cwd: root, hook_event_name: 'Stop' });
    const end: number[] = [];
    const start: number[] = [];
    const node: number[] = [];
    for (let i = 0; i < 7; i++) {
      end.push(timeIt(() => execFileSync(process.execPath, [CLI, '-c', cfg, 'session-end', '--no-push'], { input, stdio: ['pipe', 'pipe', 'pipe'] })));
      start.push(timeIt(() => execFileSync(process.execPath, [CLI, '-c', cfg, 'session-start', '--inject', '--no-pull'], { input: JSON.stringify({ cwd: here }), stdio: ['pipe', 'pipe', 'pipe'] })));
      node.push(timeIt(() => execFileSync(process.execPath, ['-e', '0'], { stdio: 'pipe' })));
    }
    // UserPromptSubmit: per-prompt recall before every answer. Half the prompts are questions of
    // stored memories (they recall something), half ordinary coding requests (they should not).
    const prompts = recallPrompts(exportDir);
    const recallMs: number[] = [];
    const floor: number[] = [];
    let injected = 0;
    for (let round = 0; round < 2; round++) {
      for (const [i, prompt] of prompts.entries()) {
        let out = '';
        // A session of its own each time: one that was given the memory already is given nothing.
        recallMs.push(timeIt(() => (out = execFileSync(process.execPath, [CLI, '-c', cfg, 'recall'], { input: JSON.stringify({ session_id: `bench-${round}-${i}`, cwd: here, hook_event_name: 'UserPromptSubmit', prompt }), stdio: ['pipe', 'pipe', 'pipe'] }).toString())));
        if (round === 0 && out.length > 0) injected++;
        floor.push(timeIt(() => execFileSync(process.execPath, ['-e', '0'], { stdio: 'pipe' })));
      }
    }
    await new Promise((r) => setTimeout(r, 1500)); // let the detached workers finish before cleanup
    return { end: p50(end), start: p50(start), node: p50(node), recall: { p50: p50(recallMs), p95: pct(recallMs, 0.95), n: recallMs.length, injected, nodeP95: pct(floor, 0.95) } };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

// npm run bench [-- <sizes…>] [--merge-records N] [--no-merge] [--no-search] [--no-hooks] [--no-files] [--keep]
// (--no-files: memories without recorded files, as before file states existed; --keep: leave each
// size's export and cache behind, and say where, to look into a figure)
const args = process.argv.slice(2);
const flag = (name: string) => args.includes(name);
const valueOf = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : undefined;
};
const sizes = args.filter((a, i) => /^\d+$/.test(a) && args[i - 1] !== '--merge-records').map(Number);
const rows: Row[] = [];
if (!flag('--no-search')) for (const n of sizes.length > 0 ? sizes : [10_000, 100_000]) rows.push(await runSize(n, !flag('--no-files')));
const noHooks = flag('--no-hooks');
const hooks = noHooks ? undefined : await hookLatency(false);
const hooksFiles = noHooks ? undefined : await hookLatency(true);
const mergeRecords = valueOf('--merge-records') ?? 60_000;
const mergeRows = flag('--no-merge') ? [] : runMergeBench(mergeRecords);

const cpu = cpus()[0]?.model ?? 'unknown cpu';
const lines = [
  `Machine: ${cpus().length} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${process.platform}`,
  '',
  '| records | JSONL MB | files | cache MB | full rebuild s | floor: read+parse s | floor: FTS5 index alone s | no-op rebuild s (process) | floor: node start s | keyword p50 ms | vector p50 ms | hybrid p50 ms | floor: JS scan ms |',
  '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ...rows.map(
    (r) =>
      `| ${r.records} | ${r.jsonlMb.toFixed(1)} | ${r.files} | ${r.dbMb.toFixed(1)} | ${r.fullS.toFixed(2)} | ${r.parseFloorS.toFixed(2)} | ${r.ftsFloorS.toFixed(2)} | ${r.noopS.toFixed(3)} | ${r.nodeFloorS.toFixed(3)} | ${r.kw.toFixed(1)} | ${r.vec.toFixed(1)} | ${r.hyb.toFixed(1)} | ${r.scanFloor.toFixed(1)} |`,
  ),
  '',
  '| records | full rebuild s | floor: trigram FTS5 + vec0 s | × floor | keyword p50 ms | floor: trigram simplest safe query p50 ms | × floor | cache MB | JSONL MB | cache × JSONL | floor cache MB |',
  '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ...rows.map(
    (r) =>
      `| ${r.records} | ${r.fullS.toFixed(2)} | ${r.trigramFloorS.toFixed(2)} | ${(r.fullS / r.trigramFloorS).toFixed(2)} | ${r.kw.toFixed(1)} | ${r.trigramQueryMs.toFixed(1)} | ${(r.kw / r.trigramQueryMs).toFixed(2)} | ${r.dbMb.toFixed(1)} | ${r.jsonlMb.toFixed(1)} | ${(r.dbMb / r.jsonlMb).toFixed(2)} | ${r.trigramMb.toFixed(1)} |`,
  ),
  '',
  '| records | keyword p50 ms | keyword p95 ms | hybrid p50 ms | hybrid p95 ms | no-op rebuild s | recall hook p50 ms | recall hook p95 ms | floor: node start p50 ms | node p95 ms | hook p95 − node p95 ms | through the plugin launcher p50 ms | p95 ms | − node p95 ms | prompts |',
  '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ...rows.map(
    (r) =>
      `| ${r.records} | ${r.kw.toFixed(1)} | ${r.kwP95.toFixed(1)} | ${r.hyb.toFixed(1)} | ${r.hybP95.toFixed(1)} | ${r.noopS.toFixed(3)} | ${r.hook.p50.toFixed(0)} | ${r.hook.p95.toFixed(0)} | ${r.hook.nodeP50.toFixed(0)} | ${r.hook.nodeP95.toFixed(0)} | ${(r.hook.p95 - r.hook.nodeP95).toFixed(0)} | ${r.hook.pluginP50.toFixed(0)} | ${r.hook.pluginP95.toFixed(0)} | ${(r.hook.pluginP95 - r.hook.nodeP95).toFixed(0)} | ${r.hook.n} |`,
  ),
  '',
  '| records (each with 4 recorded files of a 200-file checkout) | keyword p50 ms | keyword + changed files p50 ms | hybrid p50 ms | hybrid + changed files p50 ms |',
  '|---:|---:|---:|---:|---:|',
  ...rows.map((r) => `| ${r.records} | ${r.kw.toFixed(1)} | ${r.kwStale.toFixed(1)} | ${r.hyb.toFixed(1)} | ${r.hybStale.toFixed(1)} |`),
  '',
  '| records | recall in process p50 ms | p95 ms | with changed files p50 ms | p95 ms | prompts | given memories | asking what was done at a time p50 ms | p95 ms | prompts | given memories |',
  '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ...rows.map((r) => `| ${r.records} | ${r.recall.p50.toFixed(1)} | ${r.recall.p95.toFixed(1)} | ${r.recall.staleP50.toFixed(1)} | ${r.recall.staleP95.toFixed(1)} | ${r.recall.n} | ${r.recall.given} of ${r.recall.n / 2} | ${r.recall.listP50.toFixed(2)} | ${r.recall.listP95.toFixed(2)} | ${r.recall.listN} | ${r.recall.listed} of ${LISTING_PROMPTS.length} |`),
  ...(rows.some((r) => r.fileRecall.n > 0)
    ? [
        '',
        '| records | file-recall hook (PostToolUse Read) p50 ms | p95 ms | floor: node start p95 ms | hook p95 − node p95 ms | floor: the packages alone (smol-toml, better-sqlite3, one query) p95 − node p95 ms | Reads | given memories |',
        '|---:|---:|---:|---:|---:|---:|---:|---:|',
        ...rows.filter((r) => r.fileRecall.n > 0).map((r) => `| ${r.records} | ${r.fileRecall.p50.toFixed(0)} | ${r.fileRecall.p95.toFixed(0)} | ${r.fileRecall.nodeP95.toFixed(0)} | ${(r.fileRecall.p95 - r.fileRecall.nodeP95).toFixed(0)} | ${(r.fileRecall.packagesP95 - r.fileRecall.nodeP95).toFixed(0)} | ${r.fileRecall.n} | ${r.fileRecall.given} of ${(r.fileRecall.n * 3) / 4} |`),
        '',
        '| records | the same Reads with a rename map of 5,000 renames (three earlier names a file) and 200 moves not committed p50 ms | p95 ms | hook p95 − node p95 ms | given memories |',
        '|---:|---:|---:|---:|---:|',
        ...rows.filter((r) => r.fileRecall.n > 0).map((r) => `| ${r.records} | ${r.fileRecall.renamedP50.toFixed(0)} | ${r.fileRecall.renamedP95.toFixed(0)} | ${(r.fileRecall.renamedP95 - r.fileRecall.nodeP95).toFixed(0)} | ${r.fileRecall.renamedGiven} of ${(r.fileRecall.n * 3) / 4} |`),
        '',
        '| records | file-recall hook on Codex\'s shell (PostToolUse Bash), a command naming no file: p50 ms | p95 ms | hook p95 − node p95 ms | a read of a file with memories (`sed -n`): p50 ms | p95 ms | hook p95 − node p95 ms | commands | given memories |',
        '|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
        ...rows.filter((r) => r.shellRecall.n > 0).map((r) => `| ${r.records} | ${r.shellRecall.noneP50.toFixed(0)} | ${r.shellRecall.noneP95.toFixed(0)} | ${(r.shellRecall.noneP95 - r.fileRecall.nodeP95).toFixed(0)} | ${r.shellRecall.readP50.toFixed(0)} | ${r.shellRecall.readP95.toFixed(0)} | ${(r.shellRecall.readP95 - r.fileRecall.nodeP95).toFixed(0)} | ${r.shellRecall.n} | ${r.shellRecall.given} of ${r.shellRecall.n / 2} |`),
        '',
        '| records | file-recall hook on a shell\'s `git mv` of a file with memories (Claude Code\'s Bash, Codex\'s shell; the move noted): p50 ms | p95 ms | hook p95 − node p95 ms | moves | given under the new name |',
        '|---:|---:|---:|---:|---:|---:|',
        ...rows.filter((r) => r.shellRecall.moves > 0).map((r) => `| ${r.records} | ${r.shellRecall.moveP50.toFixed(0)} | ${r.shellRecall.moveP95.toFixed(0)} | ${(r.shellRecall.moveP95 - r.fileRecall.nodeP95).toFixed(0)} | ${r.shellRecall.moves} | ${r.shellRecall.moveGiven} of ${r.shellRecall.moves} |`),
      ]
    : []),
];
if (rows.length === 0) lines.splice(2);
type Hooks = Awaited<ReturnType<typeof hookLatency>>;
const hookRow = (label: string, h: Hooks) =>
  `| ${label} | ${(h.recall.p50 / 1000).toFixed(3)} | ${(h.recall.p95 / 1000).toFixed(3)} | ${h.recall.n} | ${h.recall.injected} of ${h.recall.n / 2} | ${(h.node / 1000).toFixed(3)} | ${(h.recall.nodeP95 / 1000).toFixed(3)} |`;
if (hooks && hooksFiles) lines.push(
  '',
  '| hook (whole process, 10k memories) | p50 s | floor: node start s |',
  '|---|---:|---:|',
  `| Stop: \`session-end\` (spawns the worker, returns) | ${(hooks.end / 1000).toFixed(3)} | ${(hooks.node / 1000).toFixed(3)} |`,
  `| SessionStart: \`session-start --inject --no-pull\` | ${(hooks.start / 1000).toFixed(3)} | ${(hooks.node / 1000).toFixed(3)} |`,
  '',
  '| UserPromptSubmit: `recall` (whole process, 10k memories, keyword) | p50 s | p95 s | samples | prompts given memories | floor: node start p50 s | floor p95 s |',
  '|---|---:|---:|---:|---:|---:|---:|',
  hookRow('half stored questions, half ordinary coding requests', hooks),
  hookRow('the same, memories with 4 recorded files each, in their checkout (changed files compared)', hooksFiles),
  '',
  '| SessionStart `session-start --inject --no-pull` (10k) | p50 s |',
  '|---|---:|',
  `| without recorded files | ${(hooks.start / 1000).toFixed(3)} |`,
  `| in the checkout, 4 recorded files per memory (changed files compared) | ${(hooksFiles.start / 1000).toFixed(3)} |`,
);
if (mergeRows.length > 0) lines.push('', mergeTable(mergeRecords, mergeRows));
process.stdout.write(`${lines.join('\n')}\n`);
