/**
 * Redaction runs over whole prompts and answers on every Stop: every rule must take time in
 * proportion to its input. Two checks per family of rules: no rule holds an unbounded lazy
 * run (the construct that is tried from every start position to the end of a run of word
 * characters and joiners), and an adversarial input eight times longer takes about eight
 * times as long, not 64 (quadratic) or 512 (cubic, what the provider rule did: 23 s on 10 KB).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { redactSecrets } from '../../src/index.js';
import { SECRET_RULES } from '../../src/privacy/rules.js';
import { ADVERSARIAL } from '../../bench/adversarial.js';

/** The fastest of seven runs of each text, the two taken in turn: a slow spell of the machine falls on both, not on one. */
function fastest(small: string, big: string): [number, number] {
  const best = [Infinity, Infinity] as [number, number];
  for (let i = 0; i < 7; i++) {
    [small, big].forEach((text, k) => {
      const t = performance.now();
      redactSecrets(text);
      best[k] = Math.min(best[k] as number, performance.now() - t);
    });
  }
  return best;
}

describe('redaction in linear time', () => {
  it('no rule holds an unbounded lazy run (a bounded one: {0,64}?)', () => {
    const unbounded = SECRET_RULES.filter((r) => /(?<!\\)[*+]\?/.test(r.re.source.replace(/\[\\s\\S\]\*\?\(\?:-----END/g, '')));
    assert.deepEqual(unbounded.map((r) => `${r.kind}: ${r.re.source.slice(0, 80)}`), []);
  });

  for (const [family, make] of Object.entries(ADVERSARIAL)) {
    it(`${family}: 8× the input, about 8× the time`, () => {
      redactSecrets(make(4096)); // warm the expressions
      const [small, big] = fastest(make(16_384), make(131_072));
      // Linear gives 8; quadratic 64. Timers are coarse below a millisecond: give the small side one.
      assert.ok(big / Math.max(small, 1) < 24, `${family}: 16 KB ${small.toFixed(1)} ms, 128 KB ${big.toFixed(1)} ms`);
    });
  }
});
