/**
 * Free text → a safe FTS5 query for the word index (see analyze.ts). Pure.
 *
 * FTS5 has its own query language ("NEAR", "-", ":", "*", parentheses, quotes); a raw
 * question fails with a syntax error almost every time, and worse, can change meaning.
 * So the text is split into terms and every term is emitted as a double-quoted string
 * (quotes doubled), OR-ed and ranked by bm25. Nothing from the user reaches MATCH unquoted.
 *
 * Terms are cut the way the index cuts text: words (stemmed by the index's tokenizer; short
 * ones such as "DB", "CI", "go" match whole words only, never inside other words),
 * Japanese/Chinese runs as overlapping bigrams (a lone kanji as a prefix of them), and
 * identifiers both as a phrase of their parts ("better-sqlite3" → "better sqlite3",
 * "useEffect" → "use effect") and part by part. Stop words and particles are dropped.
 */
import { bigrams, foldText, identifierParts } from '../store/analyze.js';

export interface KeywordQuery {
  /** FTS5 MATCH expression, or undefined when nothing is left to search for. */
  match?: string;
  /** The terms and phrases inside `match`, unquoted (a prefix term ends with `*`). */
  terms: string[];
}

/** Queries are questions, not documents: past this the extra text only slows the search. */
export const MAX_QUERY_CHARS = 2000;
const MAX_TERMS = 40;

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

/** A Japanese or Chinese character (kanji, kana, the prolonged sound mark, 々 〆 ヶ). */
export const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u30fc\u3005\u3006\u30f6]/u;
const WORDCH = /[\p{L}\p{N}\p{M}]/u;
/** Text of hiragana alone (particles, endings): never a term on its own. */
export const HIRAGANA_ONLY = /^[\p{Script=Hiragana}\u30fc]+$/u;
/** Characters that join word parts into one identifier: better-sqlite3, src/db.ts, ERR_X, --no-verify. */
const JOINERS = new Set(['-', '.', '/', '_', ':', '#', '@', '+']);

type Kind = 'word' | 'cjk' | 'sep';

function kindOf(ch: string): Kind {
  if (CJK.test(ch)) return 'cjk';
  if (WORDCH.test(ch)) return 'word';
  return 'sep';
}

interface Token {
  text: string;
  kind: 'word' | 'cjk';
  /** Joined to the previous word token by a joiner character (an identifier continues). */
  joined: boolean;
}

function tokenize(text: string): Token[] {
  const chars = Array.from(text);
  const tokens: Token[] = [];
  let i = 0;
  let joiner = false;
  while (i < chars.length) {
    const ch = chars[i] as string;
    const k = kindOf(ch);
    if (k === 'sep') {
      joiner = JOINERS.has(ch) && tokens.length > 0 && i > 0 && kindOf(chars[i - 1] as string) === 'word' && !joiner;
      i++;
      continue;
    }
    let j = i + 1;
    while (j < chars.length && kindOf(chars[j] as string) === k) j++;
    const prev = tokens[tokens.length - 1];
    tokens.push({ text: chars.slice(i, j).join(''), kind: k, joined: k === 'word' && joiner && prev?.kind === 'word' });
    joiner = false;
    i = j;
  }
  return tokens;
}

export function quoteTerm(term: string): string {
  return `"${term.replace(/"/g, '""')}"`;
}

/** A term as FTS5 syntax: a quoted string; a trailing `*` (added here only) makes it a prefix. */
export function toFts(term: string): string {
  return term.endsWith('*') ? `${quoteTerm(term.slice(0, -1))}*` : quoteTerm(term);
}

/** Terms OR-ed into one FTS5 expression, each quoted (toFts). */
export function anyOfTerms(terms: string[]): string {
  return terms.map(toFts).join(' OR ');
}

/** Code pasted into a prompt as a chat shows it: a fenced block (to the prompt's end when left open). */
export const FENCED_CODE = /```[\s\S]*?(?:```|$)|~~~[\s\S]*?(?:~~~|$)/g;

/**
 * What a prompt that pastes code asks, in its own words: the text outside its fenced blocks and
 * its runs of pasted lines (withoutPastedLines), when that holds two search terms or more ("why
 * does the retry loop spin forever?"). The code would otherwise fill the query's terms
 * (MAX_TERMS) before the question below it is read. A prompt that says too little besides ("fix
 * this:") is the code, and is matched whole.
 */
export function ownWords(text: string): string {
  const fenced = text.includes('```') || text.includes('~~~');
  const own = withoutPastedLines(fenced ? text.replace(FENCED_CODE, ' ') : text);
  if (own === text) return text;
  return buildKeywordQuery(own).terms.length >= 2 ? own : text;
}

/** Lines pasted as they are (a terminal prompt renders no fence) that count as one paste: this many in a row at least. */
const PASTED_RUN = 3;
/** A comment's line: `//`, the start and end of a block comment and the ` * ` lines between, `#!`. */
const COMMENT = /^(?:[ \t]+\*(?: |$)|[ \t]*(?:\/\/|\/\*|\*\/|#!))|\*\/$/;
/** An item of a list the person typed (`- add a test`, `2) fix the bug`), indented or not. */
const LIST_ITEM = /^[ \t]*(?:[-*•+]|\d+[.)])\s/;
/** A line that starts as code or a stack frame does. */
const CODE_START = /^(?:#include\b|(?:import|export|const|let|var|function|return|def|class|public|private|package|using)\b|(?:if|for|while|switch)\s*\(|[}\])]|@\w|at\s+\S+\s+\(|File\s+"|Traceback\b|[\w.]*(?:Error|Exception)(?::|$))/;
/** A log's line: a timestamp or a level first. Its stamp still names the day it tells of (when.ts). */
const LOG_LINE = /^\[?(?:\d{4}-\d\d-\d\d[T ]\d\d:\d\d|(?:ERROR|WARN(?:ING)?|INFO|DEBUG|TRACE|FATAL)\b)/;
/** A line that ends as code does: a statement, a block opened or closed, an arrow. */
const CODE_END = /(?:[;{}[(]|=>)$/;
/** The characters code is dense with and prose is not. */
const CODE_MARKS = /[{}()[\];=<>|&$\\]/g;

/**
 * What a line of a prompt is when not the person's own words (a question never is): code (a
 * comment, a stack frame, a statement's end, markup dense with its marks), or a log's line; or
 * code only by its indent or its first word (`maybe`): prose wrapped under a list item, or a line
 * that starts "return the parcel", is so too.
 */
function pastedLine(line: string): 'code' | 'log' | 'maybe' | undefined {
  const t = line.trimEnd();
  if (t.endsWith('?') || t.endsWith('？')) return undefined;
  if (LOG_LINE.test(t.trimStart())) return 'log';
  if (COMMENT.test(t)) return 'code';
  if (LIST_ITEM.test(t)) return undefined;
  const dense = t.replace(/\s+/g, '');
  if (CODE_END.test(t) || (dense.length >= 8 && (dense.match(CODE_MARKS)?.length ?? 0) >= dense.length * 0.1)) return 'code';
  return /^[ \t]{2,}\S/.test(t) || CODE_START.test(t.trimStart()) ? 'maybe' : undefined;
}

/** A line of a paste put as it is: where it is in the text (its newline not included), and whether a log's. */
export interface PastedLine {
  start: number;
  end: number;
  log: boolean;
}

/**
 * The lines a prompt pastes with no fence (a terminal prompt renders none): each run of
 * PASTED_RUN or more lines of code, log or markup, blank lines inside a run belonging to it. A
 * run of lines that are code only by their indent or first word is not one: one of its lines at
 * least must end as a statement, hold code's marks, or be a comment or a log's.
 */
export function pastedLines(text: string): PastedLine[] {
  if (text.split('\n', PASTED_RUN).length < PASTED_RUN) return [];
  const out: PastedLine[] = [];
  let run: PastedLine[] = [];
  let count = 0;
  let sure = false;
  const close = () => {
    if (count >= PASTED_RUN && sure) out.push(...run);
    run = [];
    count = 0;
    sure = false;
  };
  let at = 0;
  for (const line of text.split('\n')) {
    const span = { start: at, end: at + line.length };
    at = span.end + 1;
    if (line.trim().length === 0) {
      if (count > 0) run.push({ ...span, log: false });
      continue;
    }
    const kind = pastedLine(line);
    if (kind === undefined) {
      close();
      continue;
    }
    run.push({ ...span, log: kind === 'log' });
    count++;
    if (kind !== 'maybe') sure = true;
  }
  close();
  return out;
}

/** A prompt without its pasted lines (pastedLines); the text itself when it holds none. */
export function withoutPastedLines(text: string): string {
  const spans = pastedLines(text);
  if (spans.length === 0) return text;
  let out = '';
  let at = 0;
  for (const s of spans) {
    out += text.slice(at, s.start);
    at = Math.min(text.length, s.end + 1);
  }
  return out + text.slice(at);
}

export function buildKeywordQuery(input: string): KeywordQuery {
  const text = Array.from(input.normalize('NFKC').replace(/[\u0000-\u001f\u007f]/g, ' '))
    .slice(0, MAX_QUERY_CHARS)
    .join('');
  const tokens = tokenize(text);
  const terms: string[] = [];
  const seen = new Set<string>();
  const add = (raw: string) => {
    // Cut and folded as the index's text is (analyze.ts foldText): café → cafe, Ä → a.
    const prefix = raw.endsWith('*');
    const folded = foldText(prefix ? raw.slice(0, -1) : raw).trim().replace(/ +/g, ' ');
    const t = folded.length > 0 && prefix ? `${folded}*` : folded;
    if (t.length > 0 && !seen.has(t) && terms.length < MAX_TERMS) {
      seen.add(t);
      terms.push(t);
    }
  };

  // Identifiers written with joiners: the phrase of their parts, in order.
  let run: string[] = [];
  const flush = () => {
    if (run.length > 1) add(run.join(' '));
    run = [];
  };
  for (const tok of tokens) {
    if (tok.kind === 'word' && tok.joined) run.push(tok.text.toLowerCase());
    else {
      flush();
      if (tok.kind === 'word') run = [tok.text.toLowerCase()];
    }
  }
  flush();

  for (const tok of tokens) {
    if (tok.kind === 'word') {
      const lower = tok.text.toLowerCase();
      const parts = identifierParts(tok.text);
      if (parts.length > 1) add(parts.join(' ')); // useEffect → "use effect"
      if (STOP_WORDS.has(lower)) continue;
      add(lower);
      continue;
    }
    // A Japanese/Chinese run: its bigrams, without particle-only ones.
    if (JA_NOISE.has(tok.text)) continue;
    const bs = bigrams(tok.text);
    if (bs.length === 1 && Array.from(tok.text).length === 1) {
      if (!HIRAGANA_ONLY.test(tok.text)) add(`${tok.text}*`); // a lone kanji: the start of the bigrams it begins
      continue;
    }
    const meaningful = bs.filter((b) => !HIRAGANA_ONLY.test(b) && !JA_NOISE.has(b));
    for (const b of meaningful.length > 0 ? meaningful : bs) add(b);
  }

  const q: KeywordQuery = { terms };
  if (terms.length > 0) q.match = anyOfTerms(terms);
  return q;
}
