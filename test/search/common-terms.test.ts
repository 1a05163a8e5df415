/**
 * Terms held by half the memories weigh nothing in bm25, so queries rank without them
 * (search/common-terms.ts), counted now and then (store/term-docs.ts); per-prompt recall
 * searches only for memories that could clear its floor. Real SQLite, real JSONL.
 */
import assert from 'node:assert/strict';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { encodeEntry } from '../../src/export/jsonl.js';
import { buildKeywordQuery, toFts } from '../../src/search/query.js';
import { DEFAULT_MIN_COVERAGE, DEFAULT_MIN_RARE_WORDS, recall, recallCandidates, selectRecalled } from '../../src/search/recall.js';
import { search } from '../../src/search/search.js';
import { splitCommon } from '../../src/search/common-terms.js';
import { openCache } from '../../src/store/cache.js';
import { PAGE_SIZE } from '../../src/store/database.js';
import { ownText } from '../../src/store/schema.js';
import type { Store } from '../../src/store/store.js';
import type { MemoryRecord } from '../../src/types.js';
import { tempDir, writeJsonl } from '../support/helpers.js';

/** A made-up word for every number (syllables the stemmer leaves alone). */
function word(k: number): string {
  const syl = (n: number) => `${'bdfgklmnprtvz'[n % 13]}${'aou'[Math.floor(n / 13) % 3]}`;
  return `${syl(k % 39)}${syl(Math.floor(k / 39) % 39)}${syl(Math.floor(k / 1521) % 39)}`;
}

/**
 * `n` memories, every one holding "widget" (a term in all of them), one in three "gadget"
 * (with its neighbours, in most), three of sixty topic words and two words of its own.
 * Memories 0–5 also hold "zanzibar", with different lengths (different bm25 scores); memory 7
 * holds the Japanese 設定 too.
 */
function memories(n: number, from = 0): MemoryRecord[] {
  const out: MemoryRecord[] = [];
  for (let i = from; i < from + n; i++) {
    const topic = [word(i % 60), word(((i * 7) % 60) + 60), word(((i * 11) % 60) + 120)].join(' ');
    const extra = i < 6 ? ` zanzibar${' filler'.repeat(i * 3)}` : '';
    out.push({
      v: 1, id: `m-${i}`, machine: 'laptop', project: 'app', session_id: `s-${Math.floor(i / 10)}`,
      timestamp: new Date(Date.UTC(2026, 10, 1) + i * 60_000).toISOString(),
      question: `widget ${i % 3 === 0 ? 'gadget ' : ''}question about ${topic} ${own(i)}${extra}`,
      answer: `The widget answer for ${topic}${i === 7 ? ' 設定を変えた' : ''}.`,
    });
  }
  return out;
}

/** The two words only memory `i` holds. */
const own = (i: number) => `${word(2000 + i)} ${word(30000 + i)}`;

function cacheWith(n: number): { store: Store; dbPath: string; exportDir: string; close: () => void } {
  return cacheOf(memories(n));
}

/** A fresh cache of these memories (one JSONL file); close() closes it and removes it all. */
function cacheOf(entries: MemoryRecord[]): { store: Store; dbPath: string; exportDir: string; close: () => void } {
  const d = tempDir();
  const exportDir = join(d.dir, 'export');
  writeJsonl(join(exportDir, '2026-11_laptop.jsonl'), entries);
  const dbPath = join(d.dir, 'cache.db');
  const { store } = openCache({ dbPath, exportDir, model: 'none', dim: 0 });
  return { store, dbPath, exportDir, close: () => { if (store.db.open) store.close(); d.cleanup(); } };
}

const listed = (s: Store) => s.db.prepare<[], { term: string; docs: number }>('SELECT term, docs FROM term_docs ORDER BY term').all();
const countedAt = (s: Store) => s.db.prepare<[], { value: string }>("SELECT value FROM meta WHERE key = 'term_docs_n'").get()?.value;

/** The ranking FTS5 gives the query as written (every term), best first. */
function asWritten(s: Store, query: string, limit: number): number[] {
  const q = buildKeywordQuery(query);
  return s.db.prepare<[string, number], { rowid: number }>('SELECT rowid FROM memories_fts WHERE memories_fts MATCH ? ORDER BY rank LIMIT ?').all(q.match as string, limit).map((r) => r.rowid);
}

/** Keyword search by bm25 alone (no share-of-the-question boost: search.ts byCoverage), which is what leaving terms out must keep. */
async function keywordIds(s: Store, query: string, topK: number): Promise<string[]> {
  const r = await search({ store: s, now: Date.UTC(2026, 10, 30) }, { query, mode: 'keyword', filters: {}, topK, halfLifeDays: 0, rrfK: 60, wordsBoost: 0, coverageBoost: 0 });
  return r.hits.map((h) => h.id);
}

describe('common terms are counted', () => {
  it('after a full rebuild: the terms in at least 5% of the memories, with how many hold each', () => {
    const c = cacheWith(1200);
    try {
      const terms = new Map(listed(c.store).map((t) => [t.term, t.docs]));
      const holding = (t: string) => c.store.db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM memories_fts WHERE memories_fts MATCH ?').get(toFts(t))?.n;
      assert.equal(terms.get('widget'), 1200);
      // A term counts where FTS5 finds it: a memory's own text or its neighbours'.
      assert.equal(terms.get('gadget'), holding('gadget'));
      assert.ok((terms.get('gadget') ?? 0) > 600 && (terms.get('gadget') ?? 0) < 1200);
      assert.ok((holding(word(0)) ?? 0) < 60 && !terms.has(word(0)), 'a topic word in fewer than 5%: not listed');
      assert.equal(terms.has('zanzibar'), false, 'six memories of 1200: not listed');
      assert.equal(terms.has('設定'), false);
      assert.equal(countedAt(c.store), '1200');
    } finally {
      c.close();
    }
  });

  it('again once the memories grew by a quarter, not on a no-op or a small growth; nothing under a thousand memories', () => {
    const c = cacheWith(1200);
    try {
      c.store.close();
      const open = () => openCache({ dbPath: c.dbPath, exportDir: c.exportDir, model: 'none', dim: 0 });
      const file = join(c.exportDir, '2026-11_laptop.jsonl');
      let r = open();
      assert.equal(r.result.lines_read, 0);
      assert.equal(countedAt(r.store), '1200', 'no-op: not counted again');
      r.store.close();
      appendFileSync(file, memories(100, 1200).map((m) => `${encodeEntry(m)}\n`).join(''));
      r = open();
      assert.equal(r.result.lines_read, 100);
      assert.equal(countedAt(r.store), '1200', '1300 is less than a quarter more');
      r.store.close();
      appendFileSync(file, memories(300, 1300).map((m) => `${encodeEntry(m)}\n`).join(''));
      r = open();
      assert.equal(countedAt(r.store), '1600');
      assert.equal(new Map(listed(r.store).map((t) => [t.term, t.docs])).get('widget'), 1600);
      r.store.close();
    } finally {
      c.close();
    }
    const small = cacheWith(300);
    try {
      assert.deepEqual(listed(small.store), []);
      assert.equal(countedAt(small.store), undefined);
    } finally {
      small.close();
    }
  });

  it('a fresh cache has 16 KB pages, and its keyword index is left with FTS5\'s own write settings', () => {
    const c = cacheWith(1200);
    try {
      assert.equal(c.store.db.pragma('page_size', { simple: true }), PAGE_SIZE);
      const cfg = new Map(c.store.db.prepare<[], { k: string; v: number }>('SELECT k, v FROM memories_fts_config').all().map((r) => [r.k, r.v]));
      assert.equal(cfg.get('hashsize'), 1024 * 1024);
      assert.equal(cfg.get('automerge'), 4);
    } finally {
      c.close();
    }
  });
});

describe('queries rank without the terms half the memories hold', () => {
  it('those terms are left out, the others kept; a query of nothing but them is kept whole', () => {
    const c = cacheWith(1200);
    try {
      const topic = word(0);
      assert.deepEqual(splitCommon(c.store, ['widget', 'gadget', 'zanzibar', `${topic} ${word(60)}`, 'widg*', topic]), { kept: ['zanzibar', `${topic} ${word(60)}`, 'widg*', topic], common: ['widget', 'gadget'] });
      assert.deepEqual(splitCommon(c.store, ['widget', 'gadget']), { kept: ['widget', 'gadget'], common: [] });
      assert.deepEqual(splitCommon(c.store, ['zanzibar', topic]), { kept: ['zanzibar', topic], common: [] });
    } finally {
      c.close();
    }
  });

  it('the memories holding a weighted term come in the order bm25 gives the whole query, then those holding only weightless ones', async () => {
    const c = cacheWith(1200);
    try {
      const rowids = asWritten(c.store, 'widget gadget zanzibar', 6);
      const idOf = new Map(c.store.db.prepare<[], { rowid: number; id: string }>('SELECT rowid, id FROM memories').all().map((r) => [r.rowid, r.id]));
      const expected = rowids.map((r) => idOf.get(r) as string);
      assert.deepEqual(new Set(expected), new Set(['m-0', 'm-1', 'm-2', 'm-3', 'm-4', 'm-5']));
      const got = await keywordIds(c.store, 'widget gadget zanzibar', 10);
      assert.deepEqual(got.slice(0, 6), expected);
      // Fewer hold "zanzibar" than were asked for: memories holding only widget or gadget follow.
      assert.equal(got.length, 10);
      for (const id of got.slice(6)) assert.ok(!expected.includes(id), id);
    } finally {
      c.close();
    }
  });

  it('a query of weightless terms only is searched as written', async () => {
    const c = cacheWith(1200);
    try {
      const got = await keywordIds(c.store, 'widget gadget', 5);
      assert.equal(got.length, 5);
      const gadget = new Set(c.store.ftsUnranked(toFts('gadget'), {}, 5000));
      const rowOf = new Map(c.store.db.prepare<[], { rowid: number; id: string }>('SELECT rowid, id FROM memories').all().map((r) => [r.id, r.rowid]));
      for (const id of got) assert.ok(gadget.has(rowOf.get(id) as number), `${id} holds both words`);
    } finally {
      c.close();
    }
  });

  it('leaving a session out ranks the rest of the index, as many as asked for', () => {
    const c = cacheWith(1200);
    try {
      const q = buildKeywordQuery('zanzibar').match as string;
      const session0 = new Set(c.store.sessionRowids('s-0'));
      assert.equal(session0.size, 10);
      assert.ok(c.store.fts(q, {}, 10).length >= 6);
      assert.deepEqual(c.store.fts(q, { notSession: 's-0' }, 10), [], 'every memory holding zanzibar, and its neighbours, is in session s-0');
      const topic = toFts(word(0));
      const rest = c.store.fts(topic, { notSession: 's-0' }, 25).map((r) => r.rowid);
      assert.equal(rest.length, 25);
      for (const r of rest) assert.ok(!session0.has(r));
      assert.deepEqual(rest, c.store.fts(topic, {}, 60).map((r) => r.rowid).filter((r) => !session0.has(r)).slice(0, 25));
    } finally {
      c.close();
    }
  });
});

describe('recall searches only for memories that could clear its floor', () => {
  it('recalls what every candidate measured would have recalled', () => {
    const c = cacheWith(1200);
    try {
      const floor = { minCoverage: DEFAULT_MIN_COVERAGE, minRareWords: DEFAULT_MIN_RARE_WORDS };
      const prompts = [
        `the widget question about ${own(40)}`,
        `widget gadget question about ${word(3)} ${word(81)} and ${own(903)}`,
        `zanzibar ${own(2)} widget filler`,
        `widget 設定を変えた ${word(7)} ${own(7)}`,
        `${word(5)} ${word(95)} ${word(175)} widget`,
        'add a test for the parser',
        'widget gadget',
      ];
      let recalledSomething = 0;
      for (const prompt of prompts) {
        const opts = { prompt, maxItems: 3, ...floor, candidates: 1200 };
        const every = recallCandidates(c.store, { prompt, candidates: 1200 });
        const expected = selectRecalled(every.cands, every.terms, opts).map((h) => h.row.id);
        const got = recall(c.store, opts).map((h) => h.row.id);
        assert.deepEqual(got, expected, prompt);
        if (got.length > 0) recalledSomething++;
      }
      assert.ok(recalledSomething >= 2, `recalled for ${recalledSomething} prompts`);
    } finally {
      c.close();
    }
  });

  it('the memory holding all of a prompt is found though its rarest word is held, more often, by more memories than are measured', () => {
    const [H, L1, L2, L3, L4] = [word(50000), word(50001), word(50002), word(50003), word(50004)];
    const entries: MemoryRecord[] = [];
    const add = (question: string, answer: string) => entries.push({ v: 1, id: `x-${entries.length}`, machine: 'laptop', timestamp: new Date(Date.UTC(2026, 10, 1) + entries.length * 60_000).toISOString(), question, answer });
    for (let i = 0; i < 1100; i++) add(`widget note ${own(i)}`, `plain text ${word(i % 60)}`);
    for (let i = 0; i < 39; i++) add(`${H} ${H} ${H} ${H} ${H}`, 'short');
    for (const L of [L1, L2, L3, L4]) for (let i = 0; i < 49; i++) add(`${L} ${own(5000 + entries.length)}`, 'short');
    add(`widget about ${H} ${L1} ${L2} ${L3} ${L4}`, 'the answer');
    const target = `x-${entries.length - 1}`;
    const { store, close } = cacheOf(entries);
    try {
      const rowOf = store.db.prepare<[string], { rowid: number }>('SELECT rowid FROM memories WHERE id = ?').get(target)?.rowid;
      // Its rarest word alone ranks 39 other memories above it: past the 20 measured.
      assert.ok(!store.fts(toFts(H), {}, 20).some((r) => r.rowid === rowOf));
      const got = recall(store, { prompt: `what did we say about ${H} ${L1} ${L2} ${L3} ${L4}`, maxItems: 3, minCoverage: DEFAULT_MIN_COVERAGE, minRareWords: DEFAULT_MIN_RARE_WORDS });
      assert.deepEqual(got.map((h) => h.row.id), [target]);
      assert.equal(got[0]?.coverage, 1);
    } finally {
      close();
    }
  });

  it("which candidates hold a term in their own text: the same asked of a small table of their own as of the index", () => {
    const texts: Array<[string, string]> = [
      ['widget 設定を変えた', 'the answer mentions gadgets and Café crème'],
      ['認証エラーの原因は？', 'トークンの有効期限切れ。DBの移行も必要'],
      ['better-sqlite3 with useEffect', 'StrictMode mounts twice; see src/App.tsx'],
      ['plain question', 'nothing else here'],
      ['NAÏVE résumé', 'zanzibar widget widget'],
    ];
    const entries: MemoryRecord[] = texts.map(([question, answer], i) => ({
      v: 1, id: `o-${i}`, machine: 'laptop', session_id: 's-own', timestamp: new Date(Date.UTC(2026, 10, 1) + i * 60_000).toISOString(), question, answer,
    }));
    const { store, close } = cacheOf(entries);
    try {
      const rows = [...store.rowsByRowid([1, 2, 3, 4, 5]).values()];
      assert.equal(rows.length, 5);
      const terms = buildKeywordQuery('widget gadget 設定 認* 証エ DB better-sqlite3 use effect cafe naive zanzibar neighbour twice').terms;
      const matches = terms.map((t) => ownText(toFts(t)));
      const inIndex = matches.map((m) =>
        store.db.prepare<[string], { rowid: number }>('SELECT rowid FROM memories_fts WHERE memories_fts MATCH ? ORDER BY rowid').all(m).map((r) => r.rowid),
      );
      const among = store.matchesAmong(rows, matches).map((ids) => [...ids].sort((a, b) => a - b));
      assert.deepEqual(among, inIndex);
      // Positive: own text only (memory 2's neighbour holds 設定, memory 4's widget; they do not).
      const at = (t: string) => among[terms.indexOf(t)];
      assert.deepEqual(at('widget'), [1, 5]);
      assert.deepEqual(at('設定'), [1]);
      assert.deepEqual(at('cafe'), [1]);
      assert.ok((at('better sqlite3') ?? []).includes(3));
      // Nothing is left behind between calls.
      assert.deepEqual(store.matchesAmong([rows[1] as (typeof rows)[number]], [matches[0] as string]), [[]]);
    } finally {
      close();
    }
  });
});
