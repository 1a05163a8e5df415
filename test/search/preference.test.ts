import assert from 'node:assert/strict';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { openCache, type CacheOptions } from '../../src/store/cache.js';
import { asksForAdvice, selfStatements } from '../../src/search/preference.js';
import { search } from '../../src/search/search.js';
import { rec, tempDir, writeJsonl } from '../support/helpers.js';

describe('what the person said about themselves', () => {
  it('questions that ask for advice, in both languages; questions that do not', () => {
    for (const q of ['Can you suggest a hotel for my trip to Miami?', 'Any tips for keeping my phone battery alive?', 'What should I cook for dinner tonight?', 'Which camera lens should I buy next?', '週末のおすすめの過ごし方は?', 'どうしたらいい?寝付けない']) {
      assert.ok(asksForAdvice(q), q);
    }
    for (const q of ['why does the parser drop the BOM', 'what did we decide about the retry budget', 'the suggested fix broke the build', '認証のエラーはどこで出る?']) {
      assert.ok(!asksForAdvice(q), q);
    }
  });

  it('the sentences of taste, habit or possession, not the rest', () => {
    assert.deepEqual(selfStatements('Planning a trip next month. I prefer hotels with a rooftop pool. What is the weather like?'), ['I prefer hotels with a rooftop pool.']);
    assert.deepEqual(selfStatements('My Sony A7R IV struggles in low light.'), ['My Sony A7R IV struggles in low light.']);
    assert.deepEqual(selfStatements('私はいつも朝に走ります。天気はどう?'), ['私はいつも朝に走ります。']);
    assert.deepEqual(selfStatements('The build fails on CI. Can you look?'), []);
  });

  let dir: string;
  let cleanup: () => void;
  let opts: CacheOptions;
  beforeEach(() => {
    ({ dir, cleanup } = tempDir('memory-pref-'));
    opts = { dbPath: join(dir, '.cache', 'memory.db'), exportDir: join(dir, 'export'), model: 'm', dim: 0 };
  });
  afterEach(() => cleanup());

  it('an advice question favours the memory where the person said their taste with its words; another question ranks as before', async () => {
    writeJsonl(join(opts.exportDir, '2026-10_laptop.jsonl'), [
      // Newer, and its words match as well: a question about a hotel API, no statement of taste.
      rec({ id: 'api', timestamp: '2026-10-20T00:00:00.000Z', question: 'Which hotel booking API handles pool reservations?', answer: 'The Rooms API has a pool amenity filter.' }),
      rec({ id: 'taste', timestamp: '2026-10-01T00:00:00.000Z', question: 'For trips I only book a hotel with a pool. I prefer a hotel with a rooftop pool.', answer: 'Noted: rooftop pools.' }),
    ]);
    const { store } = openCache(opts);
    try {
      const deps = { store, now: Date.UTC(2026, 10, 1) };
      const run = async (query: string, preferenceBoost?: number) =>
        new Map((await search(deps, { query, mode: 'keyword', filters: {}, topK: 5, halfLifeDays: 30, rrfK: 60, ...(preferenceBoost !== undefined ? { preferenceBoost } : {}) })).hits.map((h) => [h.id, h.score]));
      const advice = 'Can you suggest a hotel with a pool?';
      const off = await run(advice, 0);
      const on = await run(advice, 1);
      assert.deepEqual(await run(advice), off, 'off by default (bench/QUALITY.md: it cost more than it found)');
      assert.equal(on.get('api'), off.get('api'), 'no statement of the person: as before');
      assert.ok((on.get('taste') as number) > (off.get('taste') as number) * 1.5, `the person's statement holds the question's words: ${off.get('taste')} → ${on.get('taste')}`);
      assert.ok((on.get('taste') as number) <= (off.get('taste') as number) * 2.0001, 'at most ×(1 + boost), however much of the question the statement holds');
      assert.equal([...on.keys()][0], 'taste');
      const plain = 'hotel with a pool';
      assert.deepEqual(await run(plain), await run(plain, 0), 'a question that asks for no advice ranks as before');
    } finally {
      store.close();
    }
  });

  /** Two memories, the newer full of the asking words and about something else; the ids a keyword search of each question finds. */
  async function searchedBy(asks: string, topic: string, check: (ids: (query: string) => Promise<string[]>) => Promise<void>): Promise<void> {
    writeJsonl(join(opts.exportDir, '2026-10_laptop.jsonl'), [
      rec({ id: 'asks', timestamp: '2026-10-20T00:00:00.000Z', question: asks, answer: '-' }),
      rec({ id: 'topic', timestamp: '2026-10-01T00:00:00.000Z', question: topic, answer: '-' }),
    ]);
    const { store } = openCache(opts);
    try {
      const deps = { store, now: Date.UTC(2026, 10, 1) };
      await check(async (query) => (await search(deps, { query, mode: 'keyword', filters: {}, topK: 5, halfLifeDays: 30, rrfK: 60 })).hits.map((h) => h.id));
    } finally {
      store.close();
    }
  }

  it('an advice question is searched by what it is about, not by the words that ask: other requests for tips do not come first', async () => {
    await searchedBy('Any tips for a faster CI build? Tips on caching, tips on parallel jobs?', 'My kitchen drawer is a mess of utensils.', async (ids) => {
      assert.deepEqual(await ids('Any tips for keeping my kitchen tidy?'), ['topic'], 'the topic\'s memory, and not the one that only shares the asking words');
      assert.deepEqual(await ids('Any tips?'), ['asks'], 'a question of asking words alone is searched by them');
      assert.deepEqual((await ids('kitchen tips')).sort(), ['asks', 'topic'], 'a question that asks for no advice keeps every word');
    });
  });

  it('in Japanese too: the words that ask (コツ, 提案して, 何がいい) are left out of an advice question\'s search', async () => {
    await searchedBy('CIを速くするコツは？キャッシュのコツも提案してほしい。何がいいかな', '台所の引き出しが調理器具で散らかっている', async (ids) => {
      assert.deepEqual(await ids('台所を片付けるコツは？'), ['topic'], 'the topic\'s memory, and not the one that only shares the asking words');
      assert.deepEqual(await ids('台所の整理に何がいいか提案して'), ['topic'], 'several asking phrases in one question');
      assert.deepEqual(await ids('コツは？'), ['asks'], 'a question of asking words alone is searched by them');
      assert.deepEqual(await ids('提案の別名は？'), ['asks'], '提案 as a noun, not a request, is what the question is about');
    });
  });
});
