import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { freshness, fuseRanks, recencyBoost, tiedRanks } from '../../src/search/fuse.js';

describe('RRF', () => {
  it('uses 1-based ranks: 1/(k+1) for a first place', () => {
    const s = fuseRanks([['a', 'b']], 60);
    assert.equal(s.get('a'), 1 / 61);
    assert.equal(s.get('b'), 1 / 62);
  });

  it('sums over lists; absent from a list contributes nothing', () => {
    const s = fuseRanks([['a', 'b', 'c'], ['c', 'a']], 60);
    assert.equal(s.get('a'), 1 / 61 + 1 / 62);
    assert.equal(s.get('b'), 1 / 62);
    assert.equal(s.get('c'), 1 / 63 + 1 / 61);
    assert.ok((s.get('a') as number) > (s.get('c') as number));
  });

  it('k = 0 degenerates to 1/rank', () => {
    assert.equal(fuseRanks([['a', 'b']], 0).get('b'), 0.5);
  });

  it('equal distances share the first one\'s rank, and the next distance takes its place in the list', () => {
    assert.deepEqual(tiedRanks([0.1, 0.1, 0.2, 0.3, 0.3, 0.3, 0.4]), [1, 1, 3, 4, 4, 4, 7]);
    assert.deepEqual(tiedRanks([0.1, 0.2, 0.3]), [1, 2, 3]);
    assert.deepEqual(tiedRanks([]), []);
    const s = fuseRanks([{ keys: ['a', 'b', 'c'], ranks: tiedRanks([0.5, 0.5, 0.7]) }], 60);
    assert.equal(s.get('a'), s.get('b'));
    assert.equal(s.get('c'), 1 / 63);
  });
});

describe('recency prior', () => {
  const now = Date.parse('2026-11-29T00:00:00Z');
  const day = 86_400_000;
  it('freshness halves every half-life', () => {
    assert.equal(freshness(now, now, 30), 1);
    assert.equal(freshness(now - 30 * day, now, 30), 0.5);
    assert.equal(freshness(now - 60 * day, now, 30), 0.25);
    assert.ok(Math.abs(freshness(now - 15 * day, now, 30) - Math.SQRT1_2) < 1e-12);
  });
  it('the boost is bounded: a new memory gains at most the weight over one from years ago', () => {
    assert.equal(recencyBoost(now, now, 30, 0.1), 1.1);
    assert.equal(recencyBoost(now - 30 * day, now, 30, 0.1), 1.05);
    assert.ok(Math.abs(recencyBoost(now - 3650 * day, now, 30, 0.1) - 1) < 1e-12);
  });
  it('half-life 0 is relevance alone; future timestamps gain no more than a new memory', () => {
    assert.equal(recencyBoost(now - 3650 * day, now, 0, 0.1), 1);
    assert.equal(recencyBoost(now, now, 0, 0.1), 1);
    assert.equal(recencyBoost(now + 10 * day, now, 30, 0.1), 1.1);
  });
  it('a clearly better old match stays ahead of a weakly matching new one; comparable ones go newest first', () => {
    const fused = fuseRanks([['old-best', 'new-weak'], ['old-best']], 60); // first on both lists vs. second on one
    const old = (fused.get('old-best') as number) * recencyBoost(now - 400 * day, now, 30, 0.1);
    const fresh = (fused.get('new-weak') as number) * recencyBoost(now, now, 30, 0.1);
    assert.ok(old > fresh);
    const tie = fuseRanks([['a-old', 'b-new']], 60); // adjacent ranks on one list: comparable
    assert.ok((tie.get('b-new') as number) * recencyBoost(now, now, 30, 0.1) > (tie.get('a-old') as number) * recencyBoost(now - 400 * day, now, 30, 0.1));
  });
});
