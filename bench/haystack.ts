/**
 * Sessions ranked in a history of their own per question (`npm run bench:haystack`): the shape of
 * the peers' LongMemEval-S protocol, built from the development set, since its haystacks are
 * not here. Each question gets a fresh cache holding its own sessions and, to make up
 * `--sessions N` (default 50, about an S haystack's count), sessions of other questions drawn
 * by a seeded shuffle; the search is the product's keyword search (JSONL export → cache →
 * search, each question asked at its own date), its top memories reduced to their sessions in
 * order. As in S, the history comes before the question and holds each session once: the others
 * are drawn from sessions that ended by the question's date, topped up with later ones only
 * where too few did, and never one that repeats a turn of the question's own (the oracle keeps
 * some sessions under several questions). `--any-dates`: drawn whatever their dates and turns,
 * as before 2026-12-04's night. The distractors are other people's personal chats, a harder kind
 * than S's mix of those with generic assistant chats: a proxy for the held-out number, not that
 * number.
 *
 * `--stand-in`: also hybrid, with the bench's stand-in encoder (Universal Sentence Encoder lite,
 * bench/use-embedder.ts; the memories embedded once; one to two minutes in all here).
 *
 * `--misses FILE`: each question whose session is not first (the last mode, the first boost, the
 * default recency) as a JSON line: the question, the rank of its session, what came first.
 *
 * After the table: the questions that name a period, by what search tells of it (its memories on
 * the topic first, nothing on this, it holds nothing, time words alone), and whether the period's
 * own memories (the listing the note names) hold the evidence.
 *
 * Usage: npm run bench:haystack [-- --sessions N] [--pref 0,B,…] [--stand-in] [--any-dates] [--misses FILE] [--out FILE]
 * (default --pref: the product's boost and 1)
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config/load.js';
import { encodeEntry } from '../src/export/jsonl.js';
import { PREFERENCE_BOOST, periodStanding, search } from '../src/search/search.js';
import { openCache } from '../src/store/cache.js';
import type { MemoryRecord, SearchMode } from '../src/types.js';
import { prng } from '../test/tools/prng.js';
import { EVAL, embedded, longMemEval, queryEmbedder } from './quality.js';
import { useEmbedder } from './use-embedder.js';

const REPO = resolve(fileURLToPath(import.meta.url), '..', '..', '..');

interface Tally {
  n: number;
  s1: number;
  s5: number;
  s10: number;
  m1: number;
}

export async function runHaystack(opts: { sessions: number; prefs: number[]; standIn?: boolean; anyDates?: boolean; misses?: string }): Promise<string | undefined> {
  if (!existsSync(EVAL)) return undefined;
  const { config } = loadConfig({ configPath: join(REPO, 'config.toml'), env: {} });
  const corpus = longMemEval(Date.parse('2026-11-29T12:00:00.000Z'));
  const embedder = opts.standIn ? await useEmbedder() : undefined;
  if (typeof embedder === 'string') throw new Error(`--stand-in: ${embedder}`);
  const all = embedder ? await embedded(corpus.records, embedder) : corpus.records;
  const embedQuery = embedder ? queryEmbedder(embedder) : undefined;
  const modes: SearchMode[] = embedder ? ['keyword', 'hybrid'] : ['keyword'];
  const bySession = new Map<string, MemoryRecord[]>();
  for (const r of all) {
    const list = bySession.get(r.session_id as string) ?? [];
    list.push(r);
    bySession.set(r.session_id as string, list);
  }
  const pool = [...bySession.keys()];
  const endOf = new Map([...bySession].map(([sid, list]) => [sid, Math.max(...list.map((r) => Date.parse(r.timestamp)))]));
  const settings = [
    { halfLife: 0, weight: 0 },
    { halfLife: config.search.half_life_days, weight: config.search.recency_weight },
  ];
  const tallies = new Map<string, Tally>(); // `${mode}|${pref}|${halfLife}|${type}`
  const count = (key: string, srank: number, rank: number) => {
    const t = tallies.get(key) ?? { n: 0, s1: 0, s5: 0, s10: 0, m1: 0 };
    t.n++;
    if (srank === 1) t.s1++;
    if (srank >= 1 && srank <= 5) t.s5++;
    if (srank >= 1 && srank <= 10) t.s10++;
    if (rank === 1) t.m1++;
    tallies.set(key, t);
  };
  const dir = mkdtempSync(join(tmpdir(), 'memory-haystack-'));
  let haystackMemories = 0;
  let toppedUp = 0;
  const missed: string[] = [];
  // Questions that name a period, by what search told of it (the last mode, the first boost, the default recency).
  const told = new Map<string, { n: number; first: number; inPeriod: number; missedInPeriod: number; sizes: number[] }>();
  try {
    for (const [qi, q] of corpus.queries.entries()) {
      const own = new Set(q.sessions ?? []);
      const random = prng(qi + 1);
      // No copy of the question's own turns among the others: the oracle keeps some sessions under several questions, and a history holds a session once.
      const ownTurns = new Set([...own].flatMap((sid) => (bySession.get(sid) ?? []).map((r) => r.question)));
      const others = pool.filter((sid) => !own.has(sid) && (opts.anyDates || !(bySession.get(sid) ?? []).some((r) => ownTurns.has(r.question))));
      for (let i = others.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1));
        [others[i], others[j]] = [others[j] as string, others[i] as string];
      }
      // The history before the question first (the shuffle's order kept), later sessions only to make up the count.
      const asked = q.now ?? corpus.now;
      const drawn = opts.anyDates ? others : [...others.filter((sid) => (endOf.get(sid) ?? 0) <= asked), ...others.filter((sid) => (endOf.get(sid) ?? 0) > asked)];
      const haystack = [...own, ...drawn.slice(0, Math.max(0, opts.sessions - own.size))];
      if (haystack.some((sid) => !own.has(sid) && (endOf.get(sid) ?? 0) > asked)) toppedUp++;
      const records = haystack.flatMap((sid) => bySession.get(sid) ?? []);
      haystackMemories += records.length;
      const qdir = join(dir, String(qi));
      const exportDir = join(qdir, 'export');
      mkdirSync(exportDir, { recursive: true });
      writeFileSync(join(exportDir, '2026-01_eval.jsonl'), `${records.map(encodeEntry).join('\n')}\n`);
      const { store } = openCache({ dbPath: join(qdir, 'cache.db'), exportDir, model: embedder?.model ?? 'none', dim: 0 });
      const sessionOf = new Map(records.map((r) => [r.id, r.session_id as string]));
      const goldSessions = new Set([...q.gold].map((id) => sessionOf.get(id) ?? id));
      try {
        for (const mode of modes) for (const pref of opts.prefs) {
          for (const { halfLife, weight } of settings) {
            const r = await search(
              { store, now: q.now ?? corpus.now, ...(embedQuery ? { embedQuery } : {}) },
              { query: q.text, mode, filters: {}, topK: 100, halfLifeDays: halfLife, recencyWeight: weight, rrfK: 60, preferenceBoost: pref },
            );
            const sessions = [...new Set(r.hits.map((h) => sessionOf.get(h.id) ?? h.id))];
            const srank = sessions.findIndex((sid) => goldSessions.has(sid)) + 1;
            const rank = r.hits.findIndex((h) => q.gold.has(h.id)) + 1;
            for (const type of ['all', q.type ?? 'other']) count(`${mode}|${pref}|${halfLife}|${type}`, srank, rank);
            const atDefault = mode === modes[modes.length - 1] && pref === opts.prefs[0] && halfLife !== 0;
            if (atDefault && r.period) {
              const { sinceMs, untilMs } = r.period;
              const within = records.filter((x) => Date.parse(x.timestamp) >= sinceMs && Date.parse(x.timestamp) < untilMs);
              const how = { first: 'on the topic', listed: 'time words alone', empty: 'holds nothing', 'off-topic': 'nothing on this' }[periodStanding(r) ?? 'off-topic'];
              const t = told.get(how) ?? { n: 0, first: 0, inPeriod: 0, missedInPeriod: 0, sizes: [] };
              const inPeriod = within.some((x) => q.gold.has(x.id));
              t.n++;
              if (srank === 1) t.first++;
              if (inPeriod) t.inPeriod++;
              if (inPeriod && srank !== 1) t.missedInPeriod++;
              t.sizes.push(within.length);
              told.set(how, t);
            }
            if (opts.misses && srank !== 1 && atDefault) {
              const first = r.hits.find((h) => sessionOf.get(h.id) === sessions[0]);
              const gold = r.hits.find((h) => q.gold.has(h.id)) ?? records.find((x) => q.gold.has(x.id));
              const brief = (h: { question: string; answer: string; timestamp: string } | undefined) => h && `${h.timestamp.slice(0, 10)} ${h.question.slice(0, 300)} ⟶ ${h.answer.slice(0, 200)}`.replace(/\s+/g, ' ');
              missed.push(JSON.stringify({ qi, type: q.type, question: q.text, asked: new Date(q.now ?? corpus.now).toISOString().slice(0, 10), srank, first: brief(first), gold: brief(gold) }));
            }
          }
        }
      } finally {
        store.close();
        rmSync(qdir, { recursive: true, force: true });
      }
      if ((qi + 1) % 100 === 0) process.stderr.write(`haystack: ${qi + 1} of ${corpus.queries.length} questions\n`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (opts.misses) writeFileSync(opts.misses, missed.length > 0 ? `${missed.join('\n')}\n` : '');
  const f = (x: number, n: number) => (x / n).toFixed(3);
  const types = [...new Set([...tallies.keys()].map((k) => k.split('|')[3] as string))].sort((a, b) => (a === 'all' ? -1 : b === 'all' ? 1 : a.localeCompare(b)));
  const lines = [
    `${corpus.queries.length} questions, each in a fresh cache of ${opts.sessions} sessions (its own and others drawn by a seeded shuffle, ${opts.anyDates ? 'whatever their dates and turns' : `none repeating a turn of its own, those that ended by the question's date first; ${toppedUp} questions topped up with later ones`}), ${Math.round(haystackMemories / corpus.queries.length)} memories on average; ${embedder ? `keyword and hybrid (${embedder.model})` : 'keyword'} search, top 100 memories reduced to sessions.`,
    '',
    '| question type | mode | preference boost | half-life | n | session hit@1 | session hit@5 | session hit@10 | memory hit@1 |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const type of types) {
    for (const mode of modes) {
      for (const pref of opts.prefs) {
        for (const { halfLife } of settings) {
          const t = tallies.get(`${mode}|${pref}|${halfLife}|${type}`);
          if (t) lines.push(`| ${type} | ${mode} | ${pref === 0 ? 'no' : pref} | ${halfLife} | ${t.n} | ${f(t.s1, t.n)} | ${f(t.s5, t.n)} | ${f(t.s10, t.n)} | ${f(t.m1, t.n)} |`);
        }
      }
    }
  }
  // What a person is told of a period, and whether the listing it names (its memories, newest first) holds the evidence.
  lines.push(
    '',
    `Questions that name a period (${modes[modes.length - 1]}, default recency), by what search tells of it:`,
    '',
    '| told | n | its session first | the evidence among the period\'s memories | of those, its session not first | the period\'s memories (median) |',
    '|---|---:|---:|---:|---:|---:|',
  );
  for (const how of ['on the topic', 'nothing on this', 'holds nothing', 'time words alone']) {
    const t = told.get(how);
    if (!t) continue;
    const sizes = [...t.sizes].sort((a, b) => a - b);
    lines.push(`| ${how} | ${t.n} | ${t.first} | ${t.inPeriod} | ${t.missedInPeriod} | ${sizes[Math.floor(sizes.length / 2)]} |`);
  }
  return lines.join('\n');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const val = (n: string) => {
    const i = args.indexOf(n);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const pv = val('--pref');
  const table = await runHaystack({ sessions: Number(val('--sessions') ?? 50), prefs: pv === undefined ? [...new Set([PREFERENCE_BOOST, 1])] : pv.split(',').map(Number), standIn: args.includes('--stand-in'), anyDates: args.includes('--any-dates'), ...(val('--misses') ? { misses: val('--misses') as string } : {}) });
  if (table === undefined) {
    process.stdout.write(`bench:haystack: no development set at ${EVAL} (it sits beside the project only in its own workspace and CI); nothing measured\n`);
  } else {
    process.stdout.write(`${table}\n`);
    const out = val('--out');
    if (out) writeFileSync(out, `${table}\n`);
  }
}
