/**
 * Per-prompt recall reads the time in every prompt, and a prompt may be a pasted log or schedule
 * full of dates: reading it must take time in proportion to its length. Every match once looked
 * at the whole text before it, and an earlier match list grew with the text: 64 KB of `先月の`
 * took 5.5 s. Now each side of a match is read within a bounded window (when/words.ts
 * textBefore, textAfter), and what an earlier rule took is marked per character. Search asks
 * every query whether it is about the order of moments (asksAboutOrder), which on 32 KB of
 * "which first" took minutes: one clause at a time now.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { asksAboutOrder, readTime } from '../../src/search/when.js';

const NOW = new Date(2026, 11, 1, 11, 0, 0).getTime();

/** Text made of one phrase said again and again, cut to `n` characters. */
const again = (phrase: string) => (n: number) => phrase.repeat(Math.ceil(n / phrase.length)).slice(0, n);

/** Inputs dense with times, each once quadratic or worse. */
const FAMILIES: Record<string, (n: number) => string> = {
  '先月の (a month and a particle)': again('先月の'),
  '令和8年 (an era year, converted)': again('令和8年'),
  '3月から (a month and a span word)': again('3月から'),
  '"in March or " (two times joined)': again('in March or '),
  '"11/27/2026 " (full dates, as in a log)': again('11/27/2026 '),
  '"the day after Thanksgiving " (a day beside a named day)': again('the day after Thanksgiving '),
  '"last time " (the latest, not a period)': again('last time '),
  '前回の (the latest, in Japanese)': again('前回の'),
  '"before 2025 " (a year after a bound\'s word)': again('before 2025 '),
  '"from March 3, 2025 to April 5 " (a span\'s second time in the first\'s year)': again('from March 3, 2025 to April 5 '),
  '10月より前の (a bound in Japanese)': again('10月より前の'),
};

/** The fastest of five runs of each text, taken in turn: a slow spell of the machine falls on both. */
function fastest(small: string, big: string): [number, number] {
  const best = [Infinity, Infinity] as [number, number];
  for (let i = 0; i < 5; i++) {
    [small, big].forEach((text, k) => {
      const t = performance.now();
      readTime(text, NOW);
      best[k] = Math.min(best[k] as number, performance.now() - t);
    });
  }
  return best;
}

describe('reading the time in a long prompt takes time in proportion to it', () => {
  for (const [family, make] of Object.entries(FAMILIES)) {
    it(`${family}: 8× the input, about 8× the time`, () => {
      readTime(make(2048), NOW); // warm the expressions
      const [small, big] = fastest(make(4096), make(32_768));
      // Linear gives 8; quadratic 64. Timers are coarse below a millisecond: give the small side one.
      assert.ok(big / Math.max(small, 1) < 24, `${family}: 4 KB ${small.toFixed(1)} ms, 32 KB ${big.toFixed(1)} ms`);
    });
  }

  it('whether a long text asks about the order of moments: 8× the input, about 8× the time (it took minutes); a question after a paste is still read', () => {
    const time = (text: string) => {
      let best = Infinity;
      for (let i = 0; i < 5; i++) {
        const t = performance.now();
        asksAboutOrder(text);
        best = Math.min(best, performance.now() - t);
      }
      return best;
    };
    for (const make of [again('which first '), again(`${'which first '.repeat(41)}.`), again('how long ')]) {
      const [small, big] = [time(make(4096)), time(make(32_768))];
      assert.ok(big / Math.max(small, 1) < 24, `4 KB ${small.toFixed(1)} ms, 32 KB ${big.toFixed(1)} ms`);
    }
    const paste = `${'lorem ipsum dolor sit amet '.repeat(300)}. `;
    assert.equal(asksAboutOrder(`${paste}Which did I visit first, the museum or the gallery?`), true);
    assert.equal(asksAboutOrder(`${paste}Which museum did I visit?`), false);
  });

  it('a time after a long paste reads as it does alone, with the words before it that belong to it', () => {
    const paste = `${'const x = compute(a, b); // 2026 totals\n'.repeat(400)}\n`;
    for (const [question, label] of [
      ['what did we decide the day after Thanksgiving about the cache?', '2026-11-27'],
      ['what did we change the week before last about retries?', '2026-11-16 – 2026-11-22'],
      ['what broke on Friday, November 20?', '2026-11-20'],
      ['先月の20日に決めたこと', '2026-11-20'],
      ['what did we ship since March?', '2026-03-01 – 2026-12-01'],
    ] as const) {
      const alone = readTime(question, NOW);
      const long = readTime(paste + question, NOW);
      assert.equal(alone.period?.label, label, question);
      assert.equal(long.period?.label, label, `after ${paste.length} characters: ${question}`);
      assert.ok(long.text.endsWith(alone.text), `the words left: ${long.text.slice(-80)}`);
    }
  });

  it('next Friday after a long paste is still a time to come, and "May I" at a sentence start still no month', () => {
    const paste = `${'lorem ipsum dolor sit amet '.repeat(300)}. `;
    assert.equal(readTime(`${paste}what is planned for next Friday?`, NOW).period, undefined);
    assert.equal(readTime(`${paste}It broke. May I see the log?`, NOW).period, undefined);
    assert.equal(readTime(`${paste}the outage in May`, NOW).period?.label, '2026-05-01 – 2026-05-31');
  });
});
