/**
 * Ranking on a real cache: the word index (identifiers, short words, Japanese), and recency
 * as a bounded prior. In process: JSONL export → openCache → search, as a user's search runs.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { encodeEntry } from '../../src/export/jsonl.js';
import { searchRequest } from '../../src/app/search-request.js';
import { loadConfig } from '../../src/config/load.js';
import { search } from '../../src/search/search.js';
import { openCache } from '../../src/store/cache.js';
import type { Store } from '../../src/store/store.js';
import { STORE_VERSION } from '../../src/store/schema.js';
import type { MemoryRecord } from '../../src/types.js';
import { tempDir } from '../support/helpers.js';

const NOW = Date.parse('2026-11-29T12:00:00.000Z');
const DAY = 86_400_000;
const ago = (days: number) => new Date(NOW - days * DAY).toISOString();

const MEMORIES: Array<Pick<MemoryRecord, 'id' | 'question' | 'answer' | 'timestamp'>> = [
  // A clearly best match from long ago, and newer memories that match it weakly.
  { id: 'zebra-old', timestamp: ago(700), question: 'How do we rotate the zebra signing keys for the payment gateway?', answer: 'Run rotate-zebra-keys, then redeploy the zebra signer; the old signing keys stay valid for a day.' },
  ...Array.from({ length: 12 }, (_, i) => ({ id: `weak-${i}`, timestamp: ago(i + 1), question: `Question ${i} about keys in the settings file`, answer: `We rotate log files weekly; the settings keys are documented (${i}).` })),
  // Comparable memories: the same decision, revised.
  { id: 'layout-spring', timestamp: ago(240), question: 'Which cache layout did we decide on for the feed service?', answer: 'The feed cache layout: one shard per region.' },
  { id: 'layout-last-week', timestamp: ago(6), question: 'Which cache layout did we decide on for the feed service?', answer: 'The feed cache layout: one shard per tenant.' },
  // Two events of one story, the earlier told a little more fully.
  { id: 'osprey-outage', timestamp: ago(200), question: 'Osprey gateway outage', answer: 'Restarted the osprey gateway.' },
  { id: 'osprey-rotation', timestamp: ago(3), question: 'Osprey signer rotation on the gateway', answer: 'Rotated the osprey signer.' },
  // Identifiers, short words, Japanese.
  { id: 'sqlite3', timestamp: ago(30), question: 'better-sqlite3 throws SQLITE_BUSY under load', answer: 'Set busy_timeout and use WAL.' },
  { id: 'effect', timestamp: ago(31), question: 'Why does useEffect run twice?', answer: 'StrictMode mounts twice in development.' },
  { id: 'database', timestamp: ago(2), question: 'A good update for the database docs', answer: 'Nothing here but good updates to the database documentation.' },
  { id: 'db-short', timestamp: ago(90), question: 'The DB query on orders is slow', answer: 'Add a composite index on customer and date.' },
  { id: 'go-ctx', timestamp: ago(95), question: 'Go context cancellation does not stop the goroutine', answer: 'Select on ctx.Done() in the loop.' },
  { id: 'ja-lock', timestamp: ago(120), question: 'SQLiteのロックでフックがタイムアウトする', answer: 'busy_timeoutを設定してWALモードにする。' },
  { id: 'ja-auth', timestamp: ago(150), question: '認証トークンの有効期限が切れたとき', answer: 'リフレッシュトークンで取り直す。' },
];

let dir: { dir: string; cleanup: () => void };
let store: Store;
before(() => {
  dir = tempDir();
  const exportDir = join(dir.dir, 'export');
  mkdirSync(exportDir);
  const lines = MEMORIES.map((m) => encodeEntry({ v: 1, machine: 'laptop', project: 'app', ...m }));
  writeFileSync(join(exportDir, '2026-11_laptop.jsonl'), `${lines.join('\n')}\n`);
  store = openCache({ dbPath: join(dir.dir, 'cache.db'), exportDir, model: 'none', dim: 0 }).store;
});
after(() => {
  store.close();
  dir.cleanup();
});

async function ids(query: string, halfLifeDays = 30, topK = 5, halfLifeGiven = false): Promise<string[]> {
  const r = await search({ store, now: NOW }, { query, mode: 'keyword', filters: {}, topK, halfLifeDays, recencyWeight: 0.1, rrfK: 60, ...(halfLifeGiven ? { halfLifeGiven } : {}) });
  return r.hits.map((h) => h.id);
}

describe('recency is a bounded prior', () => {
  it('a clearly best match from two years ago stays first, ahead of a dozen newer weak matches', async () => {
    assert.equal((await ids('rotate zebra signing keys'))[0], 'zebra-old');
    assert.equal((await ids('rotate zebra signing keys', 0))[0], 'zebra-old');
  });

  it('between comparably relevant memories, the newer ranks first; --half-life 0 leaves it to relevance', async () => {
    const top = await ids('which cache layout did we decide on for the feed service', 30, 2);
    assert.deepEqual(top, ['layout-last-week', 'layout-spring']);
  });
});

describe('a question about the order of past moments ranks by relevance alone', () => {
  it('the earlier event is not put behind the later one for being older', async () => {
    const question = 'osprey gateway outage and the osprey signer rotation';
    assert.deepEqual(await ids(question, 30, 2), ['osprey-rotation', 'osprey-outage'], 'the recency prior at work: the newer first');
    assert.deepEqual(await ids(question, 0, 2), ['osprey-outage', 'osprey-rotation'], 'by relevance alone');
    assert.deepEqual(await ids(`which came first, the ${question}?`, 30, 2), ['osprey-outage', 'osprey-rotation']);
    assert.deepEqual(await ids(`how many days passed between the ${question}?`, 30, 2), ['osprey-outage', 'osprey-rotation']);
    assert.deepEqual(await ids(`how long after the osprey gateway outage came the osprey signer rotation?`, 30, 2), ['osprey-outage', 'osprey-rotation']);
  });

  it('a half-life the person gives (--half-life) is kept: the prior works as asked', async () => {
    const question = 'which came first, the osprey gateway outage and the osprey signer rotation?';
    assert.deepEqual(await ids(question, 30, 2, true), ['osprey-rotation', 'osprey-outage']);
    const rt = { config: loadConfig({ env: {}, home: dir.dir, cwd: dir.dir }).config, now: () => new Date(NOW) };
    assert.equal(searchRequest(rt, { query: question, halfLifeDays: 30 }).halfLifeGiven, true, '--half-life 30');
    assert.equal(searchRequest(rt, { query: question }).halfLifeGiven, undefined, 'the configured default');
  });
});

describe('the word index', () => {
  it('finds an identifier whole and by its parts', async () => {
    assert.equal((await ids('better-sqlite3'))[0], 'sqlite3');
    assert.equal((await ids('sqlite busy'))[0], 'sqlite3');
    assert.equal((await ids('useEffect'))[0], 'effect');
    assert.equal((await ids('effect twice'))[0], 'effect');
  });

  it('matches short words whole, never inside longer ones', async () => {
    assert.deepEqual(await ids('DB'), ['db-short'], 'not "database"');
    assert.deepEqual(await ids('go'), ['go-ctx'], 'not "good", "goroutine" only through "go"');
  });

  it('finds Japanese by bigrams and mixed Japanese/English queries', async () => {
    assert.equal((await ids('SQLiteのロック'))[0], 'ja-lock');
    assert.equal((await ids('認証'))[0], 'ja-auth');
    assert.equal((await ids('有効期限'))[0], 'ja-auth');
  });
});

describe('a cache built by the previous version', () => {
  it('(trigram index, schema 1) is rebuilt from JSONL, never half-read', () => {
    const d = tempDir();
    try {
      const exportDir = join(d.dir, 'export');
      mkdirSync(exportDir);
      writeFileSync(join(exportDir, '2026-11_laptop.jsonl'), `${encodeEntry({ v: 1, id: 'a', machine: 'laptop', timestamp: ago(1), question: 'heron deploy window', answer: 'Fridays after noon.' })}\n`);
      const dbPath = join(d.dir, 'cache.db');
      openCache({ dbPath, exportDir, model: 'none', dim: 0 }).store.close();
      // What the previous version left: its trigram table and its schema number.
      const db = new Database(dbPath);
      db.exec("DROP TABLE memories_fts; CREATE VIRTUAL TABLE memories_fts USING fts5(question, answer, content='memories', content_rowid='rowid', tokenize='trigram'); UPDATE meta SET value = '1' WHERE key = 'schema_version'");
      db.close();
      const { store: s, result } = openCache({ dbPath, exportDir, model: 'none', dim: 0 });
      try {
        assert.equal(result.full, true);
        assert.match(result.reason ?? '', new RegExp(`schema 1 differs from ${STORE_VERSION}$`));
        assert.equal(s.fts('"heron"', {}, 5).length, 1);
      } finally {
        s.close();
      }
    } finally {
      d.cleanup();
    }
  });
});
