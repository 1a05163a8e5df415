import assert from 'node:assert/strict';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { openCache, type CacheOptions } from '../src/store/cache.js';
import { asksForAdvice, selfStatements } from '../src/search/preference.js';
import { search } from '../src/search/search.js';
import { rec, tempDir, writeJsonl } from './helpers.js';

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
      const on = await run(advice);
      assert.equal(on.get('api'), off.get('api'), 'no statement of the person: as before');
      assert.ok((on.get('taste') as number) > (off.get('taste') as number) * 1.5, `the person's statement holds the question's words: ${off.get('taste')} → ${on.get('taste')}`);
      assert.equal([...on.keys()][0], 'taste');
      const plain = 'hotel with a pool';
      assert.deepEqual(await run(plain), await run(plain, 0), 'a question that asks for no advice ranks as before');
    } finally {
      store.close();
    }
  });
});
