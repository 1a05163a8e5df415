import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decayFactor, fuseRanks } from '../src/search/fuse.js';

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
});

describe('time decay', () => {
  const now = Date.parse('2026-11-29T00:00:00Z');
  const day = 86_400_000;
  it('halves every half-life', () => {
    assert.equal(decayFactor(now, now, 30), 1);
    assert.equal(decayFactor(now - 30 * day, now, 30), 0.5);
    assert.equal(decayFactor(now - 60 * day, now, 30), 0.25);
    assert.ok(Math.abs(decayFactor(now - 15 * day, now, 30) - Math.SQRT1_2) < 1e-12);
  });
  it('half-life 0 disables decay; future timestamps are not boosted', () => {
    assert.equal(decayFactor(now - 3650 * day, now, 0), 1);
    assert.equal(decayFactor(now + 10 * day, now, 30), 1);
  });
});
