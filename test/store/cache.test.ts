import assert from 'node:assert/strict';
import { appendFileSync, existsSync, readFileSync, rmSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { encodeEntry } from '../../src/export/jsonl.js';
import { loadEmbedder } from '../../src/embed/embedder.js';
import { embedPending } from '../../src/maintain/embed-pending.js';
import { CacheDeferred, openCache, openCacheAsIs, type CacheOptions } from '../../src/store/cache.js';
import { modelStrength, VECTOR_FLOOR, vectorWeight } from '../../src/search/fuse.js';
import { search } from '../../src/search/search.js';
import { isSqliteError, newConnection, openDatabase } from '../../src/store/store.js';
import type { MemoryRecord } from '../../src/types.js';
import { rec, tempDir, TINY_MODEL, writeJsonl } from '../support/helpers.js';

let dir: string;
let cleanup: () => void;
let opts: CacheOptions;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  opts = { dbPath: join(dir, '.cache', 'memory.db'), exportDir: join(dir, 'export'), model: 'm', dim: 0 };
});
afterEach(() => cleanup());

function sync(extra: Partial<CacheOptions> = {}) {
  const { store, result } = openCache({ ...opts, ...extra });
  const ids = store.recent(undefined, 1000).map((r) => r.id).sort();
  const dim = store.dim;
  store.close();
  return { result, ids, dim };
}

const vec = (...xs: number[]) => {
  const v = Float32Array.from(xs);
  const n = Math.hypot(...xs);
  return v.map((x) => x / n);
};

describe('cache: incremental ingest', () => {
  it('builds from scratch first, then reads only appended bytes', () => {
    const f = join(opts.exportDir, '2026-11_laptop.jsonl');
    writeJsonl(f, [rec({ id: 'a', question: 'first question here', answer: 'first answer here' })]);
    const first = sync();
    assert.equal(first.result.full, true);
    assert.equal(first.result.reason, 'no cache yet');
    assert.deepEqual(first.ids, ['a']);

    const noop = sync();
    assert.equal(noop.result.full, false);
    assert.equal(noop.result.files_read, 0);

    appendFileSync(f, `${encodeEntry(rec({ id: 'b', question: 'second question', answer: 'second answer' }))}\n`);
    const inc = sync();
    assert.equal(inc.result.full, false);
    assert.equal(inc.result.lines_read, 1, 'only the appended line is read');
    assert.deepEqual(inc.ids, ['a', 'b']);
    assert.equal(inc.result.records, 2);
  });

  it('a hook\'s bound (maxBytes): more to read is served as it was, marked deferred, and no cache yet is CacheDeferred; the next unbounded run catches up', () => {
    const f = join(opts.exportDir, '2026-11_laptop.jsonl');
    writeJsonl(f, [rec({ id: 'a', question: 'a question about the bounded cache', answer: 'an answer of some length' })]);
    assert.throws(() => sync({ maxBytes: 10 }), CacheDeferred, 'no cache yet, more than the bound');
    assert.equal(existsSync(opts.dbPath), false, 'nothing built');
    assert.deepEqual(sync({ maxBytes: 1_000_000 }).ids, ['a'], 'within the bound: built');
    appendFileSync(f, `${encodeEntry(rec({ id: 'b', question: 'second question', answer: 'second answer' }))}\n`);
    const held = sync({ maxBytes: 10 });
    assert.equal(held.result.deferred, true);
    assert.deepEqual(held.ids, ['a'], 'as it was');
    const caught = sync();
    assert.equal(caught.result.deferred, undefined);
    assert.deepEqual(caught.ids, ['a', 'b']);
  });

  it('picks up new files, including other machines\' and the archive', () => {
    writeJsonl(join(opts.exportDir, '2026-11_laptop.jsonl'), [rec({ id: 'a', question: 'qqqqqqqqqq a', answer: 'aaaaaaaaaa' })]);
    sync();
    writeJsonl(join(opts.exportDir, '2026-11_desktop.jsonl'), [rec({ id: 'b', machine: 'desktop', question: 'qqqqqqqqqq b', answer: 'aaaaaaaaaa' })]);
    writeJsonl(join(opts.exportDir, 'archive', '2026-09.jsonl'), [rec({ id: 'c', timestamp: '2026-09-01T00:00:00Z', question: 'qqqqqqqqqq c', answer: 'aaaaaaaaaa' })]);
    const r = sync();
    assert.equal(r.result.full, false);
    assert.deepEqual(r.ids, ['a', 'b', 'c']);
    assert.equal(r.result.files, 3);
  });

  it('last-write-wins across files and tombstones forget, in any reading order', () => {
    writeJsonl(join(opts.exportDir, '2026-11_desktop.jsonl'), [
      rec({ id: 'a', machine: 'desktop', updated_at: '2026-11-21T00:00:00Z', question: 'newer version q', answer: 'newer answer' }),
      { v: 1, id: 'gone', deleted: true, machine: 'desktop', updated_at: '2026-11-22T00:00:00Z' },
    ]);
    writeJsonl(join(opts.exportDir, '2026-11_laptop.jsonl'), [
      rec({ id: 'a', updated_at: '2026-11-20T00:00:00Z', question: 'older version q', answer: 'older answer' }),
      rec({ id: 'gone', updated_at: '2026-11-20T00:00:00Z', question: 'to be forgotten', answer: 'secret stuff' }),
    ]);
    const { store } = openCache(opts);
    try {
      assert.equal(store.byId('a')?.answer, 'newer answer');
      assert.equal(store.byId('gone')?.deleted, 1);
      assert.equal(store.fts('"secret"', {}, 10).length, 0, 'forgotten text is out of the index');
      assert.equal(store.fts('"older"', {}, 10).length, 0, 'a losing version is not indexed');
      assert.equal(store.counts().records, 1);
      assert.equal(store.counts().tombstones, 1);
    } finally {
      store.close();
    }
  });

  it('an update to an existing memory replaces its text and vector', () => {
    const f = join(opts.exportDir, '2026-11_laptop.jsonl');
    writeJsonl(f, [rec({ id: 'a', question: 'growing answer question', answer: 'short start', model: 'm', embedding: vec(1, 0, 0) })]);
    sync();
    appendFileSync(f, `${encodeEntry(rec({ id: 'a', updated_at: '2026-11-20T11:00:00Z', question: 'growing answer question', answer: 'short start and a much longer conclusion', model: 'm', embedding: vec(0, 1, 0) }))}\n`);
    const { store } = openCache(opts);
    try {
      assert.equal(store.byId('a')?.answer, 'short start and a much longer conclusion');
      assert.equal(store.fts('"conclusion"', {}, 10).length, 1);
      assert.equal(store.fts('"short start"', {}, 10).length, 1);
      const knn = store.knn(vec(0, 1, 0), {}, 5);
      assert.equal(knn.length, 1);
      assert.ok(knn[0]!.distance < 1e-6);
    } finally {
      store.close();
    }
  });
});

describe('cache: full rebuild triggers', () => {
  const setup = () => {
    const f = join(opts.exportDir, '2026-11_laptop.jsonl');
    writeJsonl(f, [
      rec({ id: 'a', question: 'first question here', answer: 'first answer here' }),
      rec({ id: 'b', question: 'second question here', answer: 'second answer here' }),
    ]);
    assert.equal(sync().result.full, true);
    return f;
  };

  it('a file that shrank and lost a memory', () => {
    const f = setup();
    writeJsonl(f, [rec({ id: 'a', question: 'first question here', answer: 'first answer here' })]);
    const r = sync();
    assert.equal(r.result.full, true);
    assert.match(r.result.reason ?? '', /1 memories lost their source line/);
    assert.deepEqual(r.ids, ['a']);
  });

  it('a file that disappeared with memories found nowhere else', () => {
    setup();
    writeJsonl(join(opts.exportDir, '2026-10_laptop.jsonl'), [rec({ id: 'c', timestamp: '2026-10-02T00:00:00Z', question: 'third question', answer: 'third answer' })]);
    sync();
    rmSync(join(opts.exportDir, '2026-10_laptop.jsonl'));
    const r = sync();
    assert.equal(r.result.full, true);
    assert.deepEqual(r.ids, ['a', 'b']);
  });

  it('an older cache schema', () => {
    setup();
    const db = openDatabase(opts.dbPath);
    db.prepare("UPDATE meta SET value = '0' WHERE key = 'schema_version'").run();
    db.close();
    const r = sync();
    assert.equal(r.result.full, true);
    assert.match(r.result.reason ?? '', /schema/);
  });

  it('a corrupt, truncated or garbage database file', () => {
    setup();
    writeFileSync(opts.dbPath, 'this is not a database at all'.repeat(100));
    let r = sync();
    assert.equal(r.result.full, true);
    assert.match(r.result.reason ?? '', /unreadable/);
    assert.deepEqual(r.ids, ['a', 'b']);
    truncateSync(opts.dbPath, 1000);
    r = sync();
    assert.equal(r.result.full, true);
    assert.deepEqual(r.ids, ['a', 'b']);
  });

  it('a deleted cache', () => {
    setup();
    rmSync(join(dir, '.cache'), { recursive: true });
    const r = sync();
    assert.equal(r.result.full, true);
    assert.deepEqual(r.ids, ['a', 'b']);
  });
});

describe('cache: changes that do not need a rebuild from scratch', () => {
  it('a file rewritten in place is read again whole; its new text replaces the old', () => {
    const f = join(opts.exportDir, '2026-11_laptop.jsonl');
    writeJsonl(f, [rec({ id: 'a', question: 'first question here', answer: 'first answer here' })]);
    sync();
    writeFileSync(f, readFileSync(f, 'utf8').replace('first answer here', 'FIXED answer text'));
    const { store, result } = openCache(opts);
    try {
      assert.equal(result.full, false);
      assert.equal(store.byId('a')?.answer, 'FIXED answer text');
      assert.equal(store.fts('"first answer"', {}, 5).length, 0);
      assert.equal(store.fts('"fixed answer"', {}, 5).length, 1);
    } finally {
      store.close();
    }
  });

  it('a same-size rewrite in the middle of a long file is caught (the whole consumed prefix is hashed)', () => {
    const f = join(opts.exportDir, '2026-11_laptop.jsonl');
    // Far more than any head/tail window: the changed line sits in the middle.
    const many = Array.from({ length: 400 }, (_, i) => rec({ id: `m${i}`, question: `question number ${i} about herons`, answer: `answer number ${i} ${'x'.repeat(60)}` }));
    writeJsonl(f, many);
    sync();
    const before = readFileSync(f, 'utf8');
    const after = before.replace('answer number 200 ', 'ANSWER NUMBER 200 ');
    assert.equal(after.length, before.length);
    writeFileSync(f, after);
    utimesSync(f, new Date(), new Date(Date.now() + 5000)); // a new mtime, the same size
    const { store, result } = openCache(opts);
    try {
      assert.equal(result.full, false);
      assert.match(store.byId('m200')?.answer ?? '', /^ANSWER NUMBER 200 /);
      assert.equal(result.records, 400);
    } finally {
      store.close();
    }
  });

  it('per-machine files folded into an archive (monthly-merge) are absorbed incrementally', () => {
    const a = rec({ id: 'a', timestamp: '2026-09-03T00:00:00.000Z', question: 'laptop question', answer: 'laptop answer' });
    const b = rec({ id: 'b', machine: 'desktop', timestamp: '2026-09-04T00:00:00.000Z', question: 'desktop question', answer: 'desktop answer' });
    writeJsonl(join(opts.exportDir, '2026-09_laptop.jsonl'), [a]);
    writeJsonl(join(opts.exportDir, '2026-09_desktop.jsonl'), [b]);
    sync();
    writeJsonl(join(opts.exportDir, 'archive', '2026-09.jsonl'), [a, b]);
    rmSync(join(opts.exportDir, '2026-09_laptop.jsonl'));
    rmSync(join(opts.exportDir, '2026-09_desktop.jsonl'));
    const r = sync();
    assert.equal(r.result.full, false, r.result.reason);
    assert.deepEqual(r.ids, ['a', 'b']);
    assert.equal(sync().result.files_read, 0, 'and the next run is a no-op');
  });

  it('a model change keeps the texts and re-reads only vectors', () => {
    const vec = (x: number, y: number) => Float32Array.from([x, y]).map((v) => v / Math.hypot(x, y));
    writeJsonl(join(opts.exportDir, '2026-11_laptop.jsonl'), [
      rec({ id: 'a', question: 'first question here', answer: 'first answer here', model: 'm', embedding: vec(1, 0) }),
      rec({ id: 'b', question: 'second question here', answer: 'second answer here', model: 'other-model', embedding: vec(0, 1) }),
    ]);
    let { store, result } = openCache(opts);
    assert.equal(result.pending, 1);
    store.close();
    ({ store, result } = openCache({ ...opts, model: 'other-model' }));
    try {
      assert.equal(result.full, false);
      assert.match(result.reason ?? '', /model changed \(m → other-model\)/);
      assert.equal(result.pending, 1);
      assert.equal(store.byId('b')?.has_vector, 1);
      assert.equal(store.byId('a')?.has_vector, 0);
      assert.equal(store.fts('"second"', {}, 5).length, 1);
    } finally {
      store.close();
    }
  });
});

describe('cache: vectors', () => {
  it('indexes only vectors of the configured model; dim comes from the records', () => {
    writeJsonl(join(opts.exportDir, '2026-11_laptop.jsonl'), [
      rec({ id: 'a', question: 'qqqqqqqqqq', answer: 'aaaaaaaaaa', model: 'm', embedding: vec(1, 0, 0, 0) }),
      rec({ id: 'b', question: 'qqqqqqqqqq', answer: 'aaaaaaaaaa', model: 'old-model', embedding: vec(1, 0) }),
      rec({ id: 'c', question: 'qqqqqqqqqq', answer: 'aaaaaaaaaa' }),
      rec({ id: 'd', question: 'qqqqqqqqqq', answer: 'aaaaaaaaaa', model: 'm', embedding: vec(1, 1) }),
    ]);
    const { store, result } = openCache(opts);
    try {
      assert.equal(store.dim, 4);
      assert.equal(result.records, 4);
      assert.equal(result.pending, 3, 'other model, no vector, wrong dim');
      assert.equal(result.dim_mismatch, 1);
      assert.deepEqual(store.knn(vec(1, 0, 0, 0), {}, 10).map((r) => r.rowid), [store.byId('a')!.rowid]);
    } finally {
      store.close();
    }
  });

  it('applies project, machine and date filters inside the KNN', async () => {
    const rows: MemoryRecord[] = [];
    for (let i = 0; i < 30; i++) {
      rows.push(
        rec({
          id: `r${i}`,
          project: i % 2 ? 'web' : 'api',
          machine: i % 3 ? 'laptop' : 'server',
          timestamp: new Date(Date.UTC(2026, 9, 1 + i)).toISOString(),
          question: `question number ${i}`,
          answer: `answer number ${i}`,
          model: 'm',
          embedding: vec(1, i / 30, 0),
        }),
      );
    }
    writeJsonl(join(opts.exportDir, '2026-10_laptop.jsonl'), rows);
    const { store } = openCache(opts);
    try {
      const q = vec(1, 0, 0);
      const f = { project: 'web', machine: 'server', sinceMs: Date.UTC(2026, 9, 5), untilMs: Date.UTC(2026, 9, 25) };
      // k = 3 with filters still yields 3 matching hits: filtering happens inside the KNN.
      const hits = store.knn(q, f, 3).map((h) => store.rowsByRowid([h.rowid]).get(h.rowid)!);
      assert.equal(hits.length, 3);
      for (const h of hits) {
        assert.equal(h.project, 'web');
        assert.equal(h.machine, 'server');
        assert.ok(h.ts_ms >= f.sinceMs && h.ts_ms < f.untilMs);
      }
      const res = await search(
        { store, embedQuery: async () => q, now: Date.UTC(2026, 10, 1) },
        { query: 'question number', mode: 'hybrid', filters: f, topK: 10, halfLifeDays: 30, rrfK: 60 },
      );
      assert.ok(res.hits.length > 0);
      for (const h of res.hits) assert.ok(h.project === 'web' && h.machine === 'server');
    } finally {
      store.close();
    }
  });

  it('hybrid: how much of the question a memory holds weighs its keyword part, not what the vectors found', async () => {
    writeJsonl(join(opts.exportDir, '2026-10_laptop.jsonl'), [
      // Found by both lists, first in each, and its question holds every word of the query.
      rec({ id: 'both', timestamp: '2026-10-01T00:00:00.000Z', question: 'kestrel balancer notes', answer: 'It spreads the load.', model: 'm', embedding: vec(1, 0, 0) }),
      // Found by the vectors only: none of the words.
      rec({ id: 'near', timestamp: '2026-10-02T00:00:00.000Z', question: 'the proxy in front of staging', answer: 'A reverse proxy.', model: 'm', embedding: vec(1, 0.2, 0) }),
    ]);
    const { store } = openCache(opts);
    try {
      const deps = { store, embedQuery: async () => vec(1, 0, 0), now: Date.UTC(2026, 10, 1) };
      const score = async (wordsBoost?: number) => {
        const r = await search(deps, { query: 'kestrel balancer', mode: 'hybrid', filters: {}, topK: 5, halfLifeDays: 0, rrfK: 60, ...(wordsBoost !== undefined ? { wordsBoost } : {}) });
        return new Map(r.hits.map((h) => [h.id, h.score]));
      };
      const plain = await score(0);
      const boosted = await score();
      const round = (x: number) => Number(x.toPrecision(6));
      assert.equal(plain.get('both'), round(1 / 61 + 1 / 61), 'first in each list: RRF over the two');
      assert.equal(boosted.get('both'), round((1 / 61) * 1.25 + 1 / 61), 'the keyword part ×1.25, the vector part as it was');
      assert.equal(boosted.get('near'), plain.get('near'));
      assert.equal(boosted.get('near'), round(1 / 62), 'second by the vectors, nothing by the words');
    } finally {
      store.close();
    }
  });

  it('hybrid: the vector list weighs as much as the model deserves on the question (its measured strength, the lists\' agreement)', async () => {
    writeJsonl(join(opts.exportDir, '2026-10_laptop.jsonl'), [
      // The words' only match, far from the question's vector.
      rec({ id: 'words', timestamp: '2026-10-01T00:00:00.000Z', question: 'kestrel balancer notes', answer: 'It spreads the load.', model: 'm', embedding: vec(0, 1, 0) }),
      // The vectors' nearest: none of the words.
      rec({ id: 'near', timestamp: '2026-10-02T00:00:00.000Z', question: 'the proxy in front of staging', answer: 'A reverse proxy.', model: 'm', embedding: vec(1, 0, 0) }),
    ]);
    const { store } = openCache(opts);
    try {
      const deps = { store, embedQuery: async () => vec(1, 0, 0), now: Date.UTC(2026, 10, 1) };
      const run = async (query: string, vectorStrength?: number) =>
        (await search(deps, { query, mode: 'hybrid', filters: {}, topK: 5, halfLifeDays: 0, rrfK: 60, wordsBoost: 0, ...(vectorStrength !== undefined ? { vectorStrength } : {}) })).hits;
      const round = (x: number) => Number(x.toPrecision(6));
      // A model not measured here counts as 1; the lists disagree on their top: the vectors weigh the floor.
      const disagree = await run('kestrel balancer');
      assert.deepEqual(disagree.map((h) => h.id), ['words', 'near'], 'the words\' confident match stays first');
      assert.equal(disagree[1]?.score, round(VECTOR_FLOOR / 61));
      // A model that knows nothing the words do not (strength 0): what the vectors alone found comes after, still listed.
      const none = await run('kestrel balancer', 0);
      assert.deepEqual(none.map((h) => h.id), ['words', 'near']);
      assert.equal(none[1]?.score, 0);
      // Where the words find nothing, the vectors are all there is, at full weight.
      const noWords = await run('zzyzx quorum', 0);
      assert.deepEqual(noWords.map((h) => h.id).slice(0, 1), ['near']);
      assert.equal(noWords[0]?.score, round(1 / 61));
    } finally {
      store.close();
    }
  });

  it('hybrid: two memories the model cannot tell apart (the same turn kept in two sessions) share the vector list\'s rank, so the rest of the ranking orders them as keyword search does', async () => {
    writeJsonl(join(opts.exportDir, '2026-10_laptop.jsonl'), [
      // The older one first in the file: the vector index meets it first.
      rec({ id: 'same-older', session_id: 's1', timestamp: '2026-10-01T00:00:00.000Z', question: 'how do we rotate the kestrel keys', answer: 'With the rotate script.', model: 'm', embedding: vec(1, 0, 0) }),
      rec({ id: 'same-newer', session_id: 's2', timestamp: '2026-10-05T00:00:00.000Z', question: 'how do we rotate the kestrel keys', answer: 'With the rotate script.', model: 'm', embedding: vec(1, 0, 0) }),
      rec({ id: 'other', session_id: 's3', timestamp: '2026-10-03T00:00:00.000Z', question: 'kestrel deploy notes', answer: 'Deployed on Friday.', model: 'm', embedding: vec(0, 1, 0) }),
    ]);
    const { store } = openCache(opts);
    try {
      const deps = { store, embedQuery: async () => vec(1, 0, 0), now: Date.UTC(2026, 10, 1) };
      const run = async (mode: 'keyword' | 'hybrid') => (await search(deps, { query: 'rotate the kestrel keys', mode, filters: {}, topK: 5, halfLifeDays: 0, rrfK: 60, vectorStrength: 1 })).hits;
      const words = await run('keyword');
      assert.deepEqual(words.map((h) => h.id), ['same-newer', 'same-older', 'other'], 'keyword search: equal matches, the newer first');
      const hybrid = await run('hybrid');
      assert.deepEqual(hybrid.map((h) => h.id), ['same-newer', 'same-older', 'other'], 'hybrid keeps that order');
      assert.equal(hybrid[0]?.score, hybrid[1]?.score, 'the same part from each list');
      assert.ok((hybrid[1]?.score as number) > (words[1]?.score as number), 'the vector part is there');
    } finally {
      store.close();
    }
  });

  it('the vector weight (pure): strength × agreement of the tops, from the floor up; 1 without keyword hits; the measured strengths by model name', () => {
    assert.equal(vectorWeight([], [1, 2], 0), 1);
    assert.equal(vectorWeight([1, 2], [1, 2], 0), 0);
    assert.equal(vectorWeight([1, 2], [2, 1], 0.5), 0.5);
    assert.equal(vectorWeight([1, 2], [3, 4], 1), VECTOR_FLOOR);
    assert.equal(vectorWeight([1, 2, 3, 4], [1, 5, 6, 7], 1), VECTOR_FLOOR + (1 - VECTOR_FLOOR) * 0.25);
    assert.equal(modelStrength(join('test', 'fixtures', 'tiny-model')), 0);
    assert.equal(modelStrength('Xenova/some-model-not-measured'), 1);
    assert.equal(modelStrength(undefined), 1);
  });

  it('vector search finds memories years old: no recency window hides them', async () => {
    const old = [0, 1, 2].map((i) =>
      rec({ id: `old${i}`, timestamp: `2023-0${i + 1}-01T00:00:00.000Z`, question: `old question ${i}`, answer: `old answer ${i}`, model: 'm', embedding: vec(1, i, 0) }),
    );
    writeJsonl(join(opts.exportDir, '2023-01_laptop.jsonl'), old);
    const { store } = openCache(opts);
    try {
      const res = await search(
        { store, embedQuery: async () => vec(1, 0, 0), now: Date.UTC(2026, 10, 1) },
        { query: 'anything', mode: 'vector', filters: {}, topK: 3, halfLifeDays: 30, rrfK: 60 },
      );
      assert.deepEqual(res.hits.map((h) => h.id).sort(), ['old0', 'old1', 'old2']);
    } finally {
      store.close();
    }
  });
});

describe('the month a re-embedded version is written to comes from the clock passed in', () => {
  // The suite went red on 2026-12-01 because a test assumed the current month was
  // November. Here the clock is an argument: each of these days is checked on every day.
  for (const day of ['2026-12-01T00:00:05.000Z', '2027-01-01T00:00:30.000Z', '2028-02-29T23:59:59.000Z']) {
    it(`embedPending at ${day}`, async () => {
      const older = join(opts.exportDir, '2026-11_laptop.jsonl');
      writeJsonl(older, [rec({ id: 'nov', timestamp: '2026-11-30T23:59:00.000Z', question: 'pending question from November', answer: 'pending answer, no vector yet' })]);
      const before = readFileSync(older, 'utf8');
      const embedder = await loadEmbedder({ model: TINY_MODEL, dtype: 'fp32', queryPrefix: '', documentPrefix: '', cacheDir: join(dir, 'models'), allowRemote: false, batchSize: 8 });
      const { store } = openCache({ ...opts, model: embedder.model, dim: embedder.dim });
      try {
        const res = await embedPending({ store, embedder, exportDir: opts.exportDir, machine: 'laptop', now: () => new Date(day) });
        assert.equal(res.embedded, 1);
        assert.equal(res.file, join(opts.exportDir, `${day.slice(0, 7)}_laptop.jsonl`));
        const written = JSON.parse(readFileSync(res.file!, 'utf8').trim()) as MemoryRecord;
        assert.equal(written.id, 'nov');
        assert.equal(written.timestamp, '2026-11-30T23:59:00.000Z', 'the memory keeps its own time');
        assert.equal(readFileSync(older, 'utf8'), before, 'the original month file is not touched');
      } finally {
        store.close();
      }
    });
  }
});

describe('cache: counts that leave the session in progress out', () => {
  it('equal the counts over every live memory outside it, forgotten ones and other sessions included as they are; the session queries use its index', () => {
    const f = join(opts.exportDir, '2026-11_laptop.jsonl');
    const rows: Array<MemoryRecord | string> = [];
    for (let i = 0; i < 30; i++) rows.push(rec({ id: `s1-${i}`, session_id: 'live-session', question: `deploy question ${i}`, answer: 'the deploy answer' }));
    for (let i = 0; i < 50; i++) rows.push(rec({ id: `o-${i}`, session_id: `other-${i % 5}`, question: i % 2 ? `deploy note ${i}` : `cache note ${i}`, answer: 'an answer' }));
    for (let i = 0; i < 10; i++) rows.push(rec({ id: `n-${i}`, question: `deploy without a session ${i}`, answer: 'an answer' }));
    rows.push(encodeEntry({ v: 1, id: 'o-1', deleted: true, updated_at: '2026-11-21T00:00:00.000Z', machine: 'laptop' }));
    rows.push(encodeEntry({ v: 1, id: 's1-0', deleted: true, updated_at: '2026-11-21T00:00:00.000Z', machine: 'laptop' }));
    writeJsonl(f, rows);
    const { store } = openCache(opts);
    try {
      const db = store.db;
      const refCount = (db.prepare("SELECT count(*) AS n FROM memories WHERE deleted = 0 AND (session_id IS NULL OR session_id != 'live-session')").get() as { n: number }).n;
      assert.equal(refCount, 10 + 49);
      assert.equal(store.countUnder({ notSession: 'live-session' }), refCount);
      const match = '{question answer} : "deploy"';
      const refFts = (db.prepare("SELECT count(*) AS n FROM memories_fts f JOIN memories m ON m.rowid = f.rowid WHERE f.memories_fts MATCH ? AND m.deleted = 0 AND (m.session_id IS NULL OR m.session_id != 'live-session')").get(match) as { n: number }).n;
      assert.equal(refFts, 10 + 24);
      assert.equal(store.ftsCount(match, { notSession: 'live-session' }), refFts);
      assert.equal(store.countUnder({ notSession: 'no-such-session' }), 10 + 49 + 29);
      // With no statistics the planner took `deleted = 0` for an index over every row: a whole-table read per session.
      for (const sql of ["SELECT count(*) AS n FROM memories WHERE session_id = 'live-session' AND +deleted = 0", "SELECT rowid FROM memories WHERE session_id = 'live-session' AND +deleted = 0 ORDER BY ts_ms, rowid"]) {
        const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as Array<{ detail: string }>).map((p) => p.detail).join(' ');
        assert.match(plan, /memories_session/, plan);
      }
    } finally {
      store.close();
    }
  });
});

describe('cache: the order of keyword matches and the counts a rebuild reports', () => {
  it('orders by bm25 with the column weights, filtered or not, equal scores in the order stored; a rebuild reports the live and unembedded counts', () => {
    const f = join(opts.exportDir, '2026-11_laptop.jsonl');
    writeJsonl(f, [
      rec({ id: 'in-answer', question: 'a note about the build', answer: 'the heron flew over the lake' }),
      rec({ id: 'in-question', question: 'where did the heron go', answer: 'over the lake' }),
      rec({ id: 'twin-1', project: 'other', question: 'osprey sighting', answer: 'same words' }),
      rec({ id: 'twin-2', project: 'other', question: 'osprey sighting', answer: 'same words' }),
      rec({ id: 'gone', question: 'osprey gone', answer: 'forgotten' }),
      { v: 1, id: 'gone', deleted: true, updated_at: '2026-11-21T00:00:00.000Z', machine: 'laptop' },
    ]);
    const { store, result } = openCache(opts);
    try {
      const ids = (match: string, filters = {}) => {
        const rows = store.rowsByRowid(store.fts(match, filters, 10).map((r) => r.rowid));
        return store.fts(match, filters, 10).map((r) => rows.get(r.rowid)?.id);
      };
      assert.deepEqual(ids('"heron"'), ['in-question', 'in-answer'], 'the question weighs more than the answer');
      assert.deepEqual(ids('"heron"', { project: 'app' }), ['in-question', 'in-answer'], 'the same order inside the filters');
      assert.deepEqual(store.ftsIds('"heron"', { project: 'app' }, 10), ['in-question', 'in-answer']);
      assert.deepEqual(ids('"osprey"'), ['twin-1', 'twin-2'], 'equal scores: the one stored first');
      store.weighColumns({ question: 0.1, answer: 3, context: 0.3 });
      assert.deepEqual(ids('"heron"'), ['in-answer', 'in-question'], 'other weights, other order');
      assert.deepEqual(ids('"heron"', { project: 'app' }), ['in-answer', 'in-question']);
      assert.deepEqual(store.ftsIds('"heron"', { project: 'app' }, 10), ['in-answer', 'in-question']);
      const all = store.counts();
      assert.deepEqual(store.liveCounts(), { records: all.records, pending: all.pending });
      assert.deepEqual([result.records, result.pending], [4, 4], 'four live memories, none with a vector');
    } finally {
      store.close();
    }
    assert.deepEqual([sync().result.records, sync().result.pending], [4, 4], 'a no-op rebuild reports the same');
  });
});

describe('cache: a build from scratch', () => {
  it('journals in memory, not beside the file it builds (defensive mode refuses journal_mode = OFF)', () => {
    const path = join(dir, 'fresh.db');
    const db = openDatabase(path, { fast: true });
    try {
      assert.equal(db.pragma('journal_mode', { simple: true }), 'memory');
      assert.equal(db.pragma('synchronous', { simple: true }), 0);
      db.exec('BEGIN; CREATE TABLE t (x); INSERT INTO t VALUES (1);');
      assert.ok(!existsSync(`${path}-journal`), 'no journal file while it writes');
      db.exec('COMMIT');
    } finally {
      db.close();
    }
    const plain = openDatabase(join(dir, 'served.db'));
    try {
      assert.equal(plain.pragma('journal_mode', { simple: true }), 'wal', 'a cache that is served: WAL');
    } finally {
      plain.close();
    }
  });
});

describe('cache: the live and unembedded counts kept by triggers', () => {
  const counted = (db: Database.Database) => db.prepare('SELECT SUM(deleted = 0) AS records, SUM(deleted = 0 AND has_vector = 0) AS pending FROM memories').get() as { records: number; pending: number };
  const hasTable = (db: Database.Database) => db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name LIKE 'live_counts%'").get() as { n: number };

  it('equal a count of the rows after inserts, updates, tombstones and vectors, and a cache from before them gains them in place', () => {
    const f = join(opts.exportDir, '2026-11_laptop.jsonl');
    const o = { ...opts, dim: 3 };
    writeJsonl(f, [
      rec({ id: 'a', question: 'first question', answer: 'an answer', model: 'm', embedding: vec(1, 0, 0) }),
      rec({ id: 'b', question: 'second question', answer: 'an answer' }),
      rec({ id: 'c', question: 'third question', answer: 'an answer' }),
    ]);
    let { store } = openCache(o);
    try {
      assert.equal(hasTable(store.db).n, 4, 'a new cache: the table and its three triggers, made once its memories are in');
      assert.deepEqual(store.liveCounts(), { records: 3, pending: 2 });
      assert.deepEqual(store.liveCounts(), counted(store.db));
    } finally {
      store.close();
    }
    appendFileSync(f, [
      encodeEntry(rec({ id: 'd', question: 'fourth question', answer: 'an answer' })),
      encodeEntry(rec({ id: 'b', updated_at: '2026-11-21T00:00:00.000Z', question: 'second question, now embedded', answer: 'an answer', model: 'm', embedding: vec(0, 1, 0) })),
      encodeEntry({ v: 1, id: 'c', deleted: true, updated_at: '2026-11-21T00:00:00.000Z', machine: 'laptop' }),
      encodeEntry({ v: 1, id: 'never-seen', deleted: true, updated_at: '2026-11-21T00:00:00.000Z', machine: 'laptop' }),
    ].join('\n') + '\n');
    ({ store } = openCache(o));
    try {
      assert.deepEqual(store.liveCounts(), { records: 3, pending: 1 }, 'a, b and d live; only d without a vector');
      assert.deepEqual(store.liveCounts(), counted(store.db));
      // A cache of the previous build: no table, no triggers.
      store.db.exec('DROP TRIGGER live_counts_insert; DROP TRIGGER live_counts_delete; DROP TRIGGER live_counts_update; DROP TABLE live_counts');
    } finally {
      store.close();
    }
    const asIs = openCacheAsIs(o);
    assert.ok(asIs);
    try {
      assert.deepEqual(asIs.liveCounts(), { records: 3, pending: 1 }, 'read as it is: counted');
      assert.equal(hasTable(asIs.db).n, 0, 'and left as it is');
    } finally {
      asIs.close();
    }
    appendFileSync(f, `${encodeEntry(rec({ id: 'e', question: 'fifth question', answer: 'an answer' }))}\n`);
    const { store: migrated, result } = openCache(o);
    try {
      assert.equal(result.full, false, 'no rebuild from scratch');
      assert.equal(hasTable(migrated.db).n, 4, 'the table and its three triggers');
      assert.deepEqual(migrated.liveCounts(), { records: 4, pending: 2 }, 'counted once, then the new line through the triggers');
      assert.deepEqual(migrated.liveCounts(), counted(migrated.db));
      assert.equal(migrated.countUnder({ notSession: 'none' }), 4);
    } finally {
      migrated.close();
    }
  });
});

describe('the SQLite connection', () => {
  const load = createRequire(import.meta.url);
  const own = `${process.platform}-${process.arch}`;
  const works = (db: import('../../src/store/store.js').DB) => {
    try {
      assert.deepEqual(db.prepare('SELECT 1 + 1 AS two').get(), { two: 2 });
    } finally {
      db.close();
    }
  };

  it("comes from better-sqlite3's entry for this platform, which loads its binary without looking for one", () => {
    const db = newConnection(':memory:');
    assert.ok(db instanceof (load(`better-sqlite3/${own}`) as typeof Database), `a connection of better-sqlite3/${own}`);
    assert.ok(!(db instanceof Database), 'not one of the main entry');
    works(db);
  });

  it("is the main entry's where a platform's entry does not serve: its binary does not load here, or there is no such entry", () => {
    // Another architecture's binary cannot load on this machine, as a glibc binary cannot on musl.
    const foreign = process.arch === 'x64' ? `${process.platform}-arm64` : `${process.platform}-x64`;
    for (const entry of [foreign, 'plan9-mips']) {
      const db = newConnection(':memory:', entry);
      assert.ok(db instanceof Database, `${entry}: the main entry's connection`);
      works(db);
      // Asked again, the main entry serves at once.
      const again = newConnection(':memory:', entry);
      assert.ok(again instanceof Database, `${entry}, again`);
      works(again);
    }
  });

  it("waits 10 s for another process's write, and a reader sets only what it needs on the file as it is", () => {
    const path = join(dir, 'c.db');
    const writer = openDatabase(path);
    assert.equal(writer.pragma('busy_timeout', { simple: true }), 10_000);
    assert.equal(writer.pragma('journal_mode', { simple: true }), 'wal');
    assert.equal(writer.pragma('page_size', { simple: true }), 16384);
    writer.exec('CREATE TABLE t (x)');
    writer.close();
    const reader = openDatabase(path, { vectors: false });
    try {
      assert.equal(reader.pragma('busy_timeout', { simple: true }), 10_000);
      assert.equal(reader.pragma('synchronous', { simple: true }), 1, 'NORMAL');
      assert.equal(reader.pragma('cache_size', { simple: true }), -65536);
      assert.equal(reader.pragma('mmap_size', { simple: true }), 1073741824);
      assert.equal(reader.pragma('journal_mode', { simple: true }), 'wal', 'the journal mode the file was made with');
    } finally {
      reader.close();
    }
  });

  it("tells SQLite's own errors from others", () => {
    const db = newConnection(':memory:');
    try {
      let thrown: unknown;
      try {
        db.prepare('SELEC 1').get();
      } catch (err) {
        thrown = err;
      }
      assert.ok(isSqliteError(thrown), 'a syntax error is SQLite\'s');
      assert.equal((thrown as { code?: string }).code, 'SQLITE_ERROR');
      assert.equal(isSqliteError(new Error('SQLITE_BUSY')), false);
      assert.equal(isSqliteError(new TypeError('Expected first argument to be a string')), false);
      assert.equal(isSqliteError(undefined), false);
    } finally {
      db.close();
    }
  });
});
