/**
 * How much of a Japanese or Chinese question a memory holds. Pure.
 *
 * Such a question is searched as its character pairs ("認証エラー" → 認証 証エ エラ ラー), and bm25
 * adds each pair up on its own: a memory holding a few of them many times can outrank the one
 * that holds the question's words whole. The share of the question's character pairs a memory
 * holds tells them apart (search.ts uses it among the candidates; bench/QUALITY.md).
 *
 * The pairs are every two characters side by side in the question as the index folds text
 * (analyze.ts foldText: NFKC, lower case, punctuation a space), in any script ("sqliteのロック":
 * sq … te eの のロ ロッ ック), but for pairs of hiragana alone (particles and endings: の, ている);
 * a memory holds a pair when it stands in the memory's folded text. A question with no
 * Japanese or Chinese character has no pairs: its terms are whole words (query.ts).
 */
import { foldText, indexText } from '../store/analyze.js';

const WORD_SPLIT = /[^a-z0-9\u0080-\uffff]+/;

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u30fc\u3005\u3006\u30f6]/u;
const HIRAGANA_ONLY = /^[\p{Script=Hiragana}\u30fc]+$/u;

/** Text as the pairs are looked for in it. */
export function foldForCoverage(text: string): string {
  return foldText(text.normalize('NFKC')).toLowerCase();
}

/** The question's character pairs, each once (none when it holds no Japanese or Chinese character). */
export function questionPairs(question: string): string[] {
  if (!CJK.test(question)) return [];
  const pairs = new Set<string>();
  for (const run of foldForCoverage(question).split(/\s+/)) {
    const chars = Array.from(run);
    for (let i = 0; i + 1 < chars.length; i++) {
      const p = `${chars[i]}${chars[i + 1]}`;
      if (!HIRAGANA_ONLY.test(p)) pairs.add(p);
    }
  }
  return [...pairs];
}

/** The share of the pairs that stand in the folded text (0 with no pairs). */
export function heldShare(pairs: string[], folded: string): number {
  if (pairs.length === 0) return 0;
  let n = 0;
  for (const p of pairs) if (folded.includes(p)) n++;
  return n / pairs.length;
}

/**
 * How much of an English (or any spaced-script) question the person's own words in a memory
 * hold: the question's terms, each weighted by how rare it is (`weights`, same order), that the
 * memory's question holds. The index stems English words; here a word of the memory's
 * question holds a term when it is the term or begins with it ("deploy" is held by
 * "deployed"), near enough for a share. A phrase (an identifier's parts) is held when each of
 * its words is; a prefix term is not counted.
 */
export function questionWords(text: string): Set<string> {
  return new Set(indexText(text).toLowerCase().split(WORD_SPLIT).filter((w) => w.length > 0));
}

function holdsWord(words: Set<string>, word: string): boolean {
  if (words.has(word)) return true;
  if (word.length < 3) return false;
  for (const w of words) if (w.length > word.length && w.startsWith(word)) return true;
  return false;
}

export function weightedShare(terms: string[], weights: number[], words: Set<string>): number {
  let held = 0;
  let total = 0;
  terms.forEach((t, i) => {
    const w = weights[i] ?? 0;
    total += w;
    if (!t.endsWith('*') && t.split(' ').every((part) => holdsWord(words, part))) held += w;
  });
  return total > 0 ? held / total : 0;
}
