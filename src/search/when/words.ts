/**
 * The words of time: month and weekday names, numbers in words and in kanji, and the Japanese
 * words around a time that make it one (に, の夜, 前後) or make it a plan (までに, 締め). Shared by
 * the rules (rules.ts) and the reading (../when.ts).
 */
import { type MonthPart } from './calendar.js';

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const MONTH_ABBR = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
export const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
export const JA_WEEKDAYS = ['日', '月', '火', '水', '木', '金', '土'];
const NUMBER_WORDS: Record<string, number> = {
  a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, eleven: 11, twelve: 12, couple: 2, 'a couple': 2, 'couple of': 2, 'a couple of': 2, few: 3, 'a few': 3, several: 3,
};
const KANJI_DIGITS: Record<string, number> = { 一: 1, 二: 2, 三: 3, 四: 4, 五: 5, 六: 6, 七: 7, 八: 8, 九: 9, 十: 10 };

/** The third or half a Japanese month ends with: 3月上旬, 先月末, 6月末ごろ, 先月後半 (none: the whole month). */
export function jaMonthPart(text: string): MonthPart | undefined {
  if (/中(?:頃|ごろ)$/.test(text)) return 'mid';
  const t = text.replace(/前後$/, '').replace(JA_NEAR_END, '');
  if (/前半$/.test(t)) return 'first';
  if (/後半$/.test(t)) return 'second';
  if (/(?:上旬|初旬|初め|頭|月初)$/.test(t)) return 'early';
  if (/(?:中旬|半ば)$/.test(t)) return 'mid';
  if (/(?:下旬|末|終わり|暮れ)$/.test(t)) return 'late';
  return undefined;
}

/** The part an English word names: early, the beginning (start) of; mid, the middle of; late, the end of; the first (second) half of. */
export function enMonthPart(word: string | undefined): MonthPart | undefined {
  const w = (word ?? '').toLowerCase();
  if (/^(?:the\s+)?first\s+half/.test(w)) return 'first';
  if (/^(?:the\s+)?(?:second|latter)\s+half/.test(w)) return 'second';
  if (/^(?:early|(?:the\s+)?(?:beginning|start))/.test(w)) return 'early';
  if (/^(?:mid|(?:the\s+)?middle)/.test(w)) return 'mid';
  if (/^(?:late|(?:the\s+)?end)/.test(w)) return 'late';
  return undefined;
}

/** The latest month m (0-based) that has begun by now. */
/** The English words that make a time a bound, said before it: "before October", "until 2024" (when.ts bound). */
export const BOUND_WORDS = 'before|prior to|until|till|after';
export const JA_MONTHS = 'か月|ヶ月|カ月|ヵ月|ケ月';
export const MONTH_UNIT = new RegExp(`^(month|${JA_MONTHS})`);

/** This week: Monday to the Monday after. */
export const SLASH_DAY = String.raw`(\d{1,2})\/(\d{1,2})(\s*\([日月火水木金土]\))?`;

/**
 * The month (0-based) and day of `a/b`: month first, as Japanese and American dates are; day first
 * only after a cue (on 15/3) and where the first number cannot be a month. Undefined for no date.
 */
export const ORDINALS: Record<string, number> = { first: 1, '1st': 1, second: 2, '2nd': 2, third: 3, '3rd': 3, fourth: 4, '4th': 4, last: 4, final: 4 };
export const JA_ORDINAL: Record<string, number> = { '1': 1, '2': 2, '3': 3, '4': 4, 一: 1, 二: 2, 三: 3, 四: 4 };

/** The year an English phrase names: 2025, this year, the year (this one), last year. */
export function count(word: string): number | undefined {
  const w = word.toLowerCase().trim();
  if (/^\d+$/.test(w)) return Number(w);
  if (w in NUMBER_WORDS) return NUMBER_WORDS[w];
  if (w === '数') return NUMBER_WORDS['a few'];
  if (/^[一二三四五六七八九十]+$/.test(w)) {
    // 十 alone 10, 二十 20, 十二 12, 二十三 23.
    const i = w.indexOf('十');
    if (i < 0) return KANJI_DIGITS[w];
    const tens = i === 0 ? 1 : (KANJI_DIGITS[w.slice(0, i)] ?? 0);
    const ones = i === w.length - 1 ? 0 : (KANJI_DIGITS[w.slice(i + 1)] ?? 0);
    return tens * 10 + ones;
  }
  return undefined;
}

export function monthIndex(name: string): number {
  const n = name.toLowerCase().replace(/\.$/, '');
  const full = MONTHS.indexOf(n);
  if (full >= 0) return full;
  return MONTH_ABBR.indexOf(n === 'sept' ? 'sep' : n);
}

export const NUM_EN = String.raw`(\d{1,3}|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a couple of|couple of|a couple|couple|a few|few|several)`;
export const MONTH_NAMES = String.raw`(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\b\.?`;
export const NUM_JA = String.raw`(\d{1,3}|[一二三四五六七八九十]{1,3}|数)`;
/** "About": 2週間ほど前, 3日くらい前. */
export const JA_ABOUT = String.raw`(?:ほど|くらい|ぐらい|程|ちょっと|ちょい|あまり|余り|近く|弱|強)?`;
/** Parts of a month or year: 3月上旬 (1–10 March), 6月末ごろ (21–30 June), 3月後半 (16–31 March); 1240年頃, 2025年末 (that year); 3月中に, 3月あたり, 3月前後 (the month). */
export const JA_PART = String.raw`(?:上旬|中旬|下旬|初旬|初め(?!て)|半ば|末|の?中(?:頃|ごろ)|中(?=[にのはでもまだ、,。?？!！]|$)|の?前半|の?後半|の?頭(?![痛数金文字脳部上皮髪取])|の(?:上旬|中旬|下旬|初旬|初め(?!て)|半ば|末|終わり|暮れ))?(?:頃|ごろ|あたり|辺り|前後)?`;
export const JA_YEARS: Record<string, number> = { 今年: 0, 去年: -1, 昨年: -1, 一昨年: -2 };
/** "Around": 先週あたり, 先月くらい, 去年ごろ. */
export const JA_NEAR = String.raw`(?:あたり|辺り|くらい|ぐらい|頃|ごろ)?`;
const JA_NEAR_END = new RegExp(`${JA_NEAR}$`);
/** A part of a day after a day (昨日の午後, 月曜の朝に): it leaves with the day, which stays whole. Not 朝会, 昼ご飯. */
export const JA_DAYPART = String.raw`(?:の?(?:朝一?|明け方|午前中?|午後|昼(?:過ぎ|前)?|夕方|夜(?:中|遅く)?|晩|深夜)(?=[にのはでもかま、。,.!?\s]|$))?`;
/** After a time, a deadline, a plan or a cycle, not a time of the past: 年末までに, 週明けに向けて, GWの予定, 月末締め. */
export const JA_PLAN = /^(?:まで|に向け|の?予定|締め|〆|払い)/;
/** After a named day, what makes it a time: に (not に向けた, について), 前後, 頃, から, の夜. */
export const JA_OF_TIME = /^(?:に(?!向け|つい|関|合わせ|対)|前後|頃|ごろ|以降|以来|から|当日|の(?:日|夜|朝|週|頃|間|時期|前|後))/;

/** A month name that is meant as one (see the top of ../when.ts). */
export function isMonthWord(word: string, before: string, after: string, atStart: boolean): boolean {
  const lower = word.toLowerCase().replace(/\.$/, '');
  const cue = /\b(in|during|since|from|until|till|by|last|this|early|late|mid|of|on|before|after)[\s-]+$/i.test(before);
  // A day after it, not a count ("ask Jan 3 times", "Mar 2 retries"); or a day before it ("27 Nov").
  const dated = /^\.?\s*(\d{1,2}(st|nd|rd|th)?\b(?!\s+(?:times?|x|[a-z]+s)\b)|,?\s*\d{4}\b)/.test(after) || /\b(?:[1-9]|[12]\d|3[01])(st|nd|rd|th)?\s+(?:of\s+)?$/.test(before);
  if (lower === 'may') {
    if (word[0] !== 'M') return false;
    if (atStart && /^\s+(i|we|you|it|this|that|they|he|she)\b/i.test(after)) return false;
    return cue || dated || !atStart;
  }
  if (lower.length <= 4 && MONTHS.indexOf(lower) < 0) {
    // An abbreviation (Jan, Mar, Sept) only capitalised and with a cue or a date.
    return word[0] === word[0]?.toUpperCase() && word[0] !== word[0]?.toLowerCase() && (cue || dated);
  }
  if (word[0] === word[0]?.toUpperCase() && word[0] !== word[0]?.toLowerCase()) return lower !== 'march' || cue || dated || !atStart;
  return cue || dated;
}

export function weekdayIndex(word: string): number {
  const w = word.toLowerCase().slice(0, 3);
  return WEEKDAYS.findIndex((d) => d.startsWith(w));
}

export const WEEK_ORDINALS: Record<string, number | undefined> = { first: 1, '1st': 1, second: 2, '2nd': 2, third: 3, '3rd': 3, fourth: 4, '4th': 4, last: undefined, final: undefined };

/** Whether a period is one calendar month. */

/**
 * How much of the question on each side of a match the rules look at: more than the longest
 * phrase said before or after a time ("during the fourth week of ", "this coming Monday to ").
 * Bounded, so a long prompt full of dates (a pasted log, a schedule) reads in linear time:
 * every match looking at the whole text before it made 64 KB of `先月の` take 5.5 s.
 */
const CONTEXT = 80;

/** The text before `at` that a rule reads; cut, it starts with a mark, so that `^` is never taken for the question's start. */
export function textBefore(input: string, at: number): string {
  return at <= CONTEXT ? input.slice(0, at) : `\u0000${input.slice(at - CONTEXT, at)}`;
}

/** The text after `at` that a rule reads; cut, it ends with a mark, so that `$` is never taken for the question's end. */
export function textAfter(input: string, at: number): string {
  return input.length - at <= CONTEXT ? input.slice(at) : `${input.slice(at, at + CONTEXT)}\u0000`;
}
