/**
 * The keyword index's analysis, shared by indexing and querying so that both sides cut
 * text the same way. Pure.
 *
 * The FTS5 table tokenizes with `porter ascii` (words, English stemmed; foldText below does
 * for other scripts what the tokenizer does not). Before that, two things happen to the text here:
 *  - Runs of Japanese/Chinese characters (no spaces between words) become their
 *    overlapping bigrams ("認証エラー" → "認証 証エ エラ ラー"), the classic CJK analysis of
 *    search engines; a one-character run stays as it is.
 *  - Identifiers also give their parts: camelCase and letter/digit boundaries
 *    ("useEffect" → "use effect", "sqlite3" → "sqlite 3"), appended after the text, so
 *    `useEffect` is found whole and by `effect`. The tokenizer already splits on
 *    punctuation: `better-sqlite3`, `src/db.ts`, `ERR_MODULE_NOT_FOUND`.
 * Measured against a trigram index on the development set: bench/QUALITY.md.
 */

const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u30fc\u3005\u3006\u30f6]+/gu;
/**
 * Words of cased letters and digits (kana and kanji are \p{Lo}: not part of them). Kept as
 * two simple passes, word then boundary test: a single pattern with a boundary in the
 * middle backtracks quadratically on long runs (1.4 ms a memory; measured).
 */
const CASED_WORD = /[\p{Lu}\p{Ll}\p{Lt}\p{Lm}\p{N}]{2,32}/gu;
const INNER_BOUNDARY = /\p{Ll}\p{Lu}|\p{L}\p{N}|\p{N}\p{L}|\p{Lu}\p{Lu}\p{Ll}/u;

export function bigrams(run: string): string[] {
  const chars = Array.from(run);
  if (chars.length <= 1) return chars;
  const out: string[] = [];
  for (let i = 0; i + 1 < chars.length; i++) out.push(`${chars[i]}${chars[i + 1]}`);
  return out;
}

/**
 * The parts of one identifier-like word worth indexing: useEffect → [use, effect];
 * sqlite3 → [sqlite]; HTTPServer → [http, server]. Parts of one character are dropped, and
 * hash-like words (long, or in many pieces: 3f9a2c71) give none: they would only bloat the index.
 */
export function identifierParts(word: string): string[] {
  if (word.length > 32) return [];
  const raw = word
    .replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2')
    .replace(/(\p{L})(\p{N})/gu, '$1 $2')
    .replace(/(\p{N})(\p{L})/gu, '$1 $2')
    .split(' ')
    .filter((p) => p.length > 0);
  if (raw.length < 2 || raw.length > 4) return [];
  return raw.filter((p) => Array.from(p).length >= 2).map((p) => p.toLowerCase());
}

/** Text as the index sees it (before FTS5's own tokenizer). */
const NON_ASCII = /[^\x00-\x7f]/;

/** The same words and boundaries for plain ASCII text, without Unicode property classes (the common case, ~2× faster). */
const ASCII_WORD = /[A-Za-z0-9]{2,32}/g;
const ASCII_BOUNDARY = /[a-z][A-Z]|[A-Za-z][0-9]|[0-9][A-Za-z]|[A-Z][A-Z][a-z]/;

/**
 * The index's tokenizer is FTS5's `ascii` (with porter): it splits ASCII text at every
 * character that is not a letter or digit and folds ASCII case, but takes every other
 * character as part of a word, as it is. What `unicode61 remove_diacritics 2` did for the
 * rest is done here, for index and query alike (foldText): lower case, Latin letters without
 * their accents (café → cafe), and every character that is not a letter, digit or private
 * use (punctuation such as 、。「」—, symbols, emoji, combining marks) a space. unicode61's
 * classification of each non-ASCII character was about a third of the keyword index's
 * writing time, with Japanese bigrams most of the non-ASCII text (bench/RESULTS.md).
 */
const NON_TOKEN = /[^\x00-\x7f\p{L}\p{N}\p{Co}]+/gu;
const LATIN_LETTER = /[\u00c0-\u024f\u1e00-\u1eff]/g;
/** Accents, once Latin letters are decomposed (and lower-case İ is i + U+0307). */
const COMBINING_ACCENT = /[\u0300-\u036f]+/g;

/** Non-ASCII text as the `ascii` tokenizer must see it to cut and fold as unicode61 did (see above). */
export function foldText(text: string): string {
  if (!NON_ASCII.test(text)) return text;
  return text
    .toLowerCase()
    .replace(LATIN_LETTER, (c) => c.normalize('NFD'))
    .replace(COMBINING_ACCENT, '')
    .replace(NON_TOKEN, ' ');
}

export function indexText(text: string): string {
  // Most of a developer's text is ASCII: nothing to normalise, no CJK to cut.
  const ascii = !NON_ASCII.test(text);
  const norm = ascii ? text : text.normalize('NFKC');
  const parts: string[] = [];
  for (const m of norm.matchAll(ascii ? ASCII_WORD : CASED_WORD)) {
    if (!(ascii ? ASCII_BOUNDARY : INNER_BOUNDARY).test(m[0])) continue;
    const p = identifierParts(m[0]);
    if (p.length > 0) parts.push(p.join(' '));
  }
  // Folded before the bigrams: they only lengthen the text, and folding leaves letters as they are.
  const body = ascii ? norm : foldText(norm).replace(CJK_RUN, (run) => ` ${bigrams(run).join(' ')} `);
  if (parts.length === 0) return body;
  const tail = parts.join(' ');
  return `${body}\n${ascii ? tail : foldText(tail)}`;
}

/** How much of each neighbouring turn the context column holds: a long answer next door must not outweigh the memory itself. */
export const NEIGHBOUR_CHARS = 250;

function head(text: string, n: number): string {
  return text.length <= n ? text : text.slice(0, n);
}

/** A neighbouring turn as the context column sees it (analysed like every other column). */
export function neighbourText(question: string, answer: string): string {
  const q = head(question, NEIGHBOUR_CHARS);
  return indexText(`${q}\n${head(answer, Math.max(0, NEIGHBOUR_CHARS - q.length))}`);
}

/** A memory's analysed question and answer, and how it reads as a neighbour: [question, answer, as neighbour]. */
export type Analysed = [string, string, string];

export function analyseMemory(question: string, answer: string): Analysed {
  const q = indexText(question);
  const a = indexText(answer);
  return [q, a, question.length + answer.length < NEIGHBOUR_CHARS ? `${q}\n${a}` : neighbourText(question, answer)];
}
