/**
 * The keyword index's neighbour column and time in questions, on a real cache (JSONL export →
 * openCache → search): a turn is found by words of the turn next to it, the turn before a new
 * one is re-indexed when the new one arrives, forgetting and recall hold to a memory's own words,
 * a question that names a period gets that period's memories first, and a cache of the previous
 * schema is rebuilt.
 */
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { encodeEntry } from '../../src/export/jsonl.js';
import { foldForCoverage, heldShare, questionContent, questionPairs, questionWords, weightedShare } from '../../src/search/coverage.js';
import { DEFAULT_MIN_COVERAGE, DEFAULT_MIN_RARE_WORDS, recall } from '../../src/search/recall.js';
import { afterPeriod, keywordHits, latestNote, periodNote, search, type SearchOptions } from '../../src/search/search.js';
import { toldOfNothing } from '../../src/search/telling.js';
import { readTime } from '../../src/search/when.js';
import { mergeResults } from '../../src/app/team/team-read.js';
import { openCache } from '../../src/store/cache.js';
import { STORE_VERSION } from '../../src/store/schema.js';
import type { Store } from '../../src/store/store.js';
import type { MemoryRecord, SearchHit } from '../../src/types.js';
import { tempDir } from '../support/helpers.js';

const NOW = new Date(2026, 11, 1, 11, 0, 0).getTime(); // Tuesday 1 December 2026, local time
const at = (y: number, m: number, d: number, h = 10) => new Date(y, m - 1, d, h).toISOString();

type Mem = Pick<MemoryRecord, 'id' | 'question' | 'answer' | 'timestamp'> & Partial<MemoryRecord>;

function world(memories: Mem[]) {
  const d = tempDir();
  const exportDir = join(d.dir, 'export');
  mkdirSync(exportDir);
  const file = join(exportDir, '2026-12_laptop.jsonl');
  const line = (m: Mem) => encodeEntry({ v: 1, machine: 'laptop', project: 'app', ...m });
  writeFileSync(file, memories.length > 0 ? `${memories.map(line).join('\n')}\n` : '');
  const dbPath = join(d.dir, 'cache.db');
  const open = () => openCache({ dbPath, exportDir, model: 'none', dim: 0 });
  return { d, dbPath, exportDir, open, append: (m: Mem) => appendFileSync(file, `${line(m)}\n`) };
}

async function ids(store: Store, query: string, topK = 5, readTime = true, boosts: Pick<SearchOptions, 'coverageBoost' | 'wordsBoost'> = {}): Promise<string[]> {
  const r = await search({ store, now: NOW }, { query, mode: 'keyword', filters: {}, topK, halfLifeDays: 30, recencyWeight: 0.1, rrfK: 60, readTime, ...boosts });
  return r.hits.map((h) => h.id);
}

/** A much better word match for the cache eviction policy than the periods' own (English, Japanese). */
const EN_BEST = { question: 'cache eviction policy: decide the cache eviction policy for the session cache eviction', answer: 'We decided the cache eviction policy: LRU cache eviction for the session cache, cache eviction every hour.' };
const JA_BEST = { question: 'キャッシュの削除方針を決めた、キャッシュの削除方針', answer: 'キャッシュの削除方針はLRU。キャッシュの削除方針を文書にした。' };
/** On the same topic, matching less well. */
const EN_ON_TOPIC = { question: 'what eviction policy for the cache?', answer: 'Decided: LRU.' };
const JA_ON_TOPIC = { question: 'キャッシュの方針は?', answer: '決めた: LRU。' };

/** A cache of `memories`, searched on Thursday 2026-12-10 by `check` (ids, best first). */
async function onThursday(memories: Mem[], check: (top: (query: string, readTime?: boolean) => Promise<string[]>) => Promise<void>): Promise<void> {
  await searchedAt(new Date(2026, 11, 10, 11, 0, 0).getTime(), memories, check);
}

/**
 * A cache of `memories`, searched at `clock` by `check` (ids, best first). A memory dated more
 * than a day past the real clock is placed at now (jsonl.ts orderTime): tests keep theirs in the past.
 */
async function searchedAt(clock: number, memories: Mem[], check: (top: (query: string, readTime?: boolean) => Promise<string[]>) => Promise<void>): Promise<void> {
  const w = world(memories);
  try {
    const { store } = w.open();
    try {
      await check(async (query, readTime = true) => (await search({ store, now: clock }, { query, mode: 'keyword', filters: {}, topK: 5, halfLifeDays: 30, recencyWeight: 0.1, rrfK: 60, readTime })).hits.map((h) => h.id));
    } finally {
      store.close();
    }
  } finally {
    w.d.cleanup();
  }
}

/** How many index entries holding the filler word a memory has (each must have exactly one). */
function entries(store: Store, rowid: number): number {
  // BigInt: FTS5 ignores a rowid constraint bound as a REAL, which is how a JS number binds.
  return (store.db.prepare('SELECT count(*) AS n FROM memories_fts WHERE memories_fts MATCH ? AND rowid = ?').get('"unrelatedfiller"', BigInt(rowid)) as { n: number }).n;
}

describe('the neighbour column', () => {
  it('finds a turn by the words of the turn next to it, after its own words, and re-indexes the turn before a new one', async () => {
    const w = world([
      // The answer is in a turn that shares no word with the question; the turn before it does.
      { id: 'setup', session_id: 's1', timestamp: at(2026, 11, 20, 10), question: 'The kestrel importer keeps timing out on big files unrelatedfiller', answer: 'Let me look at the importer.' },
      { id: 'fix', session_id: 's1', timestamp: at(2026, 11, 20, 11), question: 'so what should we change? unrelatedfiller', answer: 'Raise the chunk size to 64 MB and stream the rows. unrelatedfiller' },
      // Holds the word itself: ranks above a neighbour's match.
      { id: 'own', session_id: 's2', timestamp: at(2026, 11, 1, 10), question: 'kestrel importer docs unrelatedfiller', answer: 'The kestrel importer reads CSV.' },
    ]);
    try {
      let { store } = w.open();
      try {
        const top = await ids(store, 'kestrel importer');
        assert.deepEqual(top.slice(0, 3).sort(), ['fix', 'own', 'setup'], 'the neighbour is found through its context');
        assert.equal(top[2], 'fix', 'a memory holding the words ranks above one whose neighbour holds them');
        assert.deepEqual(keywordHits(store, 'kestrel', {}, 10).map((r) => r.id).sort(), ['own', 'setup'], 'forget --query takes only memories holding the word');
      } finally {
        store.close();
      }
      // A new turn arrives in session s1: the turn before it ("fix") now has it as a neighbour.
      w.append({ id: 'after', session_id: 's1', timestamp: at(2026, 11, 20, 12), question: 'and the osprey exporter? unrelatedfiller', answer: 'It has the same limit. unrelatedfiller' });
      ({ store } = w.open());
      try {
        assert.ok((await ids(store, 'osprey exporter')).includes('fix'), 'the turn before the new one is found by its words');
        assert.ok(!(await ids(store, 'osprey exporter')).includes('setup'), 'two turns away is not a neighbour');
        for (const id of ['setup', 'fix', 'after', 'own']) assert.equal(entries(store, store.byId(id)!.rowid), 1, `${id} is indexed exactly once`);
      } finally {
        store.close();
      }
      // Forgetting the middle turn makes its neighbours each other's.
      w.append({ v: 1, id: 'fix', deleted: true, machine: 'laptop', timestamp: at(2026, 11, 20, 11), updated_at: at(2026, 11, 21) } as unknown as Mem);
      ({ store } = w.open());
      try {
        const top = await ids(store, 'osprey exporter');
        assert.ok(!top.includes('fix'));
        assert.ok(top.includes('setup'), 'the turn before the forgotten one now neighbours the one after it');
        assert.equal(entries(store, store.byId('fix')!.rowid), 0, 'a forgotten memory leaves the index');
      } finally {
        store.close();
      }
    } finally {
      w.d.cleanup();
    }
  });

  it('recall counts only a memory’s own words: a neighbour’s words do not make it about the prompt', () => {
    const w = world([
      { id: 'a', session_id: 's', timestamp: at(2026, 11, 20, 10), question: 'the heron scheduler drops jobs after the nightly vacuum', answer: 'The heron scheduler loses its lease during vacuum.' },
      { id: 'b', session_id: 's', timestamp: at(2026, 11, 20, 11), question: 'thanks, and lunch?', answer: 'Sandwiches.' },
      ...Array.from({ length: 30 }, (_, i) => ({ id: `x${i}`, timestamp: at(2026, 10, 1 + i), question: `unrelated note ${i} about scheduler settings`, answer: `Settings ${i}.` })),
    ]);
    try {
      const { store } = w.open();
      try {
        const got = recall(store, { prompt: 'why does the heron scheduler drop jobs after the nightly vacuum', maxItems: 3, minCoverage: 0.5, minRareWords: 2.25 }).map((r) => r.row.id);
        assert.deepEqual(got, ['a']);
      } finally {
        store.close();
      }
    } finally {
      w.d.cleanup();
    }
  });
});

describe('time in the question', () => {
  const mems: Mem[] = [
    // Matches the words best, but from September.
    { id: 'sept', timestamp: at(2026, 9, 14), question: 'the payment deploy failed on the canary: rollback of the payment deploy', answer: 'We rolled back the payment deploy and fixed the canary check.' },
    // Of last month (November), matching the words less well.
    { id: 'nov', timestamp: at(2026, 11, 10), question: 'a deploy issue', answer: 'The payment service needed a config flag.' },
    { id: 'nov-other', timestamp: at(2026, 11, 12), question: 'lunch options near the office', answer: 'The noodle place.' },
    // Yesterday, and in Japanese.
    { id: 'yesterday', timestamp: at(2026, 11, 30, 15), question: 'migrate the ledger tables', answer: 'Done with a two-step migration.' },
    { id: 'ja-last-month', timestamp: at(2026, 11, 5), question: '決済のデプロイでエラー', answer: '設定フラグを追加した。' },
    { id: 'ja-old', timestamp: at(2026, 8, 5), question: '決済のデプロイでエラーが出た、決済のデプロイを戻す', answer: '決済のデプロイを戻した。' },
    // Told this morning of the weekend; and an October match of more of the words.
    { id: 'told-after-weekend', timestamp: at(2026, 12, 1, 9), question: 'the importer crashed on Saturday', answer: 'Restarted the kestrel service.' },
    { id: 'kestrel-old', timestamp: at(2026, 10, 3), question: 'kestrel importer crashed: the kestrel importer crashed again', answer: 'The kestrel importer crashed; we restarted the kestrel importer.' },
    { id: 'ja-weekend', timestamp: at(2026, 11, 28, 14), question: '週末に在庫の同期が止まった', answer: 'サービスを再起動した。ログを確認して設定を見直し、監視の閾値も変更した。' },
    { id: 'ja-weekend-old', timestamp: at(2026, 9, 1), question: '在庫の同期が止まった、在庫の同期をやり直す', answer: '在庫の同期を再実行した。' },
  ];

  it('puts the period’s memory first over another period’s better match, in English and Japanese', async () => {
    const w = world(mems);
    try {
      const { store } = w.open();
      try {
        assert.equal((await ids(store, 'payment deploy', 5, false))[0], 'sept', 'without a period the better match wins');
        assert.deepEqual((await ids(store, 'the payment deploy last month')).slice(0, 2), ['nov', 'sept'], 'the period first, then the rest');
        assert.equal((await ids(store, 'payment deploy in November'))[0], 'nov');
        assert.equal((await ids(store, 'payment deploy November 2026'))[0], 'nov');
        assert.equal((await ids(store, '先月の決済のデプロイ'))[0], 'ja-last-month');
        assert.equal((await ids(store, '2026年11月の決済のデプロイ'))[0], 'ja-last-month');
        assert.equal((await ids(store, '決済のデプロイ', 5, false))[0], 'ja-old');
        // Nothing but time words: the period's memories, newest first.
        assert.deepEqual(await ids(store, 'what did we do yesterday'), ['yesterday']);
        assert.deepEqual(await ids(store, '昨日'), ['yesterday']);
        // Or words that tell only of the talk itself ("talk", "work on", 話した, 決めた).
        assert.deepEqual(await ids(store, 'what did we talk about yesterday'), ['yesterday']);
        assert.deepEqual(await ids(store, 'what were we working on yesterday?'), ['yesterday']);
        assert.deepEqual(await ids(store, '昨日何を話したっけ'), ['yesterday']);
        assert.deepEqual(await ids(store, '昨日決めたこと'), ['yesterday']);
        // A weekend, and what was told of it in the days after; since a period: from then to now.
        assert.equal((await ids(store, 'kestrel importer crashed', 5, false))[0], 'kestrel-old');
        assert.equal((await ids(store, 'what happened to the kestrel importer last weekend'))[0], 'told-after-weekend');
        assert.equal((await ids(store, 'the kestrel importer crash since last week'))[0], 'told-after-weekend');
        assert.equal((await ids(store, '在庫の同期', 5, false))[0], 'ja-weekend-old');
        assert.equal((await ids(store, '先週末の在庫の同期'))[0], 'ja-weekend');
        assert.equal((await ids(store, '先週以降の在庫の同期'))[0], 'ja-weekend');
        // A period that holds no match: the best matches anyway.
        assert.equal((await ids(store, 'payment deploy last week'))[0], 'sept');
        const asked = (query: string) => search({ store, now: NOW }, { query, mode: 'keyword', filters: {}, topK: 5, halfLifeDays: 30, rrfK: 60 });
        const r = await asked('payment deploy last month');
        assert.equal(r.period?.label, '2026-11-01 – 2026-11-30');
        assert.equal(r.periodOnTopic, true);
        assert.equal(periodNote(r), '2026-11-01 – 2026-11-30 first');
        // Told so when none of the period's memories is on the question's topic, or it holds none.
        const none = await asked('payment deploy last week');
        assert.deepEqual([none.period?.label, none.periodOnTopic, none.hits[0]?.id], ['2026-11-23 – 2026-11-29', false, 'sept']);
        assert.equal(periodNote(none), 'nothing on this from 2026-11-23 – 2026-11-29: the best matches of any time');
        // And how to list that period's memories (its words may not be the ones said then), in the surface's own words.
        assert.equal(periodNote(none, (since, until) => `memory search --since ${since} --until ${until}`), 'nothing on this from 2026-11-23 – 2026-11-29 (memory search --since 2026-11-23 --until 2026-11-29 lists its memories): the best matches of any time');
        // A period before a moment has no first day to name.
        const bound = readTime('payment deploy before last week', NOW).period;
        assert.deepEqual([bound?.label, bound?.before], ['before 2026-11-23', true]);
        assert.equal(bound && afterPeriod(bound, NOW), undefined, 'the days after it are what the words leave out');
        assert.equal(periodNote({ ...none, period: bound }, (since, until) => `memory search ${since ? `--since ${since} ` : ''}--until ${until}`), 'nothing on this from before 2026-11-23 (memory search --until 2026-11-22 lists its memories): the best matches of any time');
        const listed = await search({ store, now: NOW }, { query: '', mode: 'keyword', filters: { sinceMs: new Date(2026, 10, 23).getTime(), untilMs: new Date(2026, 10, 30).getTime() }, topK: 5, halfLifeDays: 30, rrfK: 60 });
        assert.deepEqual(listed.hits.map((h) => h.id), ['ja-weekend'], 'days and no words: those days\' memories');
        const fortnight = await search({ store, now: NOW }, { query: '', mode: 'keyword', filters: { sinceMs: new Date(2026, 10, 23).getTime() }, topK: 5, halfLifeDays: 30, rrfK: 60 });
        assert.deepEqual(fortnight.hits.map((h) => h.id), ['told-after-weekend', 'yesterday', 'ja-weekend'], 'newest first');
        await assert.rejects(search({ store, now: NOW }, { query: ' ', mode: 'keyword', filters: {}, topK: 5, halfLifeDays: 30, rrfK: 60 }), /empty query/);
        const empty = await asked('payment deploy in 1990');
        assert.deepEqual([empty.period?.label, empty.periodOnTopic, empty.hits[0]?.id], ['1990-01-01 – 1990-12-31', false, 'sept']);
        assert.equal(periodNote(empty, () => 'never offered'), 'no memories from 1990-01-01 – 1990-12-31: the best matches of any time');
        const timeOnly = await asked('what did we do yesterday');
        assert.deepEqual([timeOnly.periodOnTopic, periodNote(timeOnly)], [true, '2026-11-30: its memories, newest first']);
        const nothing = await asked('what did we do in 1990');
        assert.deepEqual([nothing.hits.length, periodNote(nothing)], [0, 'no memories from 1990-01-01 – 1990-12-31']);
        assert.equal(periodNote(await asked('payment deploy')), undefined);
      } finally {
        store.close();
      }
    } finally {
      w.d.cleanup();
    }
  });

  it('a period named is a rule: on Thursday 2026-12-10, "last week", "in March 2026", 先週, 2026年3月, "before October", "after October", 11月より後 each put that period\'s memory on the topic first, however much better another month\'s matches; without a time the best match wins', async () => {
    await onThursday(
      [
        // Much better word matches, in another month.
        { id: 'oct-cache', timestamp: at(2026, 10, 8), ...EN_BEST },
        { id: 'jan-ja', timestamp: at(2026, 1, 20), ...JA_BEST },
        // The periods' own, on the topic, matching less well.
        { id: 'last-week', timestamp: at(2026, 12, 2), ...EN_ON_TOPIC },
        { id: 'march', timestamp: at(2026, 3, 17), question: 'cache eviction, again', answer: 'We decided on a policy of LRU for now.' },
        { id: 'ja-last-week', timestamp: at(2026, 12, 3), ...JA_ON_TOPIC },
        { id: 'ja-march', timestamp: at(2026, 3, 18), question: 'キャッシュの方針について', answer: 'LRUに決めた。削除は月に一度。' },
        // In the period, off the topic: never first.
        { id: 'off-topic', timestamp: at(2026, 12, 4), question: 'lunch options near the office', answer: 'The noodle place decided to close on Mondays.' },
      ],
      async (top) => {
        const first = async (q: string, readTime = true) => (await top(q, readTime))[0];
        assert.equal(await first('what did we decide about the cache eviction policy', false), 'oct-cache', 'no time: the best match');
        assert.equal(await first('what did we decide last week about the cache eviction policy'), 'last-week');
        assert.equal(await first('the cache eviction policy we decided in March 2026'), 'march');
        assert.equal(await first('キャッシュの削除方針', false), 'jan-ja', 'no time: the best match');
        assert.equal(await first('先週決めたキャッシュの削除方針'), 'ja-last-week');
        assert.equal(await first('2026年3月に決めたキャッシュの削除方針'), 'ja-march');
        // A bound: everything before October (not October's better match, nor the days after it), everything after October.
        assert.equal(await first('the cache eviction policy we decided before October'), 'march');
        assert.equal(await first('what did we decide after October about the cache eviction policy'), 'last-week');
        assert.equal(await first('11月より後に決めたキャッシュの削除方針'), 'ja-last-week');
      },
    );
  });

  it('the latest time is a rule: "last time", "most recently", 前回, 直近 put the newest memory on the topic first, however much better an older match; without them the best match wins; nothing but them lists the newest', async () => {
    const memories: Mem[] = [
      // Much better word matches, older.
      { id: 'oct-cache', timestamp: at(2026, 10, 8), ...EN_BEST },
      { id: 'jan-ja', timestamp: at(2026, 1, 20), ...JA_BEST },
      // On the topic, matching less well: the newest of each language.
      { id: 'newest', timestamp: at(2026, 12, 2), ...EN_ON_TOPIC },
      { id: 'march', timestamp: at(2026, 3, 17), question: 'cache eviction, again', answer: 'We decided on a policy of LRU for now.' },
      { id: 'ja-newest', timestamp: at(2026, 12, 3), ...JA_ON_TOPIC },
      // Newer still, off the topic: never first for a question with words.
      { id: 'off-topic', timestamp: at(2026, 12, 4), question: 'lunch options near the office', answer: 'The noodle place decided to close on Mondays.' },
    ];
    await onThursday(memories, async (top) => {
      assert.equal((await top('what did we decide about the cache eviction policy'))[0], 'oct-cache', 'no time: the best match');
      assert.deepEqual((await top('what did we decide last time about the cache eviction policy')).slice(0, 3), ['newest', 'oct-cache', 'march'], 'on the topic, newest first');
      assert.equal((await top('the most recent cache eviction policy'))[0], 'newest');
      assert.equal((await top('what did we decide last time about the cache eviction policy', false))[0], 'oct-cache', 'time reading off: words like any other');
      assert.equal((await top('キャッシュの削除方針'))[0], 'jan-ja', 'no time: the best match');
      assert.equal((await top('前回決めたキャッシュの削除方針'))[0], 'ja-newest');
      assert.equal((await top('直近のキャッシュの削除方針'))[0], 'ja-newest');
      // A question about two moments is not one about the latest: the best match, as without.
      assert.equal((await top('how many weeks between the last time we changed the cache eviction policy and the release'))[0], 'oct-cache');
    });
    const w = world(memories);
    try {
      const { store } = w.open();
      try {
        const asked = (query: string) => search({ store, now: new Date(2026, 11, 10, 11).getTime() }, { query, mode: 'keyword', filters: {}, topK: 3, halfLifeDays: 30, rrfK: 60 });
        const r = await asked('what did we decide last time about the cache eviction policy');
        assert.deepEqual([r.latest, r.period, latestNote(r)], ['first', undefined, 'the latest first: the memories on this, newest first']);
        // Nothing but such words: the newest memories, whatever they are about.
        const only = await asked('what did we talk about last time');
        assert.deepEqual([only.latest, only.hits.map((h) => h.id), latestNote(only)], ['listed', ['off-topic', 'ja-newest', 'newest'], 'the latest memories, newest first']);
        // Words no memory is on: the best matches, told so.
        const off = await asked('the payroll noodle export last time');
        assert.deepEqual([off.latest, off.hits[0]?.id, latestNote(off)], ['off-topic', 'off-topic', 'nothing clearly on this: the best matches of any time']);
        // With a period too: its memories on the topic first, and the period's note told.
        const both = await asked('the most recent cache eviction policy in 2026');
        assert.deepEqual([both.hits[0]?.id, both.periodOnTopic, latestNote(both)], ['newest', true, undefined]);
        assert.equal((await asked('cache eviction policy')).latest, undefined);
      } finally {
        store.close();
      }
    } finally {
      w.d.cleanup();
    }
  });

  it('merged with a team\'s hits, the rules hold across both stores: a period\'s memory on the topic, or the newest on it asked for the last time, before a teammate\'s better match of another time; told so when only the team\'s led', async () => {
    const mine = world([
      { id: 'mine-last-week', timestamp: at(2026, 12, 2), ...EN_ON_TOPIC },
      { id: 'mine-lunch', timestamp: at(2026, 12, 4), question: 'lunch options near the office', answer: 'The noodle place.' },
    ]);
    const team = world([
      { id: 'team-oct', timestamp: at(2026, 10, 8), ...EN_BEST },
      { id: 'team-newest', timestamp: at(2026, 12, 3), question: 'the cache eviction policy, once more', answer: 'Still LRU.' },
    ]);
    try {
      const a = mine.open().store;
      const b = team.open().store;
      try {
        const both = async (query: string) => {
          const opts: SearchOptions = { query, mode: 'keyword', filters: {}, topK: 5, halfLifeDays: 30, recencyWeight: 0.1, rrfK: 60 };
          const now = new Date(2026, 11, 10, 11).getTime();
          return mergeResults(await search({ store: a, now }, opts), [await search({ store: b, now }, opts)], 5);
        };
        // Without a time, by score alone, as before.
        const plain = await both('what did we decide about the cache eviction policy');
        const scores = plain.hits.map((h) => h.score);
        assert.deepEqual([plain.hits.length, scores, plain.period, plain.latest], [3, [...scores].sort((x, y) => y - x), undefined, undefined]);
        // Last week (30 November – 6 December): mine and the team's of that week, on the topic, before the team's October match.
        const week = await both('what did we decide last week about the cache eviction policy');
        assert.deepEqual([new Set(week.hits.slice(0, 2).map((h) => h.id)), week.hits[2]?.id, week.tiers?.slice(0, 3)], [new Set(['mine-last-week', 'team-newest']), 'team-oct', [0, 0, 2]]);
        assert.deepEqual([week.periodOnTopic, periodNote(week)], [true, '2026-11-30 – 2026-12-06 first']);
        // The last time: the newest on the topic of either store first, then the next newest.
        const last = await both('what did we decide last time about the cache eviction policy');
        assert.deepEqual([last.hits.map((h) => h.id).slice(0, 3), last.latest], [['team-newest', 'mine-last-week', 'team-oct'], 'first']);
        // Whatever the stores' scores (they are not on one scale): the tiers first, then the score.
        const hit = (id: string, score: number, day: number): SearchHit => ({ id, score, timestamp: at(2026, 12, day), machine: 'laptop', project: 'app', source: 'claude-code', question: id, answer: '' });
        const ruled = mergeResults({ hits: [hit('p-after', 0.2, 8), hit('p-rest', 9, 1)], tiers: [1, 2] }, [{ hits: [hit('t-best', 50, 1), hit('t-own', 0.1, 2)], tiers: [2, 0] }], 4);
        assert.deepEqual(ruled.hits.map((h) => h.id), ['t-own', 'p-after', 't-best', 'p-rest']);
        const newest = mergeResults({ hits: [hit('p-old', 9, 1), hit('p-off', 8, 6)], tiers: [0, 2], latest: 'first' }, [{ hits: [hit('t-new', 0.1, 5)], tiers: [0], latest: 'first' }], 3);
        assert.deepEqual([newest.hits.map((h) => h.id), newest.latest], [['t-new', 'p-old', 'p-off'], 'first']);
        // Asked of the team alone (an empty personal result): what the team's search read is told.
        const teamOnly = mergeResults({ hits: [] }, [await search({ store: b, now: new Date(2026, 11, 10, 11).getTime() }, { query: 'what did we decide last week about the cache eviction policy', mode: 'keyword', filters: {}, topK: 5, halfLifeDays: 30, rrfK: 60 })], 5);
        assert.deepEqual([teamOnly.hits.map((h) => h.id), periodNote(teamOnly)], [['team-newest', 'team-oct'], '2026-11-30 – 2026-12-06 first']);
        // A period the personal store holds nothing on, the team's does: told that it led.
        const asked = (store: Store) => search({ store, now: new Date(2026, 11, 10, 11).getTime() }, { query: 'still LRU, once more, last week', mode: 'keyword', filters: {}, topK: 5, halfLifeDays: 30, rrfK: 60 });
        const own = await asked(a);
        assert.equal(own.periodOnTopic, false);
        const merged = mergeResults(own, [await asked(b)], 5);
        assert.deepEqual([merged.hits[0]?.id, merged.periodOnTopic, periodNote(merged)], ['team-newest', true, '2026-11-30 – 2026-12-06 first']);
      } finally {
        a.close();
        b.close();
      }
    } finally {
      mine.d.cleanup();
      team.d.cleanup();
    }
  });

  it('a listing asked from a project\'s folder ("what did we do last time", a period\'s or days\' memories) puts that project\'s newest first, then the other projects\'; told so; a question with a topic, a project named, or a folder with no memories ranks as before', async () => {
    const w = world([
      { id: 'app-1', timestamp: at(2026, 11, 27, 9), project: 'app', question: 'the retry policy for payments', answer: 'Three tries, then give up.' },
      { id: 'app-2', timestamp: at(2026, 11, 30, 9), project: 'app', question: 'the checkout form validation', answer: 'Validate on blur.' },
      { id: 'web-1', timestamp: at(2026, 11, 30, 15), project: 'web', question: 'the landing page hero image', answer: 'A photo of the team.' },
      { id: 'web-2', timestamp: at(2026, 12, 1, 9), project: 'web', question: 'the footer links', answer: 'Privacy, terms, contact.' },
      { id: 'web-3', timestamp: at(2026, 12, 1, 10), project: 'web', question: 'the retry policy for the newsletter signup', answer: 'Once, then a message.' },
    ]);
    try {
      const { store } = w.open();
      try {
        const asked = (query: string, more: Partial<SearchOptions> = {}) => search({ store, now: NOW }, { query, mode: 'keyword', filters: {}, topK: 3, halfLifeDays: 30, rrfK: 60, ...more });
        const idsOf = (r: { hits: SearchHit[] }) => r.hits.map((h) => h.id);
        // The latest, from app's folder: app's two, then the newest of the others.
        const last = await asked('what did we do last time', { here: 'app' });
        assert.deepEqual([idsOf(last), last.tiers, last.hereFirst, latestNote(last)], [['app-2', 'app-1', 'web-3'], [0, 0, 1], 'app', "the latest memories, newest first: app's first"]);
        // Asked from nowhere in particular: the newest of all, as before.
        const anywhere = await asked('what did we do last time');
        assert.deepEqual([idsOf(anywhere), anywhere.hereFirst, latestNote(anywhere)], [['web-3', 'web-2', 'web-1'], undefined, 'the latest memories, newest first']);
        // More of its own than asked for: its own only.
        assert.deepEqual(idsOf(await asked('前回何をしたっけ', { here: 'app', topK: 2 })), ['app-2', 'app-1']);
        // Yesterday (30 November) from app's folder: app's of that day first, then web's of it.
        const yesterday = await asked('what did we work on yesterday', { here: 'app' });
        assert.deepEqual([idsOf(yesterday), periodNote(yesterday)], [['app-2', 'web-1'], "2026-11-30: its memories, newest first: app's first"]);
        // Days and no words (--since): the same.
        const days = await asked('', { here: 'app', filters: { sinceMs: new Date(2026, 10, 30).getTime() } });
        assert.deepEqual([idsOf(days), days.hereFirst], [['app-2', 'web-3', 'web-2'], 'app']);
        // A project named: that project's, whatever the folder.
        assert.deepEqual(idsOf(await asked('what did we do last time', { here: 'app', filters: { project: 'web' } })), ['web-3', 'web-2', 'web-1']);
        // A folder whose project holds no memory, or whose memories are hidden (excluded): the newest of all, nothing said.
        for (const more of [{ here: 'docs' }, { here: 'app', hide: (row: { project: string | null }) => row.project === 'app' }]) {
          const r = await asked('what did we do last time', more);
          assert.deepEqual([idsOf(r), r.hereFirst], [['web-3', 'web-2', 'web-1'], undefined]);
        }
        // A topic: ranked as before, the folder does not change it.
        assert.deepEqual(idsOf(await asked('what was the retry policy last time', { here: 'app' })), idsOf(await asked('what was the retry policy last time')));
        // Merged with a team's memories of the project (a listing, tier 0): they come before the other projects' memories, and the note holds.
        const hit = (id: string): SearchHit => ({ id, score: 1, timestamp: at(2026, 11, 30, 12), machine: 'desk', project: 'app', source: 'claude-code', question: id, answer: '' });
        const merged = mergeResults(last, [{ hits: [hit('team-app')], tiers: [0], latest: 'listed' }], 4);
        assert.deepEqual([idsOf(merged), latestNote(merged)], [['team-app', 'app-2', 'app-1', 'web-3'], "the latest memories, newest first: app's first"]);
      } finally {
        store.close();
      }
    } finally {
      w.d.cleanup();
    }
  });

  it('a word of the question no memory holds does not put a memory off the topic: in a history of one memory, it is on the topic of "what did we find last time about the label printer and the customs form"', async () => {
    await searchedAt(new Date(2026, 11, 1, 11).getTime(), [{ id: 'only', timestamp: at(2026, 11, 30, 9), question: 'Why did the label printer skip the customs form on large orders?', answer: 'Pinned the carrier client.' }], async (top) => {
      assert.deepEqual(await top('what did we find last time about the label printer and the customs form'), ['only']);
    });
    const w = world([{ id: 'only', timestamp: at(2026, 11, 30, 9), question: 'Why did the label printer skip the customs form on large orders?', answer: 'Pinned the carrier client.' }]);
    try {
      const { store } = w.open();
      try {
        const asked = (query: string) => search({ store, now: NOW }, { query, mode: 'keyword', filters: {}, topK: 5, halfLifeDays: 30, rrfK: 60 });
        assert.equal((await asked('what did we find last time about the label printer and the customs form')).latest, 'first');
        assert.equal((await asked('what did we find yesterday about the label printer and the customs form')).periodOnTopic, true);
      } finally {
        store.close();
      }
    } finally {
      w.d.cleanup();
    }
  });

  it('words that tell only of the talk name no topic; a word they are part of is not taken apart', () => {
    for (const q of ['what did we talk about', 'what were we working on', 'what did we discuss?', 'what happened', '話したこと', '決めたこと', '何を話したっけ', '何した', 'やったこと', "let's continue", 'carry on from', 'の続きをやろう', 'の続きから再開しよう']) assert.equal(toldOfNothing(q), true, q);
    for (const q of ['what did we decide about retries', 'the talk at the conference', '条件分岐', 'キャッシュの件', '何か', '出したもの', '幾何', "let's fix the parser", 'continue the migration', '続きをお願い']) assert.equal(toldOfNothing(q), false, q);
  });

  it('per-prompt recall asked for the last time: of the memories it recalls, the newest first', () => {
    const w = world([
      { id: 'old-best', timestamp: at(2026, 6, 3), question: 'the kestrel importer retry policy: kestrel importer retries with backoff', answer: 'Kestrel importer retry policy: five retries, exponential backoff, kestrel importer jitter.' },
      { id: 'newer', timestamp: at(2026, 11, 20), question: 'kestrel retry policy again?', answer: 'Three now.' },
      { id: 'other', timestamp: at(2026, 11, 25), question: 'lunch options near the office', answer: 'The noodle place.' },
      // Other topics, so that the prompt's words are rare.
      ...Array.from({ length: 40 }, (_, i) => ({ id: `garden-${i}`, timestamp: at(2026, 7, 1 + (i % 28)), question: `which tomato variety for bed ${i}`, answer: 'A cherry tomato.' })),
    ]);
    try {
      const { store } = w.open();
      try {
        const recalled = (prompt: string) => recall(store, { prompt, maxItems: 3, minCoverage: DEFAULT_MIN_COVERAGE, minRareWords: DEFAULT_MIN_RARE_WORDS, now: NOW }).map((r) => r.row.id);
        assert.deepEqual(recalled('what is the kestrel importer retry policy'), ['old-best', 'newer'], 'the best match first');
        assert.deepEqual(recalled('what was the kestrel importer retry policy last time'), ['newer', 'old-best']);
        assert.deepEqual(recalled('前回の kestrel importer retry policy'), ['newer', 'old-best']);
      } finally {
        store.close();
      }
    } finally {
      w.d.cleanup();
    }
  });

  it('counted back from today, moments ago, the other day, named days, a day of a named week, a third of a month, seasons, a day of the month, a fiscal year, quarters and halves of a year, a month and a day with a slash: each puts that time\'s memory on the topic first, over a much better match of another time; readings a Monday-to-Sunday week, a calendar month or a whole week would miss', async () => {
    const en = { id: 'better', timestamp: at(2026, 9, 8), ...EN_BEST };
    const ja = { id: 'better', timestamp: at(2026, 1, 20), ...JA_BEST };
    const enThen = (timestamp: string) => ({ id: 'then', timestamp, ...EN_ON_TOPIC });
    const jaThen = (timestamp: string) => ({ id: 'then', timestamp, ...JA_ON_TOPIC });
    const THU_NOV_19 = new Date(2026, 10, 19, 11).getTime();
    const cases: Array<[string, number, Mem[], string, string]> = [
      // Monday 30 November: 13 November, 17 days back; the week of 16–22 November (a Monday-to-Sunday reading) holds another.
      ['two weeks ago', new Date(2026, 10, 30, 11).getTime(), [en, enThen(at(2026, 11, 13)), { ...enThen(at(2026, 11, 21)), id: 'calendar' }], 'what did we decide about the cache eviction policy', 'what did we decide two weeks ago about the cache eviction policy'],
      // Thursday 3 December: 25 October; November (the calendar month before) holds another, on the 25th.
      ['a month ago', new Date(2026, 11, 3, 11).getTime(), [en, enThen(at(2026, 10, 25)), { ...enThen(at(2026, 11, 25)), id: 'calendar' }], 'what did we decide about the cache eviction policy', 'what did we decide a month ago about the cache eviction policy'],
      ['an hour ago', new Date(2026, 10, 20, 11).getTime(), [en, enThen(at(2026, 11, 20, 9))], 'what did we decide about the cache eviction policy', 'what did we decide an hour ago about the cache eviction policy'],
      ['さっき', new Date(2026, 10, 20, 11).getTime(), [ja, jaThen(at(2026, 11, 20, 8))], 'キャッシュの削除方針を決めた', 'さっき決めたキャッシュの削除方針'],
      ['先日', new Date(2026, 10, 20, 11).getTime(), [ja, jaThen(at(2026, 11, 14))], 'キャッシュの削除方針を決めた', '先日決めたキャッシュの削除方針'],
      // Named days: the latest Christmas Eve (2025's, not 2024's); the fourth Thursday of November; 年末年始 and GW.
      ['Christmas Eve', new Date(2026, 11, 10, 11).getTime(), [en, enThen(at(2025, 12, 24)), { ...enThen(at(2024, 12, 24)), id: 'earlier' }], 'what did we decide about the cache eviction policy', 'what did we decide on Christmas Eve about the cache eviction policy'],
      ['Thanksgiving', new Date(2026, 11, 10, 11).getTime(), [en, enThen(at(2026, 11, 26))], 'what did we decide about the cache eviction policy', 'what did we decide over Thanksgiving about the cache eviction policy'],
      ['年末年始', new Date(2026, 11, 10, 11).getTime(), [ja, jaThen(at(2026, 1, 2))], 'キャッシュの削除方針を決めた', '年末年始に決めたキャッシュの削除方針'],
      ['GW', new Date(2026, 11, 10, 11).getTime(), [ja, jaThen(at(2026, 5, 2))], 'キャッシュの削除方針を決めた', 'GW中に決めたキャッシュの削除方針'],
      // Thursday 19 November (memories stay before the real clock). A day of a named week: last
      // week's Sunday (newer, the same week) holds another.
      ['先週の金曜', THU_NOV_19, [ja, jaThen(at(2026, 11, 13)), { ...jaThen(at(2026, 11, 15)), id: 'week' }], 'キャッシュの削除方針を決めた', '先週の金曜に決めたキャッシュの削除方針'],
      ['the Wednesday two months ago', THU_NOV_19, [en, enThen(at(2026, 9, 16)), { ...enThen(at(2026, 9, 28)), id: 'month' }], 'what did we decide about the cache eviction policy', 'what did we decide on the Wednesday two months ago about the cache eviction policy'],
      // A third of a month: late March (newer) holds another.
      ['early March', THU_NOV_19, [en, enThen(at(2026, 3, 5)), { ...enThen(at(2026, 3, 25)), id: 'late' }], 'what did we decide about the cache eviction policy', 'what did we decide in early March about the cache eviction policy'],
      ['3月上旬', THU_NOV_19, [ja, jaThen(at(2026, 3, 5)), { ...jaThen(at(2026, 3, 25)), id: 'late' }], 'キャッシュの削除方針を決めた', '3月上旬に決めたキャッシュの削除方針'],
      // Seasons, a day of the month, two or three days ago, a fiscal year.
      ['last summer', THU_NOV_19, [en, enThen(at(2026, 7, 15))], 'what did we decide about the cache eviction policy', 'what did we decide last summer about the cache eviction policy'],
      ['去年の夏', THU_NOV_19, [ja, jaThen(at(2025, 8, 1))], 'キャッシュの削除方針を決めた', '去年の夏に決めたキャッシュの削除方針'],
      ['on the 3rd', THU_NOV_19, [en, enThen(at(2026, 11, 3)), { ...enThen(at(2026, 11, 8)), id: 'later' }], 'what did we decide about the cache eviction policy', 'what did we decide on the 3rd about the cache eviction policy'],
      ['2、3日前', THU_NOV_19, [ja, jaThen(at(2026, 11, 17)), { ...jaThen(at(2026, 11, 18)), id: 'yesterday' }], 'キャッシュの削除方針を決めた', '2、3日前に決めたキャッシュの削除方針'],
      // 昨年度 is April 2025 to March 2026: February 2026 is in it, March 2025 (the calendar 2025) not.
      ['昨年度', THU_NOV_19, [{ ...ja, timestamp: at(2026, 6, 20) }, jaThen(at(2026, 2, 10)), { ...jaThen(at(2025, 3, 10)), id: 'calendar' }], 'キャッシュの削除方針を決めた', '昨年度に決めたキャッシュの削除方針'],
      // Quarters and halves: last quarter is July–September (October, this quarter, holds the better
      // match); 2025年度第4四半期 is January–March 2026; 去年の下半期 July–December 2025.
      ['last quarter', THU_NOV_19, [{ ...en, timestamp: at(2026, 10, 20) }, enThen(at(2026, 8, 12)), { ...enThen(at(2026, 4, 12)), id: 'earlier' }], 'what did we decide about the cache eviction policy', 'what did we decide last quarter about the cache eviction policy'],
      ['in Q1 last year', THU_NOV_19, [en, enThen(at(2025, 2, 12))], 'what did we decide about the cache eviction policy', 'what did we decide in Q1 last year about the cache eviction policy'],
      ['2025年度第4四半期', THU_NOV_19, [{ ...ja, timestamp: at(2026, 6, 20) }, jaThen(at(2026, 3, 10)), { ...jaThen(at(2025, 11, 10)), id: 'calendar' }], 'キャッシュの削除方針を決めた', '2025年度第4四半期に決めたキャッシュの削除方針'],
      ['去年の下半期', THU_NOV_19, [ja, jaThen(at(2025, 9, 10))], 'キャッシュの削除方針を決めた', '去年の下半期に決めたキャッシュの削除方針'],
      // A month and a day with a slash: the latest such day, not the day before or after it.
      ['3/15に', THU_NOV_19, [ja, jaThen(at(2026, 3, 15)), { ...jaThen(at(2026, 3, 16)), id: 'next day' }], 'キャッシュの削除方針を決めた', '3/15に決めたキャッシュの削除方針'],
      ['on 11/3', THU_NOV_19, [en, enThen(at(2026, 11, 3)), { ...enThen(at(2026, 11, 4)), id: 'next day' }], 'what did we decide about the cache eviction policy', 'what did we decide on 11/3 about the cache eviction policy'],
    ];
    for (const [name, clock, memories, plain, dated] of cases) {
      await searchedAt(clock, memories, async (top) => {
        assert.equal((await top(plain))[0], 'better', `${name}: no time, the best match`);
        assert.equal((await top(dated))[0], 'then', name);
      });
    }
  });

  it('a period\'s memory is on the topic by what the person said in it, not by an answer that mentions everything', async () => {
    await onThursday(
      [
        { id: 'oct-heron', timestamp: at(2026, 10, 8), question: 'the heron deploy checklist: review the heron deploy checklist before the canary', answer: 'The heron deploy checklist: freeze, canary, heron deploy, watch the dashboards.' },
        // Last week: asked about something else; the long answer names the checklist in passing.
        { id: 'last-week-tips', timestamp: at(2026, 12, 2), question: 'any tips for running the standup?', answer: 'Keep it short: what shipped, what is blocked (say the heron deploy checklist is pending), what is next.' },
        // Last week, asked about it: on the topic.
        { id: 'last-week-kestrel', timestamp: at(2026, 12, 3), question: 'the kestrel rollout plan?', answer: 'Two waves.' },
        { id: 'oct-kestrel', timestamp: at(2026, 10, 9), question: 'kestrel rollout plan: the kestrel rollout plan in waves', answer: 'The kestrel rollout plan: two waves, kestrel rollout watched.' },
      ],
      async (top) => {
        const heron = await top('what did we say about the heron deploy checklist last week');
        assert.equal(heron[0], 'oct-heron', 'the better match: last week\'s memory holds the words only in its answer');
        assert.ok(heron.includes('last-week-tips'), 'the answer\'s mention is still found');
        assert.equal((await top('the kestrel rollout plan last week'))[0], 'last-week-kestrel', 'what the person asked last week comes first');
      },
    );
  });

  it('a period\'s memory is on the topic by what the question is about, not by the words that frame it ("how many times")', async () => {
    await onThursday(
      [
        { id: 'oct-bake', timestamp: at(2026, 10, 8), question: 'I bake sourdough: the sourdough I bake every weekend, bake after bake', answer: 'Sourdough to bake: a good habit.' },
        // Last week: another question that only shares the frame.
        { id: 'last-week-frame', timestamp: at(2026, 12, 2), question: 'how many times have the Chiefs played the Jaguars?', answer: 'Often.' },
        // Other months: the frame's words and the topic's are each in more than one memory, so they weigh alike.
        ...['how many times does the cron job run?', 'many retries, three times each', 'how many times should I stretch?', 'so many times the build broke', 'a sourdough loaf to bake'].map((question, i) => ({ id: `sep-${i}`, timestamp: at(2026, 9, 10 + i), question, answer: 'Noted.' })),
      ],
      async (top) => {
        const found = await top('how many times did I bake sourdough last week');
        assert.equal(found[0], 'oct-bake', 'last week holds nothing on baking: the best match first');
        assert.ok(found.includes('last-week-frame'), 'the frame\'s words are still searched');
      },
    );
  });

  it('a memory of the days after the period comes after the period’s own and before another period’s better match', async () => {
    const w = world([
      { id: 'older', timestamp: at(2026, 11, 10), question: 'the osprey exporter stalls: the osprey exporter stalls on big exports', answer: 'The osprey exporter stalls; raise its osprey exporter timeout.' },
      { id: 'week', timestamp: at(2026, 11, 25), question: 'the osprey exporter stalls', answer: 'Raised the timeout.' },
      { id: 'told', timestamp: at(2026, 11, 30), question: 'last week the osprey exporter stalled', answer: 'Noted.' },
    ]);
    try {
      const { store } = w.open();
      try {
        assert.equal((await ids(store, 'osprey exporter stalls', 5, false))[0], 'older', 'without a period the better match wins');
        assert.deepEqual((await ids(store, 'osprey exporter stalls last week')).slice(0, 3), ['week', 'told', 'older']);
        const without = await search({ store, now: NOW }, { query: 'osprey exporter stalls last week', mode: 'keyword', filters: {}, topK: 5, halfLifeDays: 30, recencyWeight: 0.1, rrfK: 60, afterPeriodBoost: 1 });
        assert.deepEqual(without.hits.slice(0, 3).map((h) => h.id), ['week', 'older', 'told'], 'with no boost for the days after, the better match comes second');
      } finally {
        store.close();
      }
    } finally {
      w.d.cleanup();
    }
  });

  it('the days after a period: as long again, at least a week, never past now', () => {
    const day = 86_400_000;
    const week = { sinceMs: new Date(2026, 10, 23).getTime(), untilMs: new Date(2026, 10, 30).getTime(), label: '' };
    assert.deepEqual(afterPeriod(week, NOW), { sinceMs: week.untilMs, untilMs: NOW + 1 }, 'last week: to now');
    const march = { sinceMs: new Date(2026, 2, 1).getTime(), untilMs: new Date(2026, 3, 1).getTime(), label: '' };
    assert.deepEqual(afterPeriod(march, NOW), { sinceMs: march.untilMs, untilMs: march.untilMs + (march.untilMs - march.sinceMs) }, 'March: a month again');
    const aDay = { sinceMs: new Date(2026, 4, 5).getTime(), untilMs: new Date(2026, 4, 6).getTime(), label: '' };
    assert.equal(afterPeriod(aDay, NOW)?.untilMs, aDay.untilMs + 7 * day, 'a day: a week after it');
    const thisWeek = { sinceMs: new Date(2026, 10, 30).getTime(), untilMs: new Date(2026, 11, 7).getTime(), label: '' };
    assert.equal(afterPeriod(thisWeek, NOW), undefined, 'a period not over yet has no days after it');
  });

  it('a question without a time expression ranks exactly as with time reading off', async () => {
    const w = world(mems);
    try {
      const { store } = w.open();
      try {
        for (const q of ['payment deploy', 'ledger migration', '決済のデプロイ', 'May I see the canary check?', 'kestrel importer on weekends', '在庫の同期']) {
          assert.deepEqual(await ids(store, q), await ids(store, q, 5, false), q);
        }
      } finally {
        store.close();
      }
    } finally {
      w.d.cleanup();
    }
  });
});

describe('a Japanese question’s character pairs', () => {
  // Filler memories make 展望 and 高さ common words; 東京タワー is rare.
  const filler: Mem[] = Array.from({ length: 12 }, (_, i) => ({ id: `f${i}`, timestamp: at(2026, 11, 2 + i), question: `展望と高さの話 ${i}`, answer: `山の展望台の高さを比べた。${'川'.repeat(i + 1)}` }));
  const mems: Mem[] = [
    ...filler,
    // Holds the question's words whole, once.
    { id: 'whole', timestamp: at(2026, 11, 20), question: '東京タワーの展望台', answer: '東京タワーの展望台の高さは150メートル。' },
    // Holds a few of its pairs many times, and not the rest.
    { id: 'repeat', timestamp: at(2026, 11, 21), question: '東京タワーの写真', answer: '東京タワー、東京タワー、夜の東京タワー、朝の東京タワー。東京の東京タワー。' },
    { id: 'english', timestamp: at(2026, 11, 22), question: 'the tokyo tower photos', answer: 'Tokyo tower at night, tokyo tower in the morning: tower tower tower.' },
    { id: 'english-whole', timestamp: at(2026, 11, 19), question: 'the tokyo tower observation deck height', answer: 'The deck is 150 m up.' },
  ];

  it('a memory holding the question whole ranks above one holding a few of its pairs many times', async () => {
    const w = world(mems);
    try {
      const { store } = w.open();
      try {
        const run = (query: string, coverageBoost?: number) => ids(store, query, 5, true, coverageBoost === undefined ? {} : { coverageBoost });
        const q = '東京タワーの展望台の高さ';
        assert.equal((await run(q, 0))[0], 'repeat', 'bm25 alone: the repeated pairs win');
        assert.deepEqual((await run(q)).slice(0, 2), ['whole', 'repeat'], 'the question held whole comes first');
        // English questions are cut into whole words: ranked exactly as without the pairs.
        for (const en of ['tokyo tower observation deck height', 'tokyo tower']) {
          const plain = await run(en, 0);
          assert.ok(plain.length >= 2, en);
          assert.deepEqual(await run(en), plain, en);
        }
      } finally {
        store.close();
      }
    } finally {
      w.d.cleanup();
    }
  });

  it('the pairs are those of the folded question, without pairs of hiragana alone', () => {
    assert.deepEqual(questionPairs('SQLiteのロック、エラー'), ['sq', 'ql', 'li', 'it', 'te', 'eの', 'のロ', 'ロッ', 'ック', 'エラ', 'ラー']);
    assert.deepEqual(questionPairs('ですか'), []);
    assert.deepEqual(questionPairs('db.tsの型'), ['db', 'ts', 'sの', 'の型'], 'split where the index splits: ASCII punctuation too');
    assert.deepEqual(questionPairs('sqlite lock error'), [], 'no Japanese or Chinese character: no pairs');
    const pairs = questionPairs('東京タワーの高さ');
    assert.deepEqual(pairs, ['東京', '京タ', 'タワ', 'ワー', 'の高', '高さ']);
    assert.equal(heldShare(pairs, foldForCoverage('東京タワー、高さ 333 m')), 5 / 6);
    assert.equal(heldShare(pairs, foldForCoverage('ＴＯＫＹＯ 大阪')), 0);
    assert.equal(heldShare([], foldForCoverage('東京')), 0);
  });
});

describe('an English question’s words in what the person said', () => {
  const filler: Mem[] = Array.from({ length: 10 }, (_, i) => ({ id: `f${i}`, timestamp: at(2026, 11, 2 + i), question: `notes on the release ${i}`, answer: `The release went out on day ${i}.` }));
  const mems: Mem[] = [
    ...filler,
    // The person said it: every word of the question, once, in their own turn.
    { id: 'said', timestamp: at(2026, 11, 20), question: 'for the record: the staging cluster sits behind the kestrel balancer', answer: 'Noted, I will keep that in mind for the deploy scripts and the runbook.' },
    // A long answer about the same words, to a question holding half of them.
    { id: 'answer', timestamp: at(2026, 11, 21), question: 'what is a kestrel balancer?', answer: 'A kestrel balancer spreads requests. A kestrel balancer in a staging cluster, or a kestrel balancer in any cluster, keeps a staging cluster healthy.' },
  ];

  it('a memory whose question holds the question’s words ranks above a long answer repeating them', async () => {
    const w = world(mems);
    try {
      const { store } = w.open();
      try {
        const run = (query: string, wordsBoost?: number) => ids(store, query, 5, true, wordsBoost === undefined ? {} : { wordsBoost });
        const q = 'which balancer is in front of the staging cluster?';
        assert.deepEqual((await run(q, 0)).slice(0, 2), ['answer', 'said'], 'bm25 alone: the long answer wins');
        assert.deepEqual((await run(q)).slice(0, 2), ['said', 'answer'], 'what the person said comes first');
        // One word: nothing to share out; ranked as without.
        assert.deepEqual(await run('kestrel'), await run('kestrel', 0));
      } finally {
        store.close();
      }
    } finally {
      w.d.cleanup();
    }
  });

  it('what a question is about: without what it counts or measures and its placeholders', () => {
    assert.equal(questionContent('How many times did I bake something?').replace(/\s+/g, ' ').trim(), 'did I bake ?');
    assert.equal(questionContent('how long was I in Japan for?').replace(/\s+/g, ' ').trim(), 'was I in Japan for?');
    assert.equal(questionContent('What is the order of the three trips I took, from earliest to latest?').replace(/\s+/g, ' ').trim(), 'What is the three trips I took, ?');
    assert.equal(questionContent('何回デプロイした？').trim(), 'デプロイした？');
    assert.equal(questionContent('how long'), 'how long', 'nothing else: the question as asked');
    assert.equal(questionContent('the long-running job'), 'the long-running job');
  });

  it('a word of the question is held by the same word or one beginning with it; rare words weigh more', () => {
    const words = questionWords('We deployed the useEffect hook to staging');
    assert.ok(words.has('use') && words.has('effect'), 'identifier parts are words');
    assert.equal(weightedShare(['deploy', 'staging'], [1, 1], words), 1, 'deployed holds deploy');
    assert.equal(weightedShare(['deploys', 'staging'], [1, 3], words), 0.75);
    assert.equal(weightedShare(['use effect', 'hook'], [2, 2], words), 1, 'a phrase: each of its words');
    assert.equal(weightedShare(['us', 'prod'], [1, 1], words), 0, 'a short word is held only whole');
    assert.equal(weightedShare(['hoo*'], [1], words), 0, 'a prefix term is not counted');
  });
});

describe('a cache of the previous schema (no neighbour or date columns)', () => {
  it('is rebuilt from JSONL with the new columns', async () => {
    const w = world([
      { id: 'a', session_id: 's', timestamp: at(2026, 11, 2), question: 'the grebe cache warms slowly', answer: 'Prefetch on start.' },
      { id: 'b', session_id: 's', timestamp: at(2026, 11, 2, 11), question: 'how much faster now?', answer: 'Twice as fast.' },
    ]);
    try {
      w.open().store.close();
      const db = new Database(w.dbPath);
      db.exec("DROP TABLE memories_fts; CREATE VIRTUAL TABLE memories_fts USING fts5(question, answer, content='', contentless_delete=1, tokenize='porter unicode61 remove_diacritics 2'); UPDATE meta SET value = '3' WHERE key = 'schema_version'");
      db.close();
      const { store, result } = w.open();
      try {
        assert.equal(result.full, true);
        assert.match(result.reason ?? '', new RegExp(`schema 3 differs from ${STORE_VERSION}$`));
        assert.equal(result.records, 2);
        assert.deepEqual((await ids(store, 'grebe cache')).sort(), ['a', 'b'], 'b through its neighbour');
      } finally {
        store.close();
      }
    } finally {
      w.d.cleanup();
    }
  });
});

describe('a full rebuild loads each winner once', () => {
  /** Every memory as the cache holds it, neighbours by id (rowids may differ between builds). */
  function dump(store: Store): string[] {
    const rows = store.db.prepare('SELECT rowid, id, deleted, question, answer, ctx, has_vector, file FROM memories ORDER BY id').all() as Array<{ rowid: number; id: string; deleted: number; question: string; answer: string; ctx: string | null; has_vector: number; file: string }>;
    const idOf = new Map(rows.map((r) => [String(r.rowid), r.id]));
    const ctx = (c: string | null) => (c === null ? 'null' : c.split('|').map((k) => idOf.get(k.split(':')[0] as string) ?? '').join('|'));
    return rows.map((r) => `${r.id} ${r.deleted} ${r.question} / ${r.answer} ctx=${ctx(r.ctx)} vec=${r.has_vector} ${r.file}`);
  }

  it('the same cache as applying line by line: superseded versions, tombstones, re-read lines, sessions across files', async () => {
    const lines: Mem[] = [
      { id: 'a', session_id: 's', timestamp: at(2026, 11, 2, 10), question: 'plover queue stalls', answer: 'first answer' },
      { id: 'b', session_id: 's', timestamp: at(2026, 11, 2, 11), question: 'and the retry?', answer: 'Backoff of 2 s.' },
      { id: 'c', session_id: 's', timestamp: at(2026, 11, 2, 12), question: 'anything else?', answer: 'No.' },
      { id: 'a', session_id: 's', timestamp: at(2026, 11, 2, 10), updated_at: at(2026, 11, 3), question: 'plover queue stalls', answer: 'edited answer' },
      { v: 1, id: 'b', deleted: true, machine: 'laptop', timestamp: at(2026, 11, 2, 11), updated_at: at(2026, 11, 4) } as unknown as Mem,
      { id: 'c', session_id: 's', timestamp: at(2026, 11, 2, 12), question: 'anything else?', answer: 'No.' },
      { id: 'd', timestamp: at(2026, 11, 5), question: 'no session here', answer: 'standalone' },
    ];
    const full = world(lines);
    const step = world([]);
    try {
      const { store: f, result } = full.open();
      let fullDump: string[];
      try {
        assert.equal(result.full, true);
        fullDump = dump(f);
        assert.deepEqual((await ids(f, 'plover')).sort(), ['a', 'c'], 'a by its words, c as its neighbour now that b is forgotten');
      } finally {
        f.close();
      }
      step.open().store.close(); // an empty cache; then every line arrives on its own
      for (const m of lines) {
        step.append(m);
        step.open().store.close();
      }
      const { store: s, result: r2 } = step.open();
      try {
        assert.equal(r2.full, false);
        assert.deepEqual(dump(s), fullDump);
      } finally {
        s.close();
      }
    } finally {
      full.d.cleanup();
      step.d.cleanup();
    }
  });

  it('the analysis is the same whether a worker thread does it or this thread', async () => {
    const { analysisFeed } = await import('../../src/store/analyze-feed.js');
    const texts: Array<[string, string]> = Array.from({ length: 2500 }, (_, i) => [`useEffect ${i} 認証エラー better-sqlite3`, `answer ${i} `.repeat(i % 300)]);
    const threaded = analysisFeed(texts, { worker: true });
    const here = analysisFeed(texts, { worker: false });
    try {
      assert.equal(threaded.threaded, true);
      assert.equal(here.threaded, false);
      for (let i = 0; i < texts.length; i++) assert.deepEqual(threaded.get(i), here.get(i), `row ${i}`);
    } finally {
      threaded.close();
      here.close();
    }
  });
});
