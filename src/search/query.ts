/**
 * Free text → a safe FTS5 query for the trigram index. Pure.
 *
 * FTS5 has its own query language ("NEAR", "-", ":", "*", parentheses, quotes); a raw
 * question fails with a syntax error almost every time, and worse, can change meaning.
 * So the text is split into terms and every term is emitted as a double-quoted string
 * (quotes doubled), OR-ed. Nothing from the user reaches MATCH unquoted.
 *
 * The trigram index only serves terms of 3+ characters. Japanese has no spaces, so a run
 * of kanji/kana becomes its overlapping 3-character windows; terms of 1–2 characters
 * ("DB", "認証") are widened with the neighbour they touch in the query ("DB移行") and
 * also returned as `short` needles for a substring scan.
 */

export interface KeywordQuery {
  /** FTS5 MATCH expression, or undefined when no term is long enough. */
  match?: string;
  /** The terms inside `match`, unquoted. */
  terms: string[];
  /** 1–2 character terms, for a substring (instr) scan. */
  short: string[];
}

/** Queries are questions, not documents: past this the extra text only slows the search. */
export const MAX_QUERY_CHARS = 2000;
const MAX_TERMS = 40;
const MAX_SHORT = 8;

const STOP_WORDS = new Set(
  `a an the and or but if then else of to in on at by for with from into onto about as is are was were be been being
   it its this that these those there here what which who whom whose how why when where do does did done doing
   can could should would will shall may might must have has had having i me my we our you your he him his she her
   they them their not no yes so too very just also than such any all some each every please thanks thank
   let lets get got make made use using want wanted need needed know think see look like tell told say said`
    .split(/\s+/)
    .filter((w) => w.length > 0),
);

// Japanese particles and function words: never a search term on their own.
const JA_NOISE = new Set(
  `の は が を に へ と で や も か な ね よ から まで より って とか など ので のに けど けれど について ため です ます でした ました
   する した して ある いる なる こと もの これ それ あれ どれ この その あの どの どう 何 なに`
    .split(/\s+/)
    .filter((w) => w.length > 0),
);

type Kind = 'word' | 'cjk' | 'sep';

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u30fc\u3005\u3006\u30f6]/u;
const WORDCH = /[\p{L}\p{N}\p{M}_]/u;
const HIRAGANA_ONLY = /^[\p{Script=Hiragana}\u30fc]+$/u;
/** Characters that join word parts into one identifier: better-sqlite3, src/db.ts, v1.2. */
const JOINERS = new Set(['-', '.', '/', '_', ':', '#', '@', '+']);

function kindOf(ch: string): Kind {
  if (CJK.test(ch)) return 'cjk';
  if (WORDCH.test(ch)) return 'word';
  return 'sep';
}

interface Token {
  text: string;
  kind: 'word' | 'cjk';
  start: number;
  end: number;
}

function tokenize(text: string): Token[] {
  const chars = Array.from(text);
  const tokens: Token[] = [];
  let i = 0;
  while (i < chars.length) {
    const k = kindOf(chars[i] as string);
    if (k === 'sep') {
      i++;
      continue;
    }
    let j = i + 1;
    while (j < chars.length && kindOf(chars[j] as string) === k) j++;
    tokens.push({ text: chars.slice(i, j).join(''), kind: k, start: i, end: j });
    i = j;
  }
  return tokens;
}

/** Identifiers such as "better-sqlite3" or "src/db.ts", kept whole as an extra, precise term. */
function compounds(text: string): string[] {
  const out: string[] = [];
  const chars = Array.from(text);
  let cur = '';
  let joined = false;
  const flush = () => {
    const trimmed = cur.replace(/[-./_:#@+]+$/u, '');
    if (joined && Array.from(trimmed).length >= 3) out.push(trimmed);
    cur = '';
    joined = false;
  };
  for (const ch of chars) {
    if (kindOf(ch) === 'word') cur += ch;
    else if (JOINERS.has(ch) && cur.length > 0) {
      cur += ch;
      joined = true;
    } else flush();
  }
  flush();
  return out.filter((c) => /[-./_:#@+][\p{L}\p{N}]/u.test(c));
}

function windows(run: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i + 3 <= run.length; i++) out.push(run.slice(i, i + 3).join(''));
  return out;
}

export function quoteTerm(term: string): string {
  return `"${term.replace(/"/g, '""')}"`;
}

export function buildKeywordQuery(input: string): KeywordQuery {
  const text = Array.from(input.normalize('NFKC').replace(/[\u0000-\u001f\u007f]/g, ' '))
    .slice(0, MAX_QUERY_CHARS)
    .join('')
    .toLowerCase();
  const tokens = tokenize(text);
  const chars = Array.from(text);
  const terms: string[] = [];
  const short: string[] = [];
  const seen = new Set<string>();
  const addTerm = (t: string) => {
    if (!seen.has(t) && terms.length < MAX_TERMS) {
      seen.add(t);
      terms.push(t);
    }
  };
  const addShort = (t: string) => {
    if (!short.includes(t) && short.length < MAX_SHORT) short.push(t);
  };

  for (const [idx, tok] of tokens.entries()) {
    const len = Array.from(tok.text).length;
    if (tok.kind === 'word') {
      if (STOP_WORDS.has(tok.text)) continue;
      if (len >= 3) addTerm(tok.text);
      else {
        addShort(tok.text);
        widen(tok, tokens[idx - 1], tokens[idx + 1], chars, addTerm);
      }
      continue;
    }
    // Kanji/kana run.
    if (JA_NOISE.has(tok.text)) continue;
    const run = Array.from(tok.text);
    if (len >= 3) {
      const ws = windows(run);
      const meaningful = ws.filter((w) => !HIRAGANA_ONLY.test(w) && !JA_NOISE.has(w));
      for (const w of meaningful.length > 0 ? meaningful : ws) addTerm(w);
    } else if (!(len === 1 && HIRAGANA_ONLY.test(tok.text))) {
      addShort(tok.text);
      widen(tok, tokens[idx - 1], tokens[idx + 1], chars, addTerm);
    }
  }
  for (const c of compounds(text)) addTerm(c);

  const q: KeywordQuery = { terms, short };
  if (terms.length > 0) q.match = terms.map(quoteTerm).join(' OR ');
  return q;
}

/** A short term touching a neighbour with no separator ("DB移行") is matched as the joined span. */
function widen(tok: Token, prev: Token | undefined, next: Token | undefined, chars: string[], add: (t: string) => void): void {
  // The short term plus up to two characters of the neighbour it touches.
  const spans: string[] = [];
  if (prev && prev.end === tok.start) spans.push(chars.slice(Math.max(prev.start, tok.start - 2), tok.end).join(''));
  if (next && next.start === tok.end) spans.push(chars.slice(tok.start, Math.min(next.end, tok.end + 2)).join(''));
  for (const span of spans) if (Array.from(span).length >= 3) add(span);
}
