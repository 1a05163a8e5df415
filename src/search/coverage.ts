/**
 * How much of a question a memory holds, each part of the question counted once. Pure.
 * bm25 adds each term up on its own, repeats included; search.ts multiplies each candidate's
 * score by one of these shares (bench/QUALITY.md).
 *
 * A Japanese or Chinese question is searched as its character pairs ("認証エラー" → 認証 証エ エラ
 * ラー): a memory holding a few of them many times can outrank the one that holds the question's
 * words whole. Its share: every two characters side by side in the question as the index folds
 * text (analyze.ts foldText: NFKC, lower case, punctuation a space) within a word, in any script
 * ("sqliteのロック": sq … te eの のロ ロッ ック), but for pairs of hiragana alone (particles and
 * endings: の, ている); a memory holds a pair when it stands in the memory's folded text.
 *
 * Any other question: the share of its terms (as query.ts cuts them), weighted by rarity, that
 * the memory's question (what the person said) holds; see weightedShare.
 */
import { foldText, indexText } from '../store/analyze.js';
import { CJK, HIRAGANA_ONLY } from './query.js';

const WORD_SPLIT = /[^a-z0-9\u0080-\uffff]+/;

const ASCII_SEPARATORS = /[\s\x00-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]+/;

const FRAME_EN = /\bhow (?:many|much|often|long|far)(?: (?:times|more|less))?\b|\b(?:something|anything|someone|anyone|somewhere|anywhere|ever)\b/gi;
const ORDER_FRAME_EN = /\b(?:from )?(?:the )?(?:earliest|first|oldest) to (?:the )?(?:latest|last|newest|most recent)\b|\b(?:in )?(?:what|which) order\b|\bthe order (?:of|in which)\b|\bchronological(?:ly)?(?: order)?\b/gi;
const FRAME_JA = /何回|何度|いくつ|どのくらい|どれくらい|どれぐらい|何個|何人|何日|何件/g;

/**
 * The question without the words that frame it rather than name its topic: what it counts or
 * measures ("how many times", "how long", 何回, どのくらい), the order it asks for ("from earliest
 * to latest", "in what order") and the placeholders of what it asks ("something", "anyone",
 * "ever"). A memory's share of the question is counted over the rest: another person's "how
 * many times have the Chiefs played the Jaguars?" holds no part of "how many times did I bake
 * something". Nothing left: the question as asked.
 */
export function questionContent(question: string): string {
  const rest = question.replace(FRAME_EN, ' ').replace(ORDER_FRAME_EN, ' ').replace(FRAME_JA, ' ');
  return rest.trim().length > 0 ? rest : question;
}

/** Text as the pairs are looked for in it. */
export function foldForCoverage(text: string): string {
  return foldText(text.normalize('NFKC')).toLowerCase();
}

/** The question's character pairs, each once (none when it holds no Japanese or Chinese character). */
export function questionPairs(question: string): string[] {
  if (!CJK.test(question)) return [];
  const pairs = new Set<string>();
  // Split where the index's tokenizer splits: spaces, and ASCII characters that are neither letters nor digits.
  for (const run of foldForCoverage(question).split(ASCII_SEPARATORS)) {
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

/** How rare a term is: bm25's idf for a term held by `df` of `n` memories (as FTS5 computes it, without its clamp). */
export function idf(n: number, df: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

/** The words of a memory's question, as the index cuts them (identifier parts included), in lower case. */
export function questionWords(text: string): Set<string> {
  return new Set(indexText(text).toLowerCase().split(WORD_SPLIT).filter((w) => w.length > 0));
}

function holdsWord(words: Set<string>, word: string): boolean {
  if (words.has(word)) return true;
  if (word.length < 3) return false;
  for (const w of words) if (w.length > word.length && w.startsWith(word)) return true;
  return false;
}

/**
 * The share of the question's terms, each weighted by how rare it is (`weights`, same order),
 * that the words of a memory's question hold. The index stems English words; here a word holds
 * a term when it is the term or begins with it ("deploy" is held by "deployed"), near enough for
 * a share. A phrase (an identifier's parts) is held when each of its words is; a prefix term
 * is not counted.
 */
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
