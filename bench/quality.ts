/**
 * Retrieval quality (`npm run bench:quality`): not a test, a measurement. Builds memory
 * corpora from the development set in ../shared/eval/ (LongMemEval oracle, English;
 * JSQuAD test, Japanese) and from a small identifier set written for this project, through
 * the library path a user's search takes (JSONL export → cache → search), and prints
 * hit@1/5/10 and MRR per dataset and slice, for keyword mode and for vector and hybrid with the
 * tiny test model and (English only) the stand-in encoder (use-embedder.ts), each at
 * `--half-life 0` and at the default. LongMemEval is dated so that its
 * last session was yesterday. Writes bench/QUALITY.md's "current" table.
 *
 * Usage: npm run bench:quality [-- --out FILE] [--only en|ja|id] [--no-hybrid] [--modes vector,hybrid] [--strength 0,B,…] [--floor F] [--tune H:W,…] [--columns Q:A:C,…] [--time off,B,B/A,…] [--coverage 0,B,…] [--words 0,B,…] [--pref 0,B,…]
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { loadConfig } from '../src/config/load.js';
import { loadEmbedder, type Embedder } from '../src/embed/embedder.js';
import { encodeEntry } from '../src/export/jsonl.js';
import { AFTER_PERIOD_BOOST, PAIR_COVERAGE_BOOST, PERIOD_BOOST, PREFERENCE_BOOST, WORDS_COVERAGE_BOOST, search } from '../src/search/search.js';
import { readTime } from '../src/search/when.js';
import { modelStrength } from '../src/search/fuse.js';
import { useEmbedder } from './use-embedder.js';

/** --floor F: the vector list's floor (fuse.ts VECTOR_FLOOR) for this run. */
const VECTOR_FLOOR_OVERRIDE = ((i) => (i >= 0 ? Number(process.argv[i + 1]) : undefined))(process.argv.indexOf('--floor'));
import { dbBytes, openCache } from '../src/store/cache.js';
import { COLUMN_WEIGHTS, type ColumnWeights } from '../src/store/schema.js';
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
  /** When the question is asked (LongMemEval: its question_date), else the corpus's now. */
  now?: number;
  /** LongMemEval: the question's type and the sessions of its own history (haystack.ts). */
  type?: string;
  sessions?: string[];
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
  question_date: string;
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

/** One memory per user turn and the assistant turn after it, dated by its session; each question asked at its question_date. */
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
  // Memories keep their sessions' dates and every question is asked at its own date, so
  // "last week" or "in May" in a question means what it meant to the person asking.
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
      const ts = new Date(s.date + i * 60_000).toISOString();
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
    queries.push({ text: q.question, gold, slice: q.question_type === 'knowledge-update' ? 'knowledge-update' : q.question_type === 'single-session-preference' ? 'preference' : 'other', now: lmeDate(q.question_date), type: q.question_type, sessions: list(q.haystack_session_ids) });
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
  /** Hits reduced to their sessions (the peer's protocol): the gold memory's session first / in the first 5. */
  sess1: number;
  sess5: number;
  /** Queries whose gold memory is not in the top 3. */
  misses: string[];
}

function empty(): Metrics {
  return { n: 0, hit1: 0, hit3: 0, hit5: 0, hit10: 0, mrr: 0, sess1: 0, sess5: 0, misses: [] };
}

interface Setting {
  halfLife: number;
  weight: number;
  spread?: number;
}

interface TimeBoost {
  period: number;
  after: number;
}
const DEFAULT_TIME: TimeBoost = { period: PERIOD_BOOST, after: AFTER_PERIOD_BOOST };

interface Run {
  mode: SearchMode;
  halfLife: number;
  weight: number;
  spread?: number;
  /** Column weights of the keyword index (q:a:context), when not the default. */
  columns?: string;
  /** Periods read from the questions (search/when.ts), with these boosts (the period's, the days after it); false: not read. */
  time: TimeBoost | false;
  /** Japanese and Chinese questions' term coverage boost (search.ts byCoverage; 0: none). */
  coverage: number;
  /** Other questions' words coverage boost (search.ts byCoverage; 0: none). */
  words: number;
  /** Advice questions' boost of the person's own statements (search.ts bySelf; 0: none). */
  pref: number;
  /** The embedding model (its last path part), '-' for keyword runs. */
  model: string;
  /** Hybrid: the vector list's strength (fuse.ts vectorWeight). */
  strength: number | undefined;
  slices: Map<string, Metrics>;
}

/** The records with their vectors by `embedder` (question and answer, as the product embeds a memory). */
export async function embedded(records: MemoryRecord[], embedder: Embedder): Promise<MemoryRecord[]> {
  const vectors = await embedder.embedDocuments(records.map((r) => `${r.question}\n${r.answer}`));
  return records.map((r, i) => ({ ...r, embedding: vectors[i] as Float32Array, model: embedder.model, dim: embedder.dim }));
}

/** A search's `embedQuery` that embeds each question once, however many runs ask it. */
export function queryEmbedder(embedder: Embedder): (text: string) => Promise<Float32Array> {
  const vectors = new Map<string, Float32Array>();
  return async (t) => {
    let v = vectors.get(t);
    if (!v) vectors.set(t, (v = await embedder.embedQuery(t)));
    return v;
  };
}

async function evaluate(c: Corpus, embedder: Embedder | undefined, modes: SearchMode[], settings: Setting[], columns: Array<ColumnWeights | undefined> = [undefined], times: Array<TimeBoost | false> = [DEFAULT_TIME], coverages: number[] = [PAIR_COVERAGE_BOOST], wordsBoosts: number[] = [WORDS_COVERAGE_BOOST], prefs: number[] = [PREFERENCE_BOOST], strengths: Array<number | undefined> = [undefined]): Promise<Run[]> {
  const dir = mkdtempSync(join(tmpdir(), 'memory-quality-'));
  try {
    const exportDir = join(dir, 'export');
    mkdirSync(exportDir);
    const records = embedder ? await embedded(c.records, embedder) : c.records;
    writeFileSync(join(exportDir, '2026-01_eval.jsonl'), `${records.map(encodeEntry).join('\n')}\n`);
    const model = embedder?.model ?? 'none';
    const { store } = openCache({ dbPath: join(dir, 'cache.db'), exportDir, model, dim: 0 });
    sizes.push(`${c.name}${embedder ? ' with vectors' : ''}: JSONL ${(statSync(join(exportDir, '2026-01_eval.jsonl')).size / 2 ** 20).toFixed(1)} MB, cache ${(dbBytes(join(dir, 'cache.db')) / 2 ** 20).toFixed(1)} MB`);
    const embedQuery = embedder ? queryEmbedder(embedder) : undefined;
    const sessionOf = new Map(c.records.filter((r) => r.session_id).map((r) => [r.id, r.session_id as string]));
    const out: Run[] = [];
    try {
      for (const cw of columns) {
      store.weighColumns(cw ?? COLUMN_WEIGHTS);
      const columnsLabel = cw ? `${cw.question}:${cw.answer}:${cw.context}` : undefined;
      for (const time of times) {
      for (const coverage of coverages) {
      for (const words of wordsBoosts) {
      for (const pref of prefs) {
      for (const mode of modes) {
      for (const strength of mode === 'hybrid' ? strengths : [undefined]) {
        for (const { halfLife, weight, spread } of settings) {
          const slices = new Map<string, Metrics>();
          for (const q of c.queries) {
            const r = await search(
              {
                store,
                now: q.now ?? c.now,
                ...(embedQuery ? { embedQuery } : {}),
              },
              { query: q.text, mode, filters: {}, topK: 10, halfLifeDays: halfLife, recencyWeight: weight, ...(spread !== undefined ? { keywordSpread: spread } : {}), rrfK: 60, readTime: time !== false, ...(time !== false ? { periodBoost: time.period, afterPeriodBoost: time.after } : {}), coverageBoost: coverage, wordsBoost: words, preferenceBoost: pref, ...(strength !== undefined ? { vectorStrength: strength } : {}), ...(VECTOR_FLOOR_OVERRIDE !== undefined ? { vectorFloor: VECTOR_FLOOR_OVERRIDE } : {}) },
            );
            const rank = r.hits.findIndex((h) => q.gold.has(h.id)) + 1;
            const sessions = [...new Set(r.hits.map((h) => sessionOf.get(h.id) ?? h.id))];
            const goldSessions = new Set([...q.gold].map((id) => sessionOf.get(id) ?? id));
            const srank = sessions.findIndex((sid) => goldSessions.has(sid)) + 1;
            const named = readTime(q.text, q.now ?? c.now).period ? ['names a time'] : [];
            for (const key of [...(q.slice === 'all' ? ['all'] : [q.slice, 'all']), ...named]) {
              const m = slices.get(key) ?? empty();
              m.n++;
              if (rank === 1) m.hit1++;
              if (rank >= 1 && rank <= 3) m.hit3++;
              if (rank >= 1 && rank <= 5) m.hit5++;
              if (rank >= 1 && rank <= 10) m.hit10++;
              if (rank >= 1) m.mrr += 1 / rank;
              if (srank === 1) m.sess1++;
              if (srank >= 1 && srank <= 5) m.sess5++;
              if ((rank === 0 || rank > 3) && key === 'all' && m.misses.length < 50) m.misses.push(`${q.text} (rank ${rank || '>10'})`);
              slices.set(key, m);
            }
          }
          out.push({ mode, model: embedder ? embedder.model.split(/[\\/]/).pop() ?? embedder.model : '-', strength: mode === 'hybrid' ? (strength ?? modelStrength(embedder?.model)) : undefined, halfLife, weight, time, coverage, words, pref, slices, ...(spread !== undefined ? { spread } : {}), ...(columnsLabel ? { columns: columnsLabel } : {}) });
        }
      }
      }
      }
      }
      }
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

const defaultColumns = `${COLUMN_WEIGHTS.question}:${COLUMN_WEIGHTS.answer}:${COLUMN_WEIGHTS.context}`;
const f = (x: number, n: number) => (n === 0 ? '-' : (x / n).toFixed(3));

export async function runQuality(opts: { only?: string; hybrid: boolean; settings?: Setting[]; columns?: ColumnWeights[]; times?: Array<TimeBoost | false>; coverages?: number[]; words?: number[]; prefs?: number[]; strengths?: Array<number | undefined>; modes?: SearchMode[] }): Promise<string | undefined> {
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
  // The bench's stand-in for a real model (English): Universal Sentence Encoder lite.
  const standIn = opts.hybrid && (!opts.only || opts.only === 'en') ? await useEmbedder() : undefined;
  const modes: SearchMode[] = opts.modes ?? ['vector', 'hybrid'];
  const lines = [
    `| dataset | slice | mode | model | vector strength | half-life | recency weight | columns q:a:ctx | period boost | pairs boost | words boost | preference boost | n | hit@1 | hit@5 | hit@10 | MRR | session hit@1 | session hit@5 |`,
    `|---|---|---|---|---:|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|`,
  ];
  const notes: string[] = [];
  for (const c of corpora) {
    const runs = [
      ...(await evaluate(c, undefined, ['keyword'], settings, opts.columns, opts.times, opts.coverages, opts.words, opts.prefs)),
      ...(embedder ? await evaluate(c, embedder, modes, settings, opts.columns, opts.times, opts.coverages, opts.words, opts.prefs, opts.strengths) : []),
      ...(c.name.startsWith('English') && standIn && typeof standIn !== 'string' ? await evaluate(c, standIn, modes, settings, opts.columns, opts.times, opts.coverages, opts.words, opts.prefs, opts.strengths) : []),
    ];
    if (c.name.startsWith('English') && typeof standIn === 'string') notes.push(`- ${c.name}: ${standIn}`);
    for (const r of runs) {
      for (const [slice, m] of [...r.slices].sort(([a], [b]) => (a === 'all' ? -1 : b === 'all' ? 1 : a.localeCompare(b)))) {
        if (slice !== 'all' && slice !== 'names a time' && r.slices.size <= 2) continue; // one slice only: 'all' says it
        lines.push(`| ${c.name} | ${slice} | ${r.mode} | ${r.model} | ${r.strength ?? '-'} | ${r.halfLife} | ${r.halfLife === 0 ? '-' : r.weight}${r.spread !== undefined ? ` (spread ${r.spread})` : ''} | ${r.columns ?? defaultColumns} | ${r.time === false ? 'no' : `×${r.time.period}${r.time.after === 1 ? '' : `, after ×${r.time.after}`}`} | ${r.coverage === 0 ? 'no' : r.coverage} | ${r.words === 0 ? 'no' : r.words} | ${r.pref === 0 ? 'no' : r.pref} | ${m.n} | ${f(m.hit1, m.n)} | ${f(m.hit5, m.n)} | ${f(m.hit10, m.n)} | ${f(m.mrr, m.n)} | ${f(m.sess1, m.n)} | ${f(m.sess5, m.n)} |`);
      }
      if (c.name.startsWith('Identifiers')) {
        const m = r.slices.get('all') as Metrics;
        notes.push(`- Identifier set, ${r.mode}${r.mode === 'keyword' ? '' : ` (${r.model}${r.strength !== undefined ? `, strength ${r.strength}` : ''})`}, half-life ${r.halfLife}, weight ${r.weight}, columns ${r.columns ?? defaultColumns}: ${m.hit3}/${m.n} expected hits in the top 3${m.misses.length > 0 ? `; not: ${m.misses.join('; ')}` : ''}`);
      }
    }
    process.stderr.write(`quality: ${c.name} done (${c.records.length} memories, ${c.queries.length} queries)\n`);
  }
  return [`Sizes: ${sizes.join('; ')}.`, '', `Corpora: ${corpora.map((c) => `${c.name} ${c.records.length} memories / ${c.queries.length} queries`).join('; ')}; default half-life ${defaultHalfLife} days, recency weight ${config.search.recency_weight}; tiny test model (static token vectors: measures the plumbing, not a real model's semantics) and, for English, Universal Sentence Encoder lite (use-lite-en, bench/use-embedder.ts) as the stand-in for a real but weak model.`, '', ...lines, '', ...notes].join('\n');
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
  // --columns "2:0.75:0,2:2:0.6": bm25 weights question:answer:context, one run each.
  const cols = val('--columns');
  const columns = cols
    ? cols.split(',').map((p) => {
        const [question, answer, context] = p.split(':').map(Number);
        return { question: question ?? 2, answer: answer ?? 0.75, context: context ?? 0 };
      })
    : undefined;
  // --time off,1.5,1.3/1.2: periods not read, or read with these boosts: the period's, and after
  // a slash the days after it's (1: none; default: the product's boosts).
  const t = val('--time');
  const times = t === undefined ? [DEFAULT_TIME] : t.split(',').map((x): TimeBoost | false => {
    if (x === 'off') return false;
    const [period, after] = x.split('/').map(Number);
    return { period: period ?? PERIOD_BOOST, after: after ?? AFTER_PERIOD_BOOST };
  });
  // --coverage 0,1,2: Japanese and Chinese questions' term coverage boosts (0: none; default: the product's).
  const cv = val('--coverage');
  const coverages = cv === undefined ? [PAIR_COVERAGE_BOOST] : cv.split(',').map(Number);
  // --words 0,0.25: other questions' words coverage boosts (0: none; default: the product's).
  const wv = val('--words');
  const words = wv === undefined ? [WORDS_COVERAGE_BOOST] : wv.split(',').map(Number);
  // --pref 0,1: advice questions' boost of the person's own statements (0: none; default: the product's).
  const pv = val('--pref');
  const prefs = pv === undefined ? [PREFERENCE_BOOST] : pv.split(',').map(Number);
  // --strength 0,0.5,1: the vector list's strength in hybrid (default: the model's measured one, fuse.ts MODEL_STRENGTH).
  const sv = val('--strength');
  const strengths = sv === undefined ? [undefined] : sv.split(',').map(Number);
  // --modes hybrid: which model-using modes to run (default vector,hybrid).
  const mv = val('--modes');
  const table = await runQuality({ strengths, ...(mv ? { modes: mv.split(',') as SearchMode[] } : {}), times, coverages, words, prefs, ...(only ? { only } : {}), hybrid: !args.includes('--no-hybrid'), ...(settings ? { settings } : {}), ...(columns ? { columns } : {}) });
  if (table === undefined) {
    process.stdout.write(`bench:quality: no development set at ${EVAL} (it sits beside the project only in its own workspace and CI); nothing measured\n`);
  } else {
    process.stdout.write(`${table}\n`);
    const out = val('--out');
    if (out) writeFileSync(out, `${table}\n`);
  }
}
