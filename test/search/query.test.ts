import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { buildKeywordQuery, quoteTerm } from '../../src/search/query.js';
import { indexText } from '../../src/store/analyze.js';
import { KEYWORD_TOKENIZER } from '../../src/store/schema.js';

let db: Database.Database;
before(() => {
  // The cache's own table definition and analysis, so the queries are checked against what search runs on.
  db = new Database(':memory:');
  db.exec(`CREATE VIRTUAL TABLE t USING fts5(question, answer, content='', contentless_delete=1, tokenize='${KEYWORD_TOKENIZER}')`);
  const ins = db.prepare('INSERT INTO t (rowid, question, answer) VALUES (?, ?, ?)');
  const docs: Array<[string, string]> = [
    ['How to fix the SQLite lock timeout?', 'Use WAL and busy_timeout; better-sqlite3 needs it.'],
    ['認証エラーの原因は？', 'トークンの有効期限切れでした。DBの移行も必要。'],
    ['Why does useEffect run twice?', 'StrictMode mounts components twice in development; see src/App.tsx.'],
    ['A good idea for the update', 'Nothing about databases here, only goodness and updates.'],
    ['NEAR quote test', 'contains the word NEAR and a "quote"'],
  ];
  docs.forEach(([q, a], i) => ins.run(i + 1, indexText(q), indexText(a)));
});
after(() => db.close());

function matchIds(text: string): number[] {
  const q = buildKeywordQuery(text);
  if (!q.match) return [];
  return (db.prepare('SELECT rowid FROM t WHERE t MATCH ? ORDER BY rank').all(q.match) as Array<{ rowid: number }>).map((r) => r.rowid);
}

function matches(text: string): number {
  return matchIds(text).length;
}

describe('FTS5 query builder', () => {
  it('quotes every term and ORs them', () => {
    const q = buildKeywordQuery('sqlite lock timeout');
    assert.equal(q.match, '"sqlite" OR "lock" OR "timeout"');
  });

  it('drops stop words; identifiers count as a phrase of their parts and part by part', () => {
    const q = buildKeywordQuery('how do we use better-sqlite3 with the src/db.ts file');
    assert.ok(q.terms.includes('better sqlite3'), 'the whole identifier, as a phrase');
    assert.ok(q.terms.includes('better') && q.terms.includes('sqlite3'));
    assert.ok(q.terms.includes('src db ts'));
    assert.ok(!q.terms.includes('the') && !q.terms.includes('how'));
    assert.deepEqual(matchIds('better-sqlite3'), [1]);
  });

  it('camelCase is found whole and by its parts', () => {
    assert.ok(buildKeywordQuery('useEffect').terms.includes('use effect'));
    assert.deepEqual(matchIds('useEffect'), [3]);
    assert.deepEqual(matchIds('effect twice'), [3]);
    assert.deepEqual(matchIds('App.tsx'), [3]);
  });

  it('short words match whole words only, never inside longer ones', () => {
    assert.deepEqual(matchIds('DB'), [2], '"DB" is in 認証…DBの移行, not in "databases"');
    assert.deepEqual(matchIds('go'), [], 'not inside "good" or "goodness"');
    assert.deepEqual(matchIds('up'), [], 'a stop word, and not inside "update"');
  });

  it('doubles quotes inside a term', () => {
    assert.equal(quoteTerm('say "hi"'), '"say ""hi"""');
  });

  const hostile = [
    'NEAR(a b)', 'a OR b AND NOT c', '"unbalanced', "O'Reilly'; DROP TABLE t; --", 'col:value', 'prefix*', '-negated',
    '(((', ')', '^start', 'a + b', '{x y}: z', '🔥🚀 emoji only', '🔥sqlite🚀', '', '   ', '\u0000\u0001nul', 'NEAR', 'AND', 'OR NOT',
    'x'.repeat(100_000), '\uD800 lone surrogate', 'ｆｕｌｌ－ｗｉｄｔｈ　ＤＢ',
  ];
  for (const text of hostile) {
    it(`never produces an FTS5 syntax error: ${JSON.stringify(text.slice(0, 30))}`, () => {
      const q = buildKeywordQuery(text);
      if (q.match) assert.doesNotThrow(() => db.prepare('SELECT count(*) FROM t WHERE t MATCH ?').get(q.match));
      assert.ok(q.terms.length <= 40);
    });
  }

  it('operators in the text are searched as words, not obeyed', () => {
    assert.equal(matches('NEAR quote'), 1);
    assert.equal(matches('SQLite OR'), 1);
  });

  it('empty and punctuation-only input gives no query', () => {
    assert.equal(buildKeywordQuery('').match, undefined);
    assert.equal(buildKeywordQuery('?!… ---').match, undefined);
  });

  it('splits Japanese runs into overlapping bigrams, without particle-only ones', () => {
    const q = buildKeywordQuery('認証エラーの原因');
    for (const b of ['認証', '証エ', 'エラ', 'ラー', 'の原', '原因']) assert.ok(q.terms.includes(b), b);
    assert.deepEqual(matchIds('認証エラーの原因'), [2]);
    assert.deepEqual(matchIds('認証'), [2], 'a two-character word is one bigram: found precisely');
  });

  it('splits at script changes, so mixed text without spaces works', () => {
    const q = buildKeywordQuery('SQLiteのロック');
    assert.ok(q.terms.includes('sqlite'));
    assert.ok(q.terms.includes('ロッ') && q.terms.includes('ック'));
    assert.deepEqual(matchIds('DB移行'), [2], 'DB and 移行, each whole');
  });

  it('a lone kanji is the start of the bigrams it begins; single particles are noise', () => {
    assert.ok(buildKeywordQuery('認').terms.includes('認*'));
    assert.deepEqual(matchIds('認'), [2]);
    assert.equal(buildKeywordQuery('の').match, undefined);
  });

  it('NFKC folds full-width text', () => {
    assert.ok(buildKeywordQuery('ＳＱＬｉｔｅ').terms.includes('sqlite'));
  });
});

describe('text outside ASCII, under the ascii tokenizer', () => {
  // The index's tokenizer cuts and folds ASCII only; analyze.ts folds the rest. unicode61
  // (with remove_diacritics 2) is what it replaced: on the same analysed text both must give
  // the same tokens at the same places.
  const samples = [
    'Café crème — naïve résumé, Ångström; Øresund Straße Łódź façade',
    'Привет, МИР! Ёлка й Ελληνικά ΆΈΉ',
    '「設定」、変更。認証エラー（タイムアウト）…DBの移行も必要！',
    'ｆｕｌｌ－ｗｉｄｔｈ ＡＢＣ１２３　全角スペース №5 ½ ①',
    'useEffect がまた２回走る in StrictMode; src/App.tsx → Größe2Wert',
    'tab\there nbsp\u00a0x zero\u200bwidth soft\u00adhyphen İstanbul ǅ ﬁ',
  ];
  let t: Database.Database;
  before(() => {
    t = new Database(':memory:');
    t.exec(`CREATE VIRTUAL TABLE a USING fts5(x, tokenize='${KEYWORD_TOKENIZER}'); CREATE VIRTUAL TABLE a_v USING fts5vocab(a, instance);
            CREATE VIRTUAL TABLE u USING fts5(x, tokenize='porter unicode61 remove_diacritics 2'); CREATE VIRTUAL TABLE u_v USING fts5vocab(u, instance);`);
    samples.forEach((s, i) => {
      t.prepare('INSERT INTO a (rowid, x) VALUES (?, ?)').run(i + 1, indexText(s));
      t.prepare('INSERT INTO u (rowid, x) VALUES (?, ?)').run(i + 1, indexText(s));
    });
  });
  after(() => t.close());
  const tokens = (table: string, doc: number): string[] =>
    (t.prepare(`SELECT term FROM ${table}_v WHERE doc = ? ORDER BY offset`).all(doc) as Array<{ term: string }>).map((r) => r.term);
  const found = (text: string): number[] => {
    const q = buildKeywordQuery(text);
    return q.match ? (t.prepare('SELECT rowid FROM a WHERE a MATCH ? ORDER BY rowid').all(q.match) as Array<{ rowid: number }>).map((r) => r.rowid) : [];
  };

  it('gives the tokens unicode61 gives, at the same places', () => {
    samples.forEach((s, i) => assert.deepEqual(tokens('a', i + 1), tokens('u', i + 1), s));
    assert.deepEqual(tokens('a', 1).slice(0, 6), ['cafe', 'creme', 'naiv', 'resum', 'angstrom', 'øresund']);
    assert.deepEqual(tokens('a', 3).slice(0, 3), ['設定', '変更', '認証']);
  });

  it('finds words whatever their case, accents or punctuation', () => {
    assert.deepEqual(found('cafe'), [1]);
    assert.deepEqual(found('CAFÉ résumé'), [1]);
    assert.deepEqual(found('Naïve'), [1]);
    assert.deepEqual(found('мир'), [2]);
    assert.deepEqual(found('ёлка'), [2]);
    assert.deepEqual(found('設定の変更'), [3]);
    assert.deepEqual(found('istanbul'), [6]);
    assert.deepEqual(found('größe'), [5], 'an identifier part with an umlaut');
  });

  it('a word glued to an emoji is found by itself', () => {
    t.prepare('INSERT INTO a (rowid, x) VALUES (?, ?)').run(100, indexText('deploy🚀prod ready✅'));
    assert.deepEqual(found('prod'), [100]);
    assert.deepEqual(found('ready'), [100]);
  });
});
