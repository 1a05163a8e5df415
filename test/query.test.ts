import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { buildKeywordQuery, quoteTerm } from '../src/search/query.js';

let db: Database.Database;
before(() => {
  db = new Database(':memory:');
  db.exec("CREATE VIRTUAL TABLE t USING fts5(question, answer, tokenize='trigram')");
  const ins = db.prepare('INSERT INTO t (question, answer) VALUES (?, ?)');
  ins.run('How to fix the SQLite lock timeout?', 'Use WAL and busy_timeout; better-sqlite3 needs it.');
  ins.run('認証エラーの原因は？', 'トークンの有効期限切れでした。DBの移行も必要。');
  ins.run("Don't quote (NEAR) things", 'the * and : and - operators; O\'Reilly said "hi"');
});
after(() => db.close());

function matches(text: string): number {
  const q = buildKeywordQuery(text);
  if (!q.match) return 0;
  return (db.prepare('SELECT count(*) AS n FROM t WHERE t MATCH ?').get(q.match) as { n: number }).n;
}

describe('FTS5 query builder', () => {
  it('quotes every term and ORs them', () => {
    const q = buildKeywordQuery('sqlite lock timeout');
    assert.equal(q.match, '"sqlite" OR "lock" OR "timeout"');
  });

  it('drops stop words and keeps identifiers whole as an extra term', () => {
    const q = buildKeywordQuery('how do we use better-sqlite3 with the src/db.ts file');
    assert.ok(q.terms.includes('better'));
    assert.ok(q.terms.includes('sqlite3'));
    assert.ok(q.terms.includes('better-sqlite3'));
    assert.ok(q.terms.includes('src/db.ts'));
    assert.ok(!q.terms.includes('the') && !q.terms.includes('how'));
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
      for (const t of q.terms) assert.ok(Array.from(t).length >= 3, `term ${t} is long enough for trigrams`);
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

  it('splits Japanese runs into overlapping 3-character windows, without particle-only windows', () => {
    const q = buildKeywordQuery('認証エラーの原因');
    assert.ok(q.terms.includes('認証エ'));
    assert.ok(q.terms.includes('エラー'));
    assert.ok(q.terms.includes('の原因'));
    assert.equal(matches('認証エラーの原因'), 1);
  });

  it('splits at script changes, so mixed text without spaces works', () => {
    const q = buildKeywordQuery('SQLiteのロック');
    assert.ok(q.terms.includes('sqlite'));
    assert.ok(q.terms.includes('ロック'));
  });

  it('1–2 character terms become substring needles and are widened with their neighbour', () => {
    const q = buildKeywordQuery('DB移行');
    assert.deepEqual(q.short.sort(), ['db', '移行'].sort());
    assert.ok(q.terms.includes('db移行'));
    assert.equal(matches('DB移行'), 0, 'the widened span is a phrase; the text has "DBの移行"');
    const only = buildKeywordQuery('認証');
    assert.equal(only.match, undefined);
    assert.deepEqual(only.short, ['認証']);
    assert.deepEqual(buildKeywordQuery('UI').short, ['ui']);
  });

  it('single particles are noise', () => {
    assert.deepEqual(buildKeywordQuery('の').short, []);
  });

  it('NFKC folds full-width text', () => {
    assert.ok(buildKeywordQuery('ＳＱＬｉｔｅ').terms.includes('sqlite'));
  });
});
