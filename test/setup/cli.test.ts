import assert from 'node:assert/strict';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { encodeEntry, monthOf } from '../../src/export/jsonl.js';
import type { SearchHit } from '../../src/types.js';
import { daysAgo, makeWorld, parseJsonLines, rec, runCli, TRACER, writeJsonl, type World } from '../support/helpers.js';

type Hit = SearchHit;

// Ages, not dates: recency and date filters are relative to the clock, so the suite
// passes on any day (a fixed November broke it on 2026-12-01).
const MEMORIES = [
  rec({ id: 'lock', project: 'api', timestamp: daysAgo(11), question: 'How do we fix the sqlite database lock timeout?', answer: 'Set busy_timeout and use WAL mode; the lock error went away after the retry change.' }),
  rec({ id: 'auth', project: 'api', timestamp: daysAgo(10), question: '認証エラーの原因は何でしたか？', answer: 'トークンの有効期限が切れていたので、更新処理を追加しました。' }),
  rec({ id: 'orm', project: 'web', machine: 'desktop', timestamp: daysAgo(61), question: 'Which DB migration tool did we pick?', answer: 'We decided on plain SQL migration files run by a tiny script, no ORM.' }),
  rec({ id: 'css', project: 'web', machine: 'desktop', timestamp: daysAgo(6), question: 'Why is the mobile layout broken on the checkout page?', answer: 'A css grid rule overflowed; we switched the page to flex and the button fits.' }),
  rec({ id: 'old-lock', project: 'api', timestamp: daysAgo(376), question: 'sqlite lock timeout again?', answer: 'Same database lock problem as before; retry with busy_timeout fixed it.' }),
];

let w: World;
const cli = (...args: string[]) => runCli(['-c', w.config, ...args]);
const json = <T>(r: { stdout: string }) => JSON.parse(r.stdout) as T;

const fileOf = (m: (typeof MEMORIES)[number]) => `${monthOf(m.timestamp)}_${m.machine}.jsonl`;
const CSS_FILE = fileOf(MEMORIES[3]!);
/** Each memory in its machine's file of its month; two bad lines after `css`. */
const FILES = new Set(MEMORIES.map(fileOf));
const day = (iso: string) => iso.slice(0, 10);

before(() => {
  w = makeWorld();
  for (const f of FILES) {
    const lines: Array<(typeof MEMORIES)[number] | string> = MEMORIES.filter((m) => fileOf(m) === f);
    if (f === CSS_FILE) lines.push('{"broken": tru', '{"v":1,"id":"nope"}');
    writeJsonl(join(w.exportDir, f), lines);
  }
});
after(() => w.cleanup());

describe('memory rebuild', () => {
  it('--json reports records, files, skipped lines and time', () => {
    const r = cli('rebuild', '--json');
    assert.equal(r.code, 0, r.stderr);
    const out = json<{ records: number; files: number; skipped_lines: number; ms: number; pending: number; full: boolean }>(r);
    assert.equal(out.records, 5);
    assert.equal(out.files, FILES.size);
    assert.equal(out.skipped_lines, 2);
    assert.equal(out.pending, 5);
    assert.equal(out.full, true);
    assert.equal(typeof out.ms, 'number');
    const again = json<{ full: boolean; lines_read: number }>(cli('rebuild', '--json'));
    assert.equal(again.full, false);
    assert.equal(again.lines_read, 0);
  });

  it('prints a human summary naming the skipped lines', () => {
    const r = cli('rebuild', '--full');
    assert.equal(r.code, 0);
    assert.match(r.stdout, new RegExp(`Full rebuild \\(requested\\): 5 memories from ${FILES.size} files`));
    assert.ok(r.stdout.includes(`${CSS_FILE}:${MEMORIES.filter((m) => fileOf(m) === CSS_FILE).length + 1}: invalid-json`), r.stdout);
  });
});

describe('memory search (keyword; runs with the model folder missing)', () => {
  it('finds by English keywords, newest and most relevant first', () => {
    const r = cli('search', '--mode', 'keyword', '--json', 'sqlite lock timeout');
    assert.equal(r.code, 0, r.stderr);
    const out = json<{ query: string; hits: Hit[] }>(r);
    assert.equal(out.query, 'sqlite lock timeout');
    assert.deepEqual(out.hits.map((h) => h.id).slice(0, 2), ['lock', 'old-lock']);
    assert.deepEqual(Object.keys(out.hits[0]!), ['id', 'score', 'timestamp', 'machine', 'project', 'source', 'question', 'answer']);
  });

  it('finds Japanese without spaces, and 2-character terms', () => {
    assert.equal(json<{ hits: Hit[] }>(cli('search', '--mode', 'keyword', '--json', '認証エラー')).hits[0]?.id, 'auth');
    assert.equal(json<{ hits: Hit[] }>(cli('search', '--mode', 'keyword', '--json', '認証')).hits[0]?.id, 'auth');
    assert.equal(json<{ hits: Hit[] }>(cli('search', '--mode', 'keyword', '--json', 'ORM')).hits[0]?.id, 'orm');
  });

  it('hides memories of an excluded project unless --project names it', () => {
    const env = { MEMORY_PRIVACY_EXCLUDE_PROJECTS: 'web' };
    const ids = (...args: string[]) => json<{ hits: Hit[] }>(runCli(['-c', w.config, 'search', '--mode', 'keyword', '--json', ...args], { env })).hits.map((h) => h.id);
    assert.deepEqual(ids('migration layout checkout'), [], 'both matches are in project web');
    assert.deepEqual(ids('--project', 'web', 'migration layout checkout').sort(), ['css', 'orm']);
    assert.deepEqual(ids('sqlite lock timeout').slice(0, 2), ['lock', 'old-lock'], 'other projects as before');
  });

  it('filters by project, machine and dates', () => {
    const ids = (...args: string[]) => json<{ hits: Hit[] }>(cli('search', '--mode', 'keyword', '--json', ...args)).hits.map((h) => h.id);
    assert.deepEqual(ids('--project', 'web', 'lock timeout migration layout').sort(), ['css', 'orm']);
    assert.deepEqual(ids('--project', 'api', 'lock timeout migration layout').sort(), ['lock', 'old-lock']);
    assert.deepEqual(ids('--machine', 'desktop', 'sqlite lock'), []);
    assert.deepEqual(ids('--since', day(daysAgo(200)), 'sqlite lock timeout'), ['lock']);
    assert.deepEqual(ids('--until', day(daysAgo(200)), 'sqlite lock timeout'), ['old-lock']);
    const lockDay = day(MEMORIES[0]!.timestamp);
    assert.deepEqual(ids('--since', lockDay, '--until', lockDay, 'sqlite lock timeout'), ['lock']);
  });

  it('recency: --half-life 0 ranks by relevance alone; the default puts the newer of two comparable matches first, boosting by at most 10%', () => {
    const hits = (hl: string) => json<{ hits: Hit[] }>(cli('search', '--mode', 'keyword', '--json', '--half-life', hl, 'sqlite lock timeout')).hits;
    const flat = hits('0');
    const dflt = hits('30');
    assert.deepEqual(flat.map((h) => h.id).slice(0, 2), ['old-lock', 'lock'], 'by bm25 alone the shorter, older question is ahead');
    assert.deepEqual(dflt.map((h) => h.id).slice(0, 2), ['lock', 'old-lock'], 'comparable: the newer first');
    const score = (hs: Hit[], id: string) => hs.find((h) => h.id === id)!.score;
    assert.ok(Math.abs(score(dflt, 'old-lock') / score(flat, 'old-lock') - 1) < 0.001, 'a year-old memory keeps its relevance score');
    assert.ok(score(dflt, 'lock') / score(flat, 'lock') <= 1.1 + 1e-9, 'a new one gains at most the weight');
  });

  it('human output: header line, Q, A cut to 300 characters unless --full', () => {
    const long = rec({ id: 'long', project: 'api', timestamp: daysAgo(5), question: 'Explain the zebra deployment saga', answer: `zebra ${'detail '.repeat(100)}END-MARKER` });
    appendFileSync(join(w.exportDir, fileOf(long)), `${encodeEntry(long)}\n`);
    const r = cli('search', '--mode', 'keyword', 'zebra deployment');
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.split('\n');
    assert.ok(lines[0]!.startsWith(`[1] ${day(long.timestamp)} / laptop / project:api`), lines[0]);
    assert.equal(lines[1], 'Q: Explain the zebra deployment saga');
    assert.ok(lines[2]!.startsWith('A: zebra detail'));
    assert.ok(lines[2]!.endsWith('…'));
    assert.ok(!r.stdout.includes('END-MARKER'));
    assert.ok(cli('search', '--mode', 'keyword', '--full', 'zebra deployment').stdout.includes('END-MARKER'));
  });

  it('says so plainly when nothing matches', () => {
    const r = cli('search', '--mode', 'keyword', 'xylophone quasar');
    assert.equal(r.code, 0);
    assert.equal(r.stdout, 'No matching memories.\n');
    assert.deepEqual(json<{ hits: Hit[] }>(cli('search', '--mode', 'keyword', '--json', 'xylophone quasar')).hits, []);
  });

  it('--batch answers one JSON line per query in one process (file and stdin)', () => {
    const file = join(w.dir, 'queries.txt');
    writeFileSync(file, 'sqlite lock timeout\n\n認証エラー\nxylophone quasar\n');
    const r = cli('search', '--mode', 'keyword', '--batch', file);
    assert.equal(r.code, 0, r.stderr);
    const out = parseJsonLines(r.stdout) as Array<{ query: string; hits: Hit[] }>;
    assert.deepEqual(out.map((o) => o.query), ['sqlite lock timeout', '認証エラー', 'xylophone quasar']);
    assert.equal(out[0]!.hits[0]!.id, 'lock');
    assert.equal(out[1]!.hits[0]!.id, 'auth');
    assert.equal(out[2]!.hits.length, 0);
    const viaStdin = runCli(['-c', w.config, 'search', '--mode', 'keyword', '--batch', '-'], { input: 'ORM\n' });
    assert.equal((parseJsonLines(viaStdin.stdout)[0] as { hits: Hit[] }).hits[0]!.id, 'orm');
  });

  it('hostile queries never fail', () => {
    for (const q of ['NEAR(', '"', "'; DROP TABLE memories; --", '*', 'a:b', '-x', '🔥']) {
      const r = cli('search', '--mode', 'keyword', '--json', '--', q);
      assert.equal(r.code, 0, `${q}: ${r.stderr}`);
      assert.ok(Array.isArray(json<{ hits: Hit[] }>(r).hits));
    }
    // NUL cannot travel in argv; it can on stdin.
    const r = runCli(['-c', w.config, 'search', '--mode', 'keyword', '--batch', '-'], { input: 'lock\u0000timeout\n\u0000\n' });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(parseJsonLines(r.stdout).length, 2);
  });

  it('hybrid search degrades to keywords with one clear line when the model is missing', () => {
    const r = cli('search', 'sqlite lock');
    assert.equal(r.code, 0);
    assert.match(r.stderr, /keyword results only/);
    assert.equal(r.stderr.trim().split('\n').length, 1);
    assert.ok(json<{ hits: Hit[] }>(cli('search', '--json', 'sqlite lock')).hits.length > 0);
  });
});

describe('commands that must not load the embedding library', () => {
  it('rebuild, keyword search and status import neither @huggingface/transformers nor onnxruntime', () => {
    const trace = join(w.dir, 'trace.txt');
    for (const args of [['rebuild', '--full'], ['search', '--mode', 'keyword', 'lock'], ['status', '--json']]) {
      writeFileSync(trace, '');
      const r = runCli(['-c', w.config, ...args], { nodeArgs: ['--import', TRACER], env: { TRACE_IMPORTS_FILE: trace } });
      assert.equal(r.code, 0, r.stderr);
      const urls = readFileSync(trace, 'utf8');
      assert.ok(urls.includes('better-sqlite3'), 'the tracer sees real imports');
      assert.ok(!/huggingface|onnxruntime/.test(urls), `${args.join(' ')} loaded the model library`);
    }
  });

  it('rebuild and keyword search load their own command only, and no git (status does read git)', () => {
    const trace = join(w.dir, 'trace.txt');
    const loaded = (args: string[]): string => {
      writeFileSync(trace, '');
      const r = runCli(['-c', w.config, ...args], { nodeArgs: ['--import', TRACER], env: { TRACE_IMPORTS_FILE: trace } });
      assert.equal(r.code, 0, r.stderr);
      return readFileSync(trace, 'utf8');
    };
    const commandsIn = (urls: string) => [...new Set([...urls.matchAll(/cli\/commands\/([a-z-]+)\.js/g)].map((m) => m[1]))];
    for (const [args, own] of [[['rebuild'], 'rebuild'], [['search', '--mode', 'keyword', 'lock'], 'search']] as const) {
      const urls = loaded([...args]);
      assert.deepEqual(commandsIn(urls), [own], `${args.join(' ')} loaded other commands`);
      assert.ok(!urls.includes('simple-git'), `${args.join(' ')} loaded git`);
    }
    assert.ok(loaded(['status', '--json']).includes('simple-git'), 'the tracer sees git when a command uses it');
    const all = commandsIn(loaded(['--help']));
    assert.equal(all.length, 24, `the full help registers every command: ${all.join(' ')}`);
    assert.ok(all.includes('team') && all.includes('doctor') && all.includes('file-recall'));
  });

  it('the tracer does see the library when a command embeds', () => {
    const m = makeWorld();
    try {
      writeJsonl(join(m.exportDir, '2026-11_laptop.jsonl'), [MEMORIES[0]!]);
      const trace = join(m.dir, 'trace.txt');
      const r = runCli(['-c', m.config, 'rebuild', '--with-model'], { nodeArgs: ['--import', TRACER], env: { TRACE_IMPORTS_FILE: trace } });
      assert.equal(r.code, 0, r.stderr);
      assert.match(readFileSync(trace, 'utf8'), /huggingface/);
    } finally {
      m.cleanup();
    }
  });
});

describe('memory model pull', () => {
  it('loads the configured model and reports its dim', () => {
    const r = cli('model', 'pull', '--json');
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout).dim, 32);
  });
  it('a model that cannot be had is a clear error (a missing folder: tests never touch the network)', () => {
    const m = makeWorld({ model: '/nonexistent/model-folder' });
    try {
      const r = runCli(['-c', m.config, 'model', 'pull']);
      assert.equal(r.code, 1);
      assert.match(r.stderr, /model folder \/nonexistent\/model-folder does not exist/);
    } finally {
      m.cleanup();
    }
  });
});

describe('memory status', () => {
  it('--json reports records, pending, machines, files, db size, model and dim', () => {
    const r = cli('status', '--json');
    assert.equal(r.code, 0, r.stderr);
    const s = json<Record<string, unknown>>(r);
    for (const k of ['records', 'pending', 'machines', 'files', 'db_bytes', 'model', 'dim']) assert.ok(k in s, k);
    assert.deepEqual(s.machines, ['desktop', 'laptop']);
    assert.equal(s.model, 'tiny-model');
    assert.ok((s.db_bytes as number) > 0);
  });
});

describe('errors a user can act on', () => {
  it('bad option values name the option', () => {
    for (const [args, re] of [
      [['search', '--mode', 'fuzzy', 'x'], /--mode must be hybrid, keyword or vector/],
      [['search', '--top-k', '0', 'x'], /--top-k must be a positive whole number/],
      [['search', '--since', 'the sprint before the offsite', 'x'], /--since must be a day/],
      [['search', '--half-life', '-3', 'x'], /--half-life must be a number/],
      [['search'], /missing query/],
    ] as const) {
      const r = cli(...args);
      assert.equal(r.code, 2, `a usage error: ${args.join(' ')}`);
      assert.match(r.stderr, re);
      assert.equal(r.stdout, '');
    }
    // Words that name a day whole are that day: a time of it goes with it.
    const noon = cli('search', '--since', 'last tuesday at noon', 'x');
    assert.equal(noon.code, 0, noon.stderr);
    // A file that cannot be read is not a usage error: exit 1.
    for (const [args, re] of [[['search', '--batch', '/nonexistent/q.txt'], /cannot read --batch file/]] as const) {
      const r = cli(...args);
      assert.equal(r.code, 1, args.join(' '));
      assert.match(r.stderr, re);
      assert.equal(r.stdout, '');
    }
  });

  it('unknown commands and options are usage errors (exit 2)', () => {
    assert.equal(cli('frobnicate').code, 2);
    assert.equal(cli('search', '--bogus', 'x').code, 2);
  });

  it('a broken config names the file and key', () => {
    const bad = join(w.dir, 'bad.toml');
    writeFileSync(bad, '[search]\ntop_k = "many"\n');
    const r = runCli(['-c', bad, 'status']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /bad\.toml: search\.top_k: expected an integer/);
  });

  it('--help works on every command', () => {
    for (const c of [[], ['search'], ['rebuild'], ['status']]) {
      const r = runCli([...c, '--help']);
      assert.equal(r.code, 0);
      assert.match(r.stdout, /Usage: memory/);
    }
  });
});

describe('rebuild --with-model (the real transformers.js pipeline on the tiny model)', () => {
  it('embeds pending records, appends embedded versions, and vector search works', () => {
    const m = makeWorld();
    try {
      // The originals sit in a closed month's file; embedded versions go to this machine's
      // file of the month they are written in (by the clock of the command that writes them).
      const seed = join(m.exportDir, '2025-06_laptop.jsonl');
      writeJsonl(seed, MEMORIES.filter((x) => x.id !== 'old-lock'));
      const seedText = readFileSync(seed, 'utf8');
      const r = runCli(['-c', m.config, 'rebuild', '--with-model', '--json']);
      assert.equal(r.code, 0, r.stderr);
      const out = JSON.parse(r.stdout) as { embedded: number; pending: number; records: number; dim: number };
      assert.equal(out.embedded, 4);
      assert.equal(out.pending, 0);
      assert.equal(out.records, 4);
      assert.equal(out.dim, 32);
      assert.equal(readFileSync(seed, 'utf8'), seedText, 'the originals are kept as they were');
      const current = join(m.exportDir, `${monthOf(new Date().toISOString())}_laptop.jsonl`);
      const lines = readFileSync(current, 'utf8').trim().split('\n');
      assert.equal(lines.length, 4, 'four embedded versions appended to the current month');
      const v = JSON.parse(lines[3]!) as { model: string; dim: number; embedding: string };
      assert.equal(v.model, 'tiny-model');
      assert.equal(v.dim, 32);
      const hits = (JSON.parse(runCli(['-c', m.config, 'search', '--mode', 'vector', '--json', '--half-life', '0', 'mobile layout checkout page button']).stdout) as { hits: Hit[] }).hits;
      assert.equal(hits[0]?.id, 'css');
      const hybrid = runCli(['-c', m.config, 'search', '--json', 'sqlite database lock']);
      assert.equal(hybrid.stderr, '');
      assert.equal((JSON.parse(hybrid.stdout) as { hits: Hit[] }).hits[0]?.id, 'lock');
      // Running it again embeds nothing and appends nothing.
      const again = JSON.parse(runCli(['-c', m.config, 'rebuild', '--with-model', '--json']).stdout) as { embedded: number };
      assert.equal(again.embedded, 0);
      assert.equal(readFileSync(current, 'utf8').trim().split('\n').length, 4);
      assert.equal(readFileSync(seed, 'utf8'), seedText);
    } finally {
      m.cleanup();
    }
  });

  it('a model that cannot load: clear error, nothing written, keyword search unaffected', () => {
    const m = makeWorld({ model: '/nonexistent/model-folder' });
    try {
      const f = join(m.exportDir, '2026-11_laptop.jsonl');
      writeJsonl(f, [MEMORIES[0]!]);
      const before = readFileSync(f, 'utf8');
      const r = runCli(['-c', m.config, 'rebuild', '--with-model']);
      assert.equal(r.code, 1);
      assert.match(r.stderr, /model folder \/nonexistent\/model-folder does not exist/);
      assert.equal(readFileSync(f, 'utf8'), before);
      const v = runCli(['-c', m.config, 'search', '--mode', 'vector', 'x']);
      assert.equal(v.code, 1);
      assert.ok(existsSync(f));
      const k = runCli(['-c', m.config, 'search', '--mode', 'keyword', '--json', 'sqlite lock']);
      assert.equal((JSON.parse(k.stdout) as { hits: Hit[] }).hits[0]?.id, 'lock');
    } finally {
      m.cleanup();
    }
  });
});
