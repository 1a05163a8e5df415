/**
 * Retrieval quality (`npm run bench:quality`): not a test, a measurement. Builds memory
 * corpora from the development set in ../shared/eval/ (LongMemEval oracle, English;
 * JSQuAD test, Japanese) and from a small identifier set written for this project, through
 * the library path a user's search takes (JSONL export → cache → search), and prints
 * hit@1/5/10 and MRR per dataset and slice, for keyword mode and for hybrid with the tiny
 * test model, each at `--half-life 0` and at the default. LongMemEval is dated so that its
 * last session was yesterday. Writes bench/QUALITY.md's "current" table.
 *
 * Usage: npm run bench:quality [-- --out FILE] [--only en|ja|id] [--no-hybrid] [--tune H:W,…]
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { loadConfig } from '../src/config/load.js';
import { loadEmbedder, type Embedder } from '../src/embed/embedder.js';
import { encodeEntry } from '../src/export/jsonl.js';
import { search } from '../src/search/search.js';
import { dbBytes, openCache } from '../src/store/cache.js';
import type { MemoryRecord, SearchMode } from '../src/types.js';
import { IDENTIFIER_MEMORIES, IDENTIFIER_QUERIES } from './identifiers.js';

const here = resolve(fileURLToPath(import.meta.url), '..'); // dist/bench
const REPO = resolve(here, '..', '..');
export const EVAL = resolve(REPO, '..', 'shared', 'eval');
const TINY_MODEL = join(REPO, 'test', 'fixtures', 'tiny-model');
const DAY = 86_400_000;
/** Cache size against JSONL size, per corpus built (printed with the table). */
const sizes: string[] = [];

export interface Query {
  text: string;
  gold: Set<string>;
  slice: string;
}

export interface Corpus {
  name: string;
  records: MemoryRecord[];
  queries: Query[];
  /** Questions whose answer is in no memory (LongMemEval's abstention questions). */
  unanswerable?: string[];
  now: number;
}

function gz(name: string): unknown {
  return JSON.parse(gunzipSync(readFileSync(join(EVAL, name))).toString('utf8'));
}

interface LmeTurn {
  role: string;
  content: string;
  has_answer?: boolean;
}
interface LmeQuestion {
  question_id: string;
  question_type: string;
  question: string;
  haystack_dates: string[] | string;
  haystack_session_ids: string[] | string;
  haystack_sessions: LmeTurn[][];
}

function list(v: string[] | string): string[] {
  if (Array.isArray(v)) return v;
  // Some copies keep these as Python-style list strings: "['a', 'b']".
  return JSON.parse(v.replace(/'/g, '"')) as string[];
}

function lmeDate(s: string): number {
  const m = /^(\d{4})\/(\d{2})\/(\d{2}) \(\w+\) (\d{2}):(\d{2})$/.exec(s.trim());
  if (!m) throw new Error(`unexpected LongMemEval date ${s}`);
  return Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]));
}

/** One memory per user turn and the assistant turn after it, dated by its session; the last session yesterday. */
export function longMemEval(now: number): Corpus {
  const data = gz('longmemeval_oracle.json.gz') as LmeQuestion[];
  const sessions = new Map<string, { date: number; turns: LmeTurn[] }>();
  for (const q of data) {
    const ids = list(q.haystack_session_ids);
    const dates = list(q.haystack_dates);
    ids.forEach((id, i) => {
      if (!sessions.has(id)) sessions.set(id, { date: lmeDate(dates[i] as string), turns: q.haystack_sessions[i] ?? [] });
    });
  }
  const latest = Math.max(...[...sessions.values()].map((s) => s.date));
  const shift = now - DAY - latest;
  const records: MemoryRecord[] = [];
  const evidence = new Map<string, string[]>(); // session → memory ids holding an answer turn
  for (const [sid, s] of sessions) {
    const ev: string[] = [];
    for (let i = 0; i < s.turns.length; i++) {
      const u = s.turns[i] as LmeTurn;
      if (u.role !== 'user') continue;
      const a = s.turns[i + 1];
      const answer = a && a.role === 'assistant' ? a : undefined;
      const id = `${sid}#${i}`;
      const ts = new Date(s.date + shift + i * 60_000).toISOString();
      records.push({ v: 1, id, machine: 'eval', project: 'lme', session_id: sid, timestamp: ts, question: u.content, answer: answer?.content ?? '' });
      if (u.has_answer || answer?.has_answer) ev.push(id);
    }
    evidence.set(sid, ev);
  }
  const queries: Query[] = [];
  const unanswerable: string[] = [];
  for (const q of data) {
    if (q.question_id.endsWith('_abs')) {
      unanswerable.push(q.question);
      continue;
    }
    const gold = new Set(list(q.haystack_session_ids).flatMap((sid) => evidence.get(sid) ?? []));
    if (gold.size === 0) continue;
    queries.push({ text: q.question, gold, slice: q.question_type === 'knowledge-update' ? 'knowledge-update' : 'other' });
  }
  return { name: 'English (LongMemEval oracle)', records, queries, unanswerable, now };
}

interface Squad {
  data: Array<{ title: string; paragraphs: Array<{ context: string; qas: Array<{ question: string }> }> }>;
}

/** A memory per paragraph; the gold memory of a question is its own paragraph. Dated over the last year. */
export function jsquad(now: number): Corpus {
  const d = gz('jsquad-test-v1.3.json.gz') as Squad;
  const records: MemoryRecord[] = [];
  const queries: Query[] = [];
  let n = 0;
  for (const art of d.data) {
    for (const p of art.paragraphs) {
      const id = `jsquad-${n}`;
      // Spread over a year, deterministically (golden-ratio steps), so recency has something to act on.
      const age = ((n * 0.6180339887) % 1) * 365 * DAY;
      records.push({ v: 1, id, machine: 'eval', project: 'jsquad', timestamp: new Date(now - DAY - age).toISOString(), question: `${art.title}についての記述`, answer: p.context });
      for (const qa of p.qas) queries.push({ text: qa.question, gold: new Set([id]), slice: 'all' });
      n++;
    }
  }
  return { name: 'Japanese (JSQuAD test)', records, queries, now };
}

function identifiers(now: number): Corpus {
  const records: MemoryRecord[] = IDENTIFIER_MEMORIES.map((m, i) => ({
    v: 1, id: m.id, machine: 'eval', project: 'ids', timestamp: new Date(now - DAY - i * 7 * DAY).toISOString(), question: m.question, answer: m.answer,
  }));
  const queries = IDENTIFIER_QUERIES.map((q) => ({ text: q.query, gold: new Set([q.expect]), slice: 'all' }));
  return { name: 'Identifiers (bench/identifiers.ts)', records, queries, now };
}

interface Metrics {
  n: number;
  hit1: number;
  hit3: number;
  hit5: number;
  hit10: number;
  mrr: number;
  /** Queries whose gold memory is not in the top 3. */
  misses: string[];
}

function empty(): Metrics {
  return { n: 0, hit1: 0, hit3: 0, hit5: 0, hit10: 0, mrr: 0, misses: [] };
}

interface Setting {
  halfLife: number;
  weight: number;
  spread?: number;
}

async function evaluate(c: Corpus, embedder: Embedder | undefined, modes: SearchMode[], settings: Setting[]): Promise<Array<{ mode: SearchMode; halfLife: number; weight: number; spread?: number; slices: Map<string, Metrics> }>> {
  const dir = mkdtempSync(join(tmpdir(), 'memory-quality-'));
  try {
    const exportDir = join(dir, 'export');
    mkdirSync(exportDir);
    let records = c.records;
    if (embedder) {
      const vectors = await embedder.embedDocuments(records.map((r) => `${r.question}\n${r.answer}`));
      records = records.map((r, i) => ({ ...r, embedding: vectors[i] as Float32Array, model: embedder.model, dim: embedder.dim }));
    }
    writeFileSync(join(exportDir, '2026-01_eval.jsonl'), `${records.map(encodeEntry).join('\n')}\n`);
    const model = embedder?.model ?? 'none';
    const { store } = openCache({ dbPath: join(dir, 'cache.db'), exportDir, model, dim: 0 });
    sizes.push(`${c.name}${embedder ? ' with vectors' : ''}: JSONL ${(statSync(join(exportDir, '2026-01_eval.jsonl')).size / 2 ** 20).toFixed(1)} MB, cache ${(dbBytes(join(dir, 'cache.db')) / 2 ** 20).toFixed(1)} MB`);
    const queryVectors = new Map<string, Float32Array>();
    const out: Array<{ mode: SearchMode; halfLife: number; weight: number; spread?: number; slices: Map<string, Metrics> }> = [];
    try {
      for (const mode of modes) {
        for (const { halfLife, weight, spread } of settings) {
          const slices = new Map<string, Metrics>();
          for (const q of c.queries) {
            const r = await search(
              {
                store,
                now: c.now,
                ...(embedder
                  ? {
                      embedQuery: async (t: string) => {
                        let v = queryVectors.get(t);
                        if (!v) queryVectors.set(t, (v = await embedder.embedQuery(t)));
                        return v;
                      },
                    }
                  : {}),
              },
              { query: q.text, mode, filters: {}, topK: 10, halfLifeDays: halfLife, recencyWeight: weight, ...(spread !== undefined ? { keywordSpread: spread } : {}), rrfK: 60 },
            );
            const rank = r.hits.findIndex((h) => q.gold.has(h.id)) + 1;
            for (const key of q.slice === 'all' ? ['all'] : [q.slice, 'all']) {
              const m = slices.get(key) ?? empty();
              m.n++;
              if (rank === 1) m.hit1++;
              if (rank >= 1 && rank <= 3) m.hit3++;
              if (rank >= 1 && rank <= 5) m.hit5++;
              if (rank >= 1 && rank <= 10) m.hit10++;
              if (rank >= 1) m.mrr += 1 / rank;
              if ((rank === 0 || rank > 3) && key === 'all' && m.misses.length < 50) m.misses.push(`${q.text} (rank ${rank || '>10'})`);
              slices.set(key, m);
            }
          }
          out.push({ mode, halfLife, weight: spread !== undefined ? Number(`${weight}`) : weight, slices, ...(spread !== undefined ? { spread } : {}) });
        }
      }
    } finally {
      store.close();
    }
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const f = (x: number, n: number) => (n === 0 ? '-' : (x / n).toFixed(3));

export async function runQuality(opts: { only?: string; hybrid: boolean; settings?: Setting[] }): Promise<string | undefined> {
  if (!existsSync(EVAL)) return undefined;
  const { config } = loadConfig({ configPath: join(REPO, 'config.toml'), env: {} });
  const defaultHalfLife = config.search.half_life_days;
  const settings: Setting[] = opts.settings ?? [{ halfLife: 0, weight: 0 }, { halfLife: defaultHalfLife, weight: config.search.recency_weight }];
  const now = Date.parse('2026-11-29T12:00:00.000Z');
  const corpora: Corpus[] = [];
  if (!opts.only || opts.only === 'en') corpora.push(longMemEval(now));
  if (!opts.only || opts.only === 'ja') corpora.push(jsquad(now));
  if (!opts.only || opts.only === 'id') corpora.push(identifiers(now));
  const embedder = opts.hybrid ? await loadEmbedder({ model: TINY_MODEL, dtype: 'fp32', queryPrefix: '', documentPrefix: '', cacheDir: join(tmpdir(), 'memory-quality-models'), allowRemote: false, batchSize: 64 }) : undefined;
  const lines = [
    `| dataset | slice | mode | half-life | recency weight | n | hit@1 | hit@5 | hit@10 | MRR |`,
    `|---|---|---|---:|---:|---:|---:|---:|---:|---:|`,
  ];
  const notes: string[] = [];
  for (const c of corpora) {
    const runs = [
      ...(await evaluate(c, undefined, ['keyword'], settings)),
      ...(embedder ? await evaluate(c, embedder, ['hybrid'], settings) : []),
    ];
    for (const r of runs) {
      for (const [slice, m] of [...r.slices].sort(([a], [b]) => (a === 'all' ? -1 : b === 'all' ? 1 : a.localeCompare(b)))) {
        if (slice !== 'all' && r.slices.size <= 2) continue; // one slice only: 'all' says it
        lines.push(`| ${c.name} | ${slice} | ${r.mode} | ${r.halfLife} | ${r.halfLife === 0 ? '-' : r.weight}${r.spread !== undefined ? ` (spread ${r.spread})` : ''} | ${m.n} | ${f(m.hit1, m.n)} | ${f(m.hit5, m.n)} | ${f(m.hit10, m.n)} | ${f(m.mrr, m.n)} |`);
      }
      if (c.name.startsWith('Identifiers')) {
        const m = r.slices.get('all') as Metrics;
        notes.push(`- Identifier set, ${r.mode}, half-life ${r.halfLife}, weight ${r.weight}: ${m.hit3}/${m.n} expected hits in the top 3${m.misses.length > 0 ? `; not: ${m.misses.join('; ')}` : ''}`);
      }
    }
    process.stderr.write(`quality: ${c.name} done (${c.records.length} memories, ${c.queries.length} queries)\n`);
  }
  return [`Sizes: ${sizes.join('; ')}.`, '', `Corpora: ${corpora.map((c) => `${c.name} ${c.records.length} memories / ${c.queries.length} queries`).join('; ')}; default half-life ${defaultHalfLife} days, recency weight ${config.search.recency_weight}; tiny test model for hybrid (static token vectors: measures the plumbing, not a real model's semantics).`, '', ...lines, '', ...notes].join('\n');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const val = (n: string) => {
    const i = args.indexOf(n);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const only = val('--only');
  // --tune "0:0,30:0.02,90:0.05": half-life:weight settings instead of relevance-only and the default.
  const tune = val('--tune');
  const settings = tune
    ? tune.split(',').map((p) => {
        const [h, w, sp] = p.split(':').map(Number);
        return { halfLife: h ?? 0, weight: w ?? 0, ...(sp !== undefined && !Number.isNaN(sp) ? { spread: sp } : {}) };
      })
    : undefined;
  const table = await runQuality({ ...(only ? { only } : {}), hybrid: !args.includes('--no-hybrid'), ...(settings ? { settings } : {}) });
  if (table === undefined) {
    process.stdout.write(`bench:quality: no development set at ${EVAL} (it sits beside the project only in its own workspace and CI); nothing measured\n`);
  } else {
    process.stdout.write(`${table}\n`);
    const out = val('--out');
    if (out) writeFileSync(out, `${table}\n`);
  }
}
