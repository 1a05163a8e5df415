/**
 * Time in a question: "what did we do last week", "the May 2026 deploy", "先月の障害".
 * A time expression names a period, computed from the clock at query time in this
 * machine's time zone; search then puts that period's memories first (search.ts) and the
 * time words stop counting as words to match. Pure: the clock is an argument.
 *
 * How each expression is read (also in the README):
 *  - today, this morning / 今日, 今朝; yesterday, last night / 昨日, 昨夜, 昨晩; the day
 *    before yesterday / 一昨日: that calendar day. A part of the day after it ("yesterday
 *    afternoon", 昨日の午後, 月曜の夜に) leaves with it; the day stays whole.
 *  - a moment ago, an hour ago, 20 minutes ago / さっき, 先ほど, 3時間前, 10分前: the 24 hours
 *    up to now (no hour is pretended); the past 48 hours / 過去48時間: those hours, at least
 *    the last day. The other day / 先日, こないだ (この前, この間 before
 *    what was done or met: この前話した, この間の会議): the 14 days before today.
 *  - this week / 今週: Monday of this week to now; last week / 先週: the Monday-to-Sunday week
 *    before this one; the week before last / 先々週: the one before that. Weeks start on Monday.
 *    "Earlier this week", "late last year": that week, that year.
 *  - last weekend / 先週末: from Saturday of last week to now; over the weekend: from the
 *    Saturday of the weekend that began last (this one on a Saturday or Sunday) to now. A
 *    weekend is told of in the days after it as often as in it, and by name: "weekend" and
 *    週末 stay words of the question. Not "on weekends".
 *  - this month / 今月, last month / 先月, the month before last / 先々月; this year / 今年,
 *    last year / 去年・昨年, the year before last / おととし (今年の初め, "late last year": that
 *    year; "since the start of the year": this year to now; 先週あたり, 先月くらい: as 先週, 先月). A fiscal year, 今年度, 昨年度, 2025年度: from 1 April;
 *    its end, 昨年度末: its March (年度末 alone: the latest March that has begun).
 *  - last quarter / 前四半期, this quarter / 今四半期, the quarter before last / 前々四半期: the
 *    calendar quarter (a fiscal year from April has the same ones); the past quarter: the three
 *    months up to today. In Q3, Q3 2025, Q1 last year, the third quarter of 2025 / 2025年第3四半期,
 *    去年の第4四半期: that calendar quarter ("in Q3" the latest that has begun, "last Q3" the one
 *    before); the first half of the year, H1 2026 / 今年の上半期, 去年の後半: that half; 2026年度
 *    第1四半期, 今年度上期: the fiscal year's (第1四半期 April–June). A bare Q3 only after a cue or
 *    with a year; 第3四半期 and 上半期 without a year stay words (a company counts either way).
 *    A third of a month where the question names one: early (上旬, 初め, "the beginning of")
 *    1–10, mid (中旬, 半ば) 11–20, late (下旬, 末, "the end of") 21 to its end: 先月末, "late
 *    last month", "early March", 3月上旬. Without a month (月初, 月末, 中旬, "the end of the
 *    month", "in mid-month"): the latest such third that has begun, this month's or last
 *    month's; not a deadline, a plan or a cycle (月末までに, 月末締め, 毎月末, "by the end of
 *    the month"). 週明け, 週初め: Monday and Tuesday of this week (先週の週明け: of last week).
 *  - N days / weeks / months / years ago (N日前, N週間前, Nか月前, N年前; 2週間ほど前 "about"),
 *    counted back from today: the day that far back; the seven days around the day N weeks
 *    back (three either side), the month around the day N months back (15 days either side),
 *    the year around the day N years back (six months either side); half a year ago / 半年前:
 *    as six months ago; 半月前: the seven days around the day 15 days back; a year and a half
 *    ago / 1年半前, 2か月半前: the month around the day that far back; this time last
 *    year / 去年の今頃: as a year ago. Not from a Monday, a 1st or a 1 January: asked on 3
 *    December, "a month ago" is not 30 November. A few (several) days
 *    (weeks, months, years) ago, 数日前: from five of them back to two of them back. "Back" as
 *    "ago" ("two weeks back"); a fortnight, two weeks. Two or three days ago, 2-3 weeks ago,
 *    2、3日前, 二、三日前: from the farther back to the nearer.
 *  - the past / last N days (weeks, months, years) / 過去N日・ここN週間・この3か月・直近1年,
 *    the past few months: from that long ago to now. The past month, in the last month, over
 *    the last week, the last year: the month (week, year) up to today; with "the", "last" is the
 *    past, "last month" alone the calendar month.
 *  - on the 3rd, the 28th of last month / 3日に, 15日の夜: the latest such day of a month (not
 *    "on the 2nd run", 1日に3回, 3日で: counts and durations).
 *  - last Monday / on Monday (月曜日): the latest such day before today ("this Monday": this
 *    week's; abbreviated only capitalised: "on Fri", "last Thurs"); Friday of last week, last
 *    week on Friday, last week Thursday, a week ago Monday / 先週の金曜, 今週の月曜, 先々週の水曜:
 *    that day of that week; the
 *    Wednesday two months ago / 2か月前の水曜日: that day nearest the day that far back.
 *  - since … / …以降 / …以来: from the start of that period to now. The week of November 16 /
 *    11月16日の週: that day's Monday-to-Sunday week.
 *  - a month: "in March", "March", "3月": the latest March that has begun (this year's, or last
 *    year's when March is still to come); "last March": the one before this year's; with a
 *    year, "March 2026", "2026年3月"; with a day, "March 5", "5 March 2026", "3月5日",
 *    "2026-03-05": that day (3/15に, 12/1の, 11/20(金), "on 3/15": the latest such day, month
 *    first; only with a cue, a particle or a weekday, never a fraction such as 1/2の確率);
 *    "March of last year", 去年の3月: that year's; 3月末, 3月上旬, "early March": that third of
 *    March; 3月後半, 先月の前半, "the second half of last month": that half (1–15, 16 to its end);
 *    先月中, 今年中, 先週中: as 先月, 今年, 先週 (not 先週中国); "the last week of March", 3月の第2週, 先月の最終週: that week of the month (the
 *    1st–7th, the 8th–14th …; the last: its last seven days; so of a year: "the last week of
 *    2025", 去年の最終週, 2026年の第1週). A lower-case month name counts
 *    after in/during/since/last/early/late or before a day or year (a march is also a walk);
 *    "May" counts capitalised, not as "May I…" at the start.
 *  - a year: "in 2025", "2025年": that calendar year (not 1990年代, a decade: its words stay).
 *  - a season, as the northern hemisphere counts them (spring March–May, summer June–August,
 *    autumn September–November, winter December–February): "last summer" the latest that has
 *    ended, "this winter" the one now or this year's, "the summer of 2025", "over the summer"
 *    the latest that has begun; 去年の夏, 2025年の冬 (its December on), 今年の春, この夏, 昨秋,
 *    今冬. Only with a cue: "the summer sale", "in the summer", 夏に, "Spring Boot" stay words.
 *  - two times joined ("between March 3 and March 10", "from last week to today", "March 3-10",
 *    3月3日から3月10日まで, 3月3日〜10日): from the start of the first to the end of the second.
 *  - a named day: Christmas (Eve, Day), New Year's (Eve, Day), Valentine's Day, Halloween,
 *    Thanksgiving, the Fourth of July / クリスマス(イブ), バレンタイン, ホワイトデー, ハロウィン,
 *    大晦日, 元日, 正月, 年末年始, 年末, 年始 (年明け, 年初), GW (ゴールデンウィーク), お盆: the latest that
 *    has begun; with a year ("Christmas 2025", 去年のクリスマス) that year's, "last Christmas" the
 *    one before this year's. Christmas and New Year's are the three days around them, 正月 1–3
 *    January, 年末年始 29 December – 3 January, 年末 and 年始 the second half of December and the
 *    first half of January, GW 29 April – 6 May, お盆 13–16 August; GW明け the week after GW.
 * The first expression in the question names the period; every one found is taken out of it.
 */
import { localDay } from '../days.js';

export interface Period {
  sinceMs: number;
  /** Exclusive. */
  untilMs: number;
  /** The period in words, for the person (the CLI prints it). */
  label: string;
}

export interface TimeReading {
  period?: Period;
  /** The question without its time expressions. */
  text: string;
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const MONTH_ABBR = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const JA_WEEKDAYS = ['日', '月', '火', '水', '木', '金', '土'];
const NUMBER_WORDS: Record<string, number> = {
  a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, eleven: 11, twelve: 12, couple: 2, 'a couple': 2, 'couple of': 2, 'a couple of': 2, few: 3, 'a few': 3, several: 3,
};
const KANJI_DIGITS: Record<string, number> = { 一: 1, 二: 2, 三: 3, 四: 4, 五: 5, 六: 6, 七: 7, 八: 8, 九: 9, 十: 10 };

function day(y: number, m: number, d: number): number {
  return new Date(y, m, d).getTime();
}

function startOfDay(ms: number): Date {
  const d = new Date(ms);
  return new Date(d.getFullYear(), d.getMonth(), d.getDate());
}

function addDays(d: Date, n: number): Date {
  return new Date(d.getFullYear(), d.getMonth(), d.getDate() + n);
}

/** Monday of the week holding d. */
function weekStart(d: Date): Date {
  return addDays(d, -((d.getDay() + 6) % 7));
}

function span(since: Date | number, until: Date | number): Period {
  const s = typeof since === 'number' ? since : since.getTime();
  const u = typeof until === 'number' ? until : until.getTime();
  const last = u - 1;
  return { sinceMs: s, untilMs: u, label: localDay(s) === localDay(last) ? localDay(s) : `${localDay(s)} – ${localDay(last)}` };
}

function dayPeriod(d: Date): Period {
  return span(d, addDays(d, 1));
}

function monthPeriod(y: number, m: number): Period {
  return span(day(y, m, 1), day(y, m + 1, 1));
}

function yearPeriod(y: number): Period {
  return span(day(y, 0, 1), day(y + 1, 0, 1));
}

/**
 * A third of a month, as 上旬, 中旬 and 下旬 name them: early (1–10), mid (11–20), late (21 to its
 * end); or a half, as 前半 and 後半 do: first (1–15), second (16 to its end).
 */
type MonthPart = 'early' | 'mid' | 'late' | 'first' | 'second';

/** The first day of each part. */
const PART_FROM: Record<MonthPart, number> = { early: 1, mid: 11, late: 21, first: 1, second: 16 };

function monthPart(y: number, m: number, part: MonthPart | undefined): Period {
  if (part === undefined) return monthPeriod(y, m);
  const from = PART_FROM[part];
  if (part === 'first') return span(day(y, m, 1), day(y, m, 16));
  return span(day(y, m, from), part === 'late' || part === 'second' ? day(y, m + 1, 1) : day(y, m, from + 10));
}

/** A third of the month where no month is named (月末, "the end of the month"): the latest that has begun. */
function latestMonthPart(part: MonthPart, now: Date): Period {
  return monthPart(now.getFullYear(), now.getMonth() - (now.getDate() >= PART_FROM[part] ? 0 : 1), part);
}

/** The third or half a Japanese month ends with: 3月上旬, 先月末, 6月末ごろ, 先月後半 (none: the whole month). */
function jaMonthPart(text: string): MonthPart | undefined {
  const t = text.replace(JA_NEAR_END, '');
  if (/前半$/.test(t)) return 'first';
  if (/後半$/.test(t)) return 'second';
  if (/(?:上旬|初旬|初め|頭|月初)$/.test(t)) return 'early';
  if (/(?:中旬|半ば)$/.test(t)) return 'mid';
  if (/(?:下旬|末)$/.test(t)) return 'late';
  return undefined;
}

/** The part an English word names: early, the beginning (start) of; mid, the middle of; late, the end of; the first (second) half of. */
function enMonthPart(word: string | undefined): MonthPart | undefined {
  const w = (word ?? '').toLowerCase();
  if (/^(?:the\s+)?first\s+half/.test(w)) return 'first';
  if (/^(?:the\s+)?(?:second|latter)\s+half/.test(w)) return 'second';
  if (/^(?:early|(?:the\s+)?(?:beginning|start))/.test(w)) return 'early';
  if (/^(?:mid|(?:the\s+)?middle)/.test(w)) return 'mid';
  if (/^(?:late|(?:the\s+)?end)/.test(w)) return 'late';
  return undefined;
}

/** The latest month m (0-based) that has begun by now. */
function latestMonth(m: number, now: Date): number {
  return m <= now.getMonth() ? now.getFullYear() : now.getFullYear() - 1;
}

/** The Japanese counters of months (3か月, 3ヶ月, 3カ月, 3ヵ月, 3ケ月). */
const JA_MONTHS = 'か月|ヶ月|カ月|ヵ月|ケ月';
const MONTH_UNIT = new RegExp(`^(month|${JA_MONTHS})`);

/** This week: Monday to the Monday after. */
function weekOf(day0: Date): Period {
  const w = weekStart(day0);
  return span(w, addDays(w, 7));
}

function unitAgo(unit: string, n: number, now: Date): Period | undefined {
  const today = startOfDay(now.getTime());
  if (/^(day|日)/.test(unit)) return dayPeriod(addDays(today, -n));
  if (/^(week|週)/.test(unit)) return weekOf(addDays(today, -7 * n));
  if (MONTH_UNIT.test(unit)) return monthPeriod(now.getFullYear(), now.getMonth() - n);
  if (/^(year|年)/.test(unit)) return yearPeriod(now.getFullYear() - n);
  return undefined;
}

/** "The other day", 先日: the 14 days before today (today is the days after it). */
function otherDay(now: Date): Period {
  const today = startOfDay(now.getTime());
  return span(addDays(today, -14), today);
}

/** The 24 hours up to now: "a moment ago", "an hour ago", さっき. */
function lastDay(now: Date): Period {
  return span(now.getTime() - 86_400_000, now.getTime() + 1);
}

/** The n hours up to now, at least the last day (a moment's memory is among today's). */
function pastHours(n: number | undefined, now: Date): Period | undefined {
  if (n === undefined || n === 0) return undefined;
  return span(now.getTime() - Math.max(n, 24) * 3_600_000, now.getTime() + 1);
}

/**
 * "N weeks ago", "N週間前": the seven days around the day N weeks back (three either side). A
 * person counting weeks back counts from today, not from a Monday.
 */
function weeksAgo(n: number, now: Date): Period {
  return weekAround(dayBack('week', n, now));
}

/** The seven days around a day: three either side. */
function weekAround(day0: Date): Period {
  return span(addDays(day0, -3), addDays(day0, 4));
}

/** "N months ago", "Nか月前": the month around the day N months back (15 days either side). */
function monthsAgo(n: number, now: Date): Period {
  const back = dayBack('month', n, now);
  return span(addDays(back, -15), addDays(back, 16));
}

/** "A year and a half ago", 2か月半前: as N + ½ months (years) back, the month around that day (six months either side for years). */
function andAHalfAgo(unit: string, n: number, now: Date): Period {
  if (MONTH_UNIT.test(unit)) {
    const back = addDays(dayBack('month', n, now), -15);
    return span(addDays(back, -15), addDays(back, 16));
  }
  return monthsAgo(12 * n + 6, now);
}

/** "N years ago", "N年前": the year around the day N years back (six months either side). */
function yearsAgo(n: number, now: Date): Period {
  const today = startOfDay(now.getTime());
  return span(monthsBack(today, 12 * n + 6), addDays(monthsBack(today, 12 * n - 6), 1));
}

/** The day n weeks (months, years) back from today: the same day of the month, or that month's last. */
function dayBack(unit: string, n: number, now: Date): Date {
  const today = startOfDay(now.getTime());
  if (/^(week|週)/.test(unit)) return addDays(today, -7 * n);
  return monthsBack(today, (/^(year|年)/.test(unit) ? 12 : 1) * n);
}

/**
 * The same day n months back (n < 0: ahead), or that month's last day when it is shorter: on
 * 31 March, a month back is 28 February, not 3 March.
 */
function monthsBack(today: Date, n: number): Date {
  const first = new Date(today.getFullYear(), today.getMonth() - n, 1);
  const last = new Date(first.getFullYear(), first.getMonth() + 1, 0).getDate();
  return new Date(first.getFullYear(), first.getMonth(), Math.min(today.getDate(), last));
}

/** "A few days (weeks, months, years) ago", 数日前: from five of them back to two of them back. */
function fewAgo(unit: string, now: Date): Period | undefined {
  const today = startOfDay(now.getTime());
  if (/^(day|日)/.test(unit)) return span(addDays(today, -5), addDays(today, -1));
  if (/^(week|週)/.test(unit)) return span(addDays(today, -35), addDays(today, -13));
  if (MONTH_UNIT.test(unit)) return span(monthsBack(today, 5), addDays(monthsBack(today, 2), 1));
  if (/^(year|年)/.test(unit)) return span(monthsBack(today, 60), addDays(monthsBack(today, 24), 1));
  return undefined;
}

/** "Two or three days ago", 2、3日前: from the farther back (b) to the nearer (a). */
function agoBetween(a: string, b: string, unit: string, now: Date): Period | undefined {
  const near = count(a);
  const far = count(b);
  if (near === undefined || far === undefined || near === 0 || far <= near) return undefined;
  const from = ago(unit, far, now);
  const to = ago(unit, near, now);
  return from && to ? span(from.sinceMs, to.untilMs) : undefined;
}

/** The latest day d of a month up to today ("this": this month's, "last": last month's), as "on the 3rd" means it. */
function dayOfMonth(d: number, now: Date, which: string | undefined): Period | undefined {
  const today = startOfDay(now.getTime());
  for (let back = which === 'last' ? 1 : 0; back < 12; back++) {
    const first = new Date(today.getFullYear(), today.getMonth() - back, 1);
    if (!validDay(first.getFullYear(), first.getMonth(), d)) continue;
    const at = new Date(first.getFullYear(), first.getMonth(), d);
    if (at.getTime() <= today.getTime() || which === 'this') return dayPeriod(at);
  }
  return undefined;
}

/** `3/15`'s day and a weekday in brackets after it, `(金)`: two groups. */
const SLASH_DAY = String.raw`(\d{1,2})\/(\d{1,2})(\s*\([日月火水木金土]\))?`;

/**
 * The month (0-based) and day of `a/b`: month first, as Japanese and American dates are; day first
 * only after a cue (on 15/3) and where the first number cannot be a month. Undefined for no date.
 */
function slashDay(a: number, b: number, dayFirst: boolean): { m: number; d: number } | undefined {
  if (a >= 1 && a <= 12 && b >= 1 && b <= 31) return { m: a - 1, d: b };
  if (dayFirst && a >= 13 && a <= 31 && b >= 1 && b <= 12) return { m: b - 1, d: a };
  return undefined;
}

/** A Japanese fiscal year (年度): 1 April of y to 31 March of the next. */
function fiscalYear(y: number): Period {
  return span(day(y, 3, 1), day(y + 1, 3, 1));
}

/**
 * A quarter (q 1–4) or a half (h 1–2) of the year starting in month `first` (0: a calendar year; 3:
 * a Japanese fiscal year, from April) of y. Months past December run into the next year.
 */
function quarterOf(y: number, q: number, first = 0): Period {
  return span(day(y, first + (q - 1) * 3, 1), day(y, first + q * 3, 1));
}

function halfOf(y: number, h: number, first = 0): Period {
  return span(day(y, first + (h - 1) * 6, 1), day(y, first + h * 6, 1));
}

/** The calendar quarter `back` quarters before the one now (0: this one). */
function quarterBack(now: Date, back: number): Period {
  const n = now.getFullYear() * 4 + Math.floor(now.getMonth() / 3) - back;
  return quarterOf(Math.floor(n / 4), (n % 4) + 1);
}

/** The latest quarter q of a calendar year that has begun (this year's, or last year's while q is to come). */
function latestQuarter(q: number, now: Date): Period {
  return quarterOf((q - 1) * 3 <= now.getMonth() ? now.getFullYear() : now.getFullYear() - 1, q);
}

/** The fiscal years (年度) named by a word, as years back from the one now. */
const FISCAL_BACK: Record<string, number> = { 今年度: 0, 本年度: 0, 昨年度: 1, 前年度: 1, 一昨年度: 2 };

/** The fiscal year (年度) now is in. */
function fiscalNow(now: Date): number {
  return now.getMonth() >= 3 ? now.getFullYear() : now.getFullYear() - 1;
}

const ORDINALS: Record<string, number> = { first: 1, '1st': 1, second: 2, '2nd': 2, third: 3, '3rd': 3, fourth: 4, '4th': 4, last: 4, final: 4 };
const JA_ORDINAL: Record<string, number> = { '1': 1, '2': 2, '3': 3, '4': 4, 一: 1, 二: 2, 三: 3, 四: 4 };

/** The year an English phrase names: 2025, this year, the year (this one), last year. */
function yearNamed(words: string, now: Date): number {
  if (/^\d{4}$/.test(words)) return Number(words);
  return now.getFullYear() - (/^last/i.test(words) ? 1 : 0);
}

/** The calendar year, or the fiscal year (年度), a Japanese word names: 2025年, 今年, 去年; 2025年度, 今年度, 昨年度. */
function jaYearNamed(word: string, now: Date): { y: number; fiscal: boolean } {
  const fiscal = word.endsWith('年度');
  const digits = /^(\d{4})/.exec(word);
  if (digits) return { y: Number(digits[1]), fiscal };
  if (fiscal) return { y: fiscalNow(now) - (FISCAL_BACK[word] ?? 0), fiscal };
  return { y: now.getFullYear() + (JA_YEARS[word] ?? 0), fiscal };
}

/** "N units ago": counted back from today, a unit's span around the day that far back (a day: that day). */
function ago(unit: string, n: number, now: Date): Period | undefined {
  if (/^(week|週)/.test(unit)) return weeksAgo(n, now);
  if (MONTH_UNIT.test(unit)) return monthsAgo(n, now);
  if (/^(year|年)/.test(unit)) return yearsAgo(n, now);
  return unitAgo(unit, n, now);
}

function rolling(unit: string, n: number, now: Date): Period | undefined {
  const today = startOfDay(now.getTime());
  const tomorrow = addDays(today, 1);
  if (/^(day|日)/.test(unit)) return span(addDays(today, -(n - 1)), tomorrow);
  if (/^(week|週)/.test(unit)) return span(addDays(today, -7 * n + 1), tomorrow);
  // From the day after the same day n months (years) back.
  if (MONTH_UNIT.test(unit)) return span(addDays(monthsBack(today, n), 1), tomorrow);
  if (/^(year|年)/.test(unit)) return span(addDays(monthsBack(today, 12 * n), 1), tomorrow);
  return undefined;
}

function count(word: string): number | undefined {
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

function monthIndex(name: string): number {
  const n = name.toLowerCase().replace(/\.$/, '');
  const full = MONTHS.indexOf(n);
  if (full >= 0) return full;
  return MONTH_ABBR.indexOf(n === 'sept' ? 'sep' : n);
}

function validDay(y: number, m: number, d: number): boolean {
  const t = new Date(y, m, d);
  return t.getFullYear() === y && t.getMonth() === m && t.getDate() === d;
}

interface Rule {
  re: RegExp;
  read: (m: RegExpExecArray, now: Date, input: string) => Period | undefined;
}

const NUM_EN = String.raw`(\d{1,3}|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a couple of|couple of|a couple|couple|a few|few|several)`;
const MONTH_NAMES = String.raw`(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\b\.?`;
const NUM_JA = String.raw`(\d{1,3}|[一二三四五六七八九十]{1,3}|数)`;
/** "About": 2週間ほど前, 3日くらい前. */
const JA_ABOUT = String.raw`(?:ほど|くらい|ぐらい|程)?`;
/** Parts of a month or year: 3月上旬 (1–10 March), 6月末ごろ (21–30 June), 3月後半 (16–31 March); 1240年頃, 2025年末 (that year). */
const JA_PART = String.raw`(?:上旬|中旬|下旬|初旬|初め(?!て)|半ば|末|の?前半|の?後半)?(?:頃|ごろ)?`;
const JA_YEARS: Record<string, number> = { 今年: 0, 去年: -1, 昨年: -1, 一昨年: -2 };
/** "Around": 先週あたり, 先月くらい, 去年ごろ. */
const JA_NEAR = String.raw`(?:あたり|辺り|くらい|ぐらい|頃|ごろ)?`;
const JA_NEAR_END = new RegExp(`${JA_NEAR}$`);
/** A part of a day after a day (昨日の午後, 月曜の朝に): it leaves with the day, which stays whole. Not 朝会, 昼ご飯. */
const JA_DAYPART = String.raw`(?:の?(?:朝|午前中?|午後|昼|夕方|夜中?|晩|深夜)(?=[にのはでもかま、。,.!?\s]|$))?`;
/** After a named day, what makes it a time: に (not に向けた, について), 前後, 頃, から, の夜. */
/** After a time, a deadline, a plan or a cycle, not a time of the past: 年末までに, 週明けに向けて, GWの予定, 月末締め. */
const JA_PLAN = /^(?:まで|に向け|の?予定|締め|〆|払い)/;
const JA_OF_TIME = /^(?:に(?!向け|つい|関|合わせ|対)|前後|頃|ごろ|以降|以来|から|当日|の(?:日|夜|朝|週|頃|間|時期|前|後))/;

/** A month name that is meant as one (see the top of this file). */
function isMonthWord(word: string, before: string, after: string, atStart: boolean): boolean {
  const lower = word.toLowerCase().replace(/\.$/, '');
  const cue = /\b(in|during|since|from|until|till|by|last|this|early|late|mid|of|on|before|after)[\s-]+$/i.test(before);
  // A day after it, not a count ("ask Jan 3 times", "Mar 2 retries").
  const dated = /^\.?\s*(\d{1,2}(st|nd|rd|th)?\b(?!\s+(?:times?|x|[a-z]+s)\b)|,?\s*\d{4}\b)/.test(after);
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

const RULES: Rule[] = [
  // Named days, English: Christmas (Eve, Day), New Year's (Eve, Day), Valentine's Day, Halloween,
  // Thanksgiving, the Fourth of July; "last Christmas", "Christmas 2025", "Christmas last year".
  // As a time only with a cue (on, over, during, before, since, last, a year): "the Christmas
  // theme", "the Halloween sale" are topics, "by Christmas" a deadline. Not a New Year's
  // resolution, made for the year.
  {
    re: /\b(?:(on|at|over|during|from|around)\s+)?(?:(last|this)\s+year['’]s\s+|((?:19|20)\d{2})['’]?s?\s+|(last|this)\s+)?(?:the\s+)?(christmas\s+eve|christmas\s+day|christmas|new\s+years?['’]?s?\s+eve|new\s+years?['’]?s?\s+day|new\s+year['’]s|new\s+year|valentine['’]?s(?:\s+day)?|halloween|thanksgiving(?:\s+day)?|(?:fourth|4th)\s+of\s+july)\b(?:,?\s+(?:of\s+)?((?:19|20)\d{2})\b|\s+(last|this)\s+year\b)?/gi,
    read: (m, now, input) => {
      const word = m[5] as string;
      const given = m[3] ?? m[6];
      const ofYear = (m[2] ?? m[7])?.toLowerCase();
      const which = m[4]?.toLowerCase();
      const cued = m[1] !== undefined || given !== undefined || ofYear !== undefined || which !== undefined || /\b(?:before|after|since)\s+(?:the\s+)?$/i.test(input.slice(0, m.index));
      if (!cued) return undefined;
      // "the new year" is often the one to come: only "New Year" capitalised, or "New Year's".
      if (/^new\s+year$/i.test(word) && !/^New\s+Year$/.test(word)) return undefined;
      if (/^(?:['’]s)?\s+resolutions?\b/i.test(input.slice(m.index + m[0].length))) return undefined;
      const thisYear = now.getFullYear();
      const year = given !== undefined ? Number(given) : ofYear !== undefined ? thisYear - (ofYear === 'last' ? 1 : 0) : which === 'this' ? thisYear : undefined;
      return latestNamedDay(namedDay(word), now, year, which === 'last');
    },
  },
  // Named days, Japanese: クリスマス(イブ), バレンタイン, ホワイトデー, ハロウィン, 大晦日, 元日, 正月,
  // 年末年始, 年末, 年始, GW, お盆; 去年のクリスマス, 2025年の年末. 休み, 期間, 中 after one leave with
  // it (お盆休み, GW中); 明け after one is the week after it (GW明け). クリスマス, バレンタイン,
  // ホワイトデー and ハロウィン are a time only with a year or a particle of time after them
  // (クリスマスに, クリスマスの夜, ハロウィン前後): クリスマスキャンペーン is a topic. Not 年末調整 (a tax
  // return), nor a deadline or a plan (年末までに, 年明けに向けて, GWの予定); 昨年末, 2025年末 are read
  // as that year (a year's parts are the year: "the end of last year" is as often November). GW
  // only as the holidays (GW中, GW明け): in code it is a gateway.
  {
    re: /(?:(?:(\d{4})年|(今年|去年|昨年|一昨年))の?)?(クリスマス・?イ[ブヴ]|クリスマス|バレンタイン(?:デー|デイ)?|ホワイトデー|ハロウィー?ン|大晦日|大みそか|元日|元旦|お?正月|三が日|(?<![昨去今\d])(?:年末年始|年末(?!調整)|年始|年初(?!来))|年明け|ゴールデンウ[ィイ]ーク|お盆|GW(?=中|明け|休み|期間|連休|初日|最終日))(休み)?(明け)?(?:期間)?(中)?/g,
    read: (m, now, input) => {
      const name = m[3] as string;
      const year = m[1] !== undefined ? Number(m[1]) : m[2] !== undefined ? now.getFullYear() + (JA_YEARS[m[2]] ?? 0) : undefined;
      const after = input.slice(m.index + m[0].length);
      const timed = year !== undefined || m[4] !== undefined || m[5] !== undefined || m[6] !== undefined || JA_OF_TIME.test(after);
      if (/^(クリスマス|バレンタイン|ホワイトデー|ハロウィ)/.test(name) && !timed) return undefined;
      if (JA_PLAN.test(after)) return undefined;
      const p = latestNamedDay(namedDay(name), now, year, false);
      // GW明け, 正月休み明け: the week after it.
      return p && m[5] !== undefined ? span(p.untilMs, addDays(new Date(p.untilMs), 7)) : p;
    },
  },
  // Seasons, English: last summer, this winter, the summer of 2025, winter 2025, over the summer.
  // A season is a time only with a cue (last, this, past, a year, "over/during/since the"): "the
  // summer sale" is a topic, "in the summer" often a habit; "Spring Boot" a framework.
  {
    re: /\b(?:(over|during|through|throughout|since)\s+)?(?:(the)\s+)?(?:(last|this|past|previous)\s+)?(spring|summer|autumn|fall|winter)\b(?:\s+(?:of\s+)?((?:19|20)\d{2})\b|\s+(last|this)\s+year\b)?/gi,
    read: (m, now, input) => {
      const which = m[3]?.toLowerCase();
      const ofYear = m[6]?.toLowerCase();
      const cued = which !== undefined || m[5] !== undefined || ofYear !== undefined || (m[1] !== undefined && m[2] !== undefined);
      if (!cued || /^\s+(?:boot|framework|security|cloud|data|batch|mvc|webflux|ai|integration)\b/i.test(input.slice(m.index + m[0].length))) return undefined;
      const name = (m[4] as string).toLowerCase() as SeasonName;
      if (m[5] !== undefined) return seasonIn(name, Number(m[5]));
      if (ofYear !== undefined) return seasonIn(name, now.getFullYear() - (ofYear === 'last' ? 1 : 0));
      return which === 'this' ? thisSeason(name, now) : which === undefined ? latestSeason(name, now, false) : latestSeason(name, now, true);
    },
  },
  // Seasons, Japanese: 去年の夏, 2025年の冬, 今年の春, この夏, 昨夏, 今冬. Not a bare 夏に (a habit
  // or a plan as often as a time) nor 秋の高校生ドラフト.
  {
    re: /(?:(?:(\d{4})年|(今年|去年|昨年|一昨年))の|(この|昨|今))(春|夏|秋|冬)(?:休み)?/g,
    read: (m, now) => {
      const name = ({ 春: 'spring', 夏: 'summer', 秋: 'autumn', 冬: 'winter' } as const)[m[4] as '春' | '夏' | '秋' | '冬'];
      if (m[1] !== undefined) return seasonIn(name, Number(m[1]));
      if (m[2] !== undefined) return m[2] === '今年' ? thisSeason(name, now) : seasonIn(name, now.getFullYear() + (JA_YEARS[m[2]] ?? 0));
      if (m[3] === '昨') return seasonIn(name, now.getFullYear() - 1);
      return m[3] === 'この' ? latestSeason(name, now, false) : thisSeason(name, now);
    },
  },
  // Quarters and halves of a year, English: last quarter (the calendar quarter before this one),
  // this quarter, the quarter before last; the past quarter (the three months up to today); in Q3,
  // Q3 2025, Q1 last year, the third quarter of 2025, the last quarter of last year; the first
  // half of the year, the second half of 2025, H1 2026. Calendar quarters: a company's fiscal year
  // is its own. A bare Q3 is a time only after a cue (in, during, since, over, last) or with a year:
  // "the Q3 roadmap", "plan for Q3", "by Q2" are topics and deadlines; H1 and H2 only with a year.
  {
    re: /\b(?:(?:in|during|over|since|throughout|across|from)\s+)?(?:the\s+)?(first|second|third|fourth|1st|2nd|3rd|4th|last|final)\s+(quarter|half)\s+of\s+(?:the\s+)?(\d{4}|last year|this year|year)\b/gi,
    read: (m, now) => {
      const y = yearNamed(m[3] as string, now);
      const n = ORDINALS[(m[1] as string).toLowerCase()] ?? 0;
      if (/half/i.test(m[2] as string)) return n <= 2 ? halfOf(y, n) : /last|final/i.test(m[1] as string) ? halfOf(y, 2) : undefined;
      return quarterOf(y, n);
    },
  },
  {
    re: /\b(?:(?:in|during|over|since|throughout|from)\s+)?(?:(the quarter before last)|(?:the\s+)?(this|current|last|previous|prior|past)\s+quarter(?!ly))\b(?!\s+of\b)/gi,
    read: (m, now) => {
      if (m[1] !== undefined) return quarterBack(now, 2);
      const w = (m[2] as string).toLowerCase();
      if (w === 'this' || w === 'current') return quarterBack(now, 0);
      // "the past quarter", "over the last quarter": the three months up to today, as "the past month".
      if (w === 'past' || (w === 'last' && /\bthe\s+last/i.test(m[0]))) return rolling('month', 3, now);
      return quarterBack(now, 1);
    },
  },
  {
    re: /\b(?:((?:in|during|over|since|throughout|from)\s+)?(?:(last)\s+)?Q([1-4])(?:\s+(?:of\s+)?(\d{4}|last year|this year)\b)?|(\d{4})\s*[-/]?\s*Q([1-4]))\b/gi,
    read: (m, now) => {
      if (m[5] !== undefined) return quarterOf(Number(m[5]), Number(m[6]));
      const q = Number(m[3]);
      if (m[4] !== undefined) return quarterOf(yearNamed(m[4], now), q);
      if (m[2] === undefined) return m[1] !== undefined ? latestQuarter(q, now) : undefined;
      // "last Q3", as "last March": the one before this year's.
      const y = new Date(latestQuarter(q, now).sinceMs).getFullYear();
      return quarterOf(y === now.getFullYear() ? y - 1 : y, q);
    },
  },
  {
    re: /\b(?:(?:in|during|over|since|throughout|from)\s+)?(?:H([12])\s+(?:of\s+)?(\d{4})|(\d{4})\s*[-/]?\s*H([12]))\b/g,
    read: (m) => halfOf(Number(m[2] ?? m[3]), Number(m[1] ?? m[4])),
  },
  // Quarters and halves, Japanese: 前四半期, 今四半期 (当四半期), 前々四半期: by the calendar's
  // quarters, which a fiscal year from April shares; 2025年第3四半期, 去年の第4四半期, 今年のQ1: that
  // calendar year's; 2026年度第1四半期, 今年度の第3四半期: the fiscal year's (from April: 第1四半期
  // is April–June); 今年の上半期, 去年の下半期, 2025年の後半: that year's half; 2026年度上期: the
  // fiscal year's. Without a year (第3四半期, 上半期) a company may count either way: the words stay.
  {
    re: /(前々|前|今|当|本)四半期|(この|前の|直近の)四半期/g,
    read: (m, now) => quarterBack(now, m[1] === '前々' ? 2 : m[1] === '前' || m[2] === '前の' || m[2] === '直近の' ? 1 : 0),
  },
  {
    re: /(\d{4}年度?|今年度?|本年度|去年|昨年度?|前年度|一昨年度?)の?(?:第([1-4一二三四])四半期|Q([1-4])|(上半期|下半期|上期|下期|前半|後半))/g,
    read: (m, now) => {
      const { y, fiscal } = jaYearNamed(m[1] as string, now);
      const first = fiscal ? 3 : 0;
      const q = m[2] !== undefined ? JA_ORDINAL[m[2]] : m[3] !== undefined ? Number(m[3]) : undefined;
      if (q !== undefined) return quarterOf(y, q, first);
      return halfOf(y, /^(上|前)/.test(m[4] as string) ? 1 : 2, first);
    },
  },
  // Japanese fiscal years (年度, from 1 April): 今年度, 昨年度 (前年度), 一昨年度, 2025年度; 年度末
  // its last month, March (昨年度末; 年度末 alone the latest March that has begun). Not a deadline
  // or a plan (年度末までに).
  {
    re: /(今年度|本年度|昨年度|前年度|一昨年度|(\d{4})年度|(?<![\p{sc=Han}\d])年度(?=末))(末)?/gu,
    read: (m, now, input) => {
      const end = m[3] !== undefined;
      if (end && JA_PLAN.test(input.slice(m.index + m[0].length))) return undefined;
      // 年度末 alone: the fiscal year whose March has begun last (in March, the one now).
      const back = m[1] === '年度' ? (now.getMonth() === 2 ? 0 : 1) : (FISCAL_BACK[m[1] as string] ?? 0);
      const y = m[2] !== undefined ? Number(m[2]) : fiscalNow(now) - back;
      return end ? monthPeriod(y + 1, 2) : fiscalYear(y);
    },
  },
  // ISO dates and months: 2026-03-05, 2026-03, 2026/03/05.
  {
    re: /\b(?:on |in |since |of |from )?(\d{4})[-/](\d{1,2})(?:[-/](\d{1,2}))?\b/gi,
    read: (m) => {
      const y = Number(m[1]);
      const mo = Number(m[2]) - 1;
      if (mo < 0 || mo > 11 || y < 1970 || y > 2200) return undefined;
      if (m[3] === undefined) return monthPeriod(y, mo);
      const d = Number(m[3]);
      return validDay(y, mo, d) ? dayPeriod(new Date(y, mo, d)) : undefined;
    },
  },
  // A month and a day with a slash, as Japanese and American write them: 3/15に, 12/1の, 11/20(金),
  // on 3/15, since 11/3, 3/15〜3/20 (on 15/3, a day first where the first number cannot be a month):
  // the latest such day up to today. Only where a date is meant: after on, since or from, before a
  // particle of time (に, の, から, 以降, 頃, は, 、) or with a weekday in brackets. A fraction stays
  // (1/2の確率, 1/3に減った: a smaller number over one up to 10, unless a weekday or a cue says
  // otherwise), as do paths, versions, ratios, 24/7 and a deadline ("by 3/15", 12/31まで, 3/20に向けて).
  {
    re: new RegExp(String.raw`(?<![\w./:-])(?:(on|since|from|the week of)\s+)?${SLASH_DAY}(?:\s*(?:〜|~|-|–|から|to|until|through)\s*${SLASH_DAY})?(?![\w/%:]|\.\d)`, 'gi'),
    read: (m, now, input) => {
      const cue = m[1] !== undefined;
      const weekday = m[4] !== undefined || m[7] !== undefined;
      const after = input.slice(m.index + m[0].length);
      const first = slashDay(Number(m[2]), Number(m[3]), cue);
      if (!first) return undefined;
      const fraction = first.m + 1 < first.d && first.d <= 10;
      if (!cue && !weekday && (fraction || !/^\s*(?:に(?!向け)|の|から|以降|以来|頃|ごろ|は|、)/.test(after))) return undefined;
      let y = now.getFullYear();
      if (!validDay(y, first.m, first.d) || day(y, first.m, first.d) > now.getTime()) y -= 1;
      if (!validDay(y, first.m, first.d)) return undefined;
      if (m[5] === undefined) return dayPeriod(new Date(y, first.m, first.d));
      const last = slashDay(Number(m[5]), Number(m[6]), cue);
      if (!last) return undefined;
      // 12/28〜1/5: into the next year.
      const y2 = last.m < first.m || (last.m === first.m && last.d < first.d) ? y + 1 : y;
      return validDay(y2, last.m, last.d) ? span(day(y, first.m, first.d), day(y2, last.m, last.d + 1)) : undefined;
    },
  },
  // Japanese months of a named year: 去年の3月, 今年3月5日.
  {
    re: new RegExp(String.raw`(今年|去年|昨年|一昨年)の?(\d{1,2})月(?:(\d{1,2})日)?(?![曜])${JA_PART}`, 'g'),
    read: (m, now) => {
      const y = now.getFullYear() + (JA_YEARS[m[1] as string] ?? 0);
      const mo = Number(m[2]) - 1;
      if (mo < 0 || mo > 11) return undefined;
      if (m[3] === undefined) return monthPart(y, mo, jaMonthPart(m[0]));
      const d = Number(m[3]);
      return validDay(y, mo, d) ? dayPeriod(new Date(y, mo, d)) : undefined;
    },
  },
  // Japanese absolute dates: 2026年3月5日, 2026年3月, 3月5日, 3月, 2026年 (3月上旬: 1–10 March;
  // 1990年代, a decade, is not 1990).
  {
    re: new RegExp(String.raw`(\d{4})年(?![代度])(?:(\d{1,2})月(?:(\d{1,2})日)?)?${JA_PART}|(\d{1,2})月(?:(\d{1,2})日)?(?![曜])${JA_PART}`, 'g'),
    read: (m, now) => {
      if (m[1] !== undefined) {
        const y = Number(m[1]);
        if (m[2] === undefined) return yearPeriod(y);
        const mo = Number(m[2]) - 1;
        if (mo < 0 || mo > 11) return undefined;
        if (m[3] === undefined) return monthPart(y, mo, jaMonthPart(m[0]));
        const d = Number(m[3]);
        return validDay(y, mo, d) ? dayPeriod(new Date(y, mo, d)) : undefined;
      }
      const mo = Number(m[4]) - 1;
      if (mo < 0 || mo > 11) return undefined;
      const y = latestMonth(mo, now);
      if (m[5] === undefined) return monthPart(y, mo, jaMonthPart(m[0]));
      const d = Number(m[5]);
      return validDay(y, mo, d) ? dayPeriod(new Date(y, mo, d)) : undefined;
    },
  },
  // Japanese days of a month without one: 3日に, 15日の夜 (the latest such day). Not 1日 (a day as
  // often as the 1st: 1日に3回), 3日に1回 (every three days), 3日で, 3日間 (durations), 毎月15日, この5日.
  {
    re: new RegExp(String.raw`(?<![\d月年毎]|[こそあど]の)([2-9]|[12]\d|3[01])日(?=に(?![\d一二三四五六七八九十])|の(?:朝|午前|午後|昼|夕方|夜|晩|深夜))${JA_DAYPART}`, 'g'),
    read: (m, now) => dayOfMonth(Number(m[1]), now, undefined),
  },
  // Japanese relative: N日前, N週間前, Nか月前, N年前 (数日前: a few; 2週間ほど前: about), 半年前; 過去N日, ここN週間.
  {
    re: new RegExp(String.raw`半年${JA_ABOUT}前`, 'g'),
    read: (_m, now) => monthsAgo(6, now),
  },
  {
    // 過去48時間, ここ24時間, 直近3時間: those hours up to now, at least the last day.
    re: new RegExp(String.raw`(?:過去|ここ|直近)\s*${NUM_JA}\s*時間`, 'g'),
    read: (m, now) => pastHours(count(m[1] as string), now),
  },
  {
    // 1年半前, 2か月半前: around the day that far back.
    re: new RegExp(String.raw`${NUM_JA}\s*(年|${JA_MONTHS})半${JA_ABOUT}前`, 'g'),
    read: (m, now) => {
      const n = count(m[1] as string);
      return n === undefined || m[1] === '数' ? undefined : andAHalfAgo(m[2] as string, n, now);
    },
  },
  {
    // 半月前: the seven days around the day 15 days back, as N週間前 is read.
    re: new RegExp(String.raw`半月${JA_ABOUT}前`, 'g'),
    read: (_m, now) => weekAround(addDays(startOfDay(now.getTime()), -15)),
  },
  {
    // 去年の今頃, 一年前の今ごろ: the month around the same day a year back.
    re: /(?:去年|昨年|1年前|一年前)の(?:今頃|今ごろ|いまごろ|この時期)/g,
    read: (_m, now) => monthsAgo(12, now),
  },
  {
    // 先日, こないだ: the other day, the 14 days before today; この前, この間 too where something
    // was done or an event follows (この前話した, この間の会議), not "before this" (この前の行).
    re: /先日(?!付)|こないだ|この(?:前|間|あいだ)(?=[、,]|に?(?:話|決め|言っ|聞い|教え|相談|議論|やっ|し(?:た|て)|作っ|直し|書い|調べ|試し|見|読ん|頼ん|お願い)|の(?:件|話|会議|打ち合わせ|ミーティング|議論|相談|続き|バグ|障害|エラー|変更|修正|設定|リリース|デプロイ))/g,
    read: (_m, now) => otherDay(now),
  },
  {
    // さっき, 先ほど, 3時間前, 10分前: the last day (a moment's memory is among today's; no hour is pretended).
    re: new RegExp(String.raw`さっき|先ほど|さきほど|先程|${NUM_JA}\s*(?:時間|分)${JA_ABOUT}前`, 'g'),
    read: (_m, now) => lastDay(now),
  },
  {
    // 2か月前の水曜日, 3週間前の金曜: that day nearest the day that far back.
    re: new RegExp(String.raw`${NUM_JA}\s*(週間|週|${JA_MONTHS}|年)${JA_ABOUT}前の([日月火水木金土])曜(?:日)?${JA_DAYPART}`, 'g'),
    read: (m, now) => {
      const n = count(m[1] as string);
      return n === undefined || m[1] === '数' ? undefined : weekdayNear(JA_WEEKDAYS.indexOf(m[3] as string), m[2] as string, n, now);
    },
  },
  {
    // 2、3日前, 二、三日前, 2〜3週間前 (two or three of them ago): from the farther back to the nearer.
    re: new RegExp(String.raw`${NUM_JA}\s*[、,〜~・-]\s*${NUM_JA}\s*(日|週間|週|${JA_MONTHS}|年)${JA_ABOUT}前`, 'g'),
    read: (m, now) => agoBetween(m[1] as string, m[2] as string, m[3] as string, now),
  },
  {
    re: new RegExp(String.raw`${NUM_JA}\s*(日|週間|週|${JA_MONTHS}|年)${JA_ABOUT}前`, 'g'),
    read: (m, now) => {
      const n = count(m[1] as string);
      if (m[1] === '数') return fewAgo(m[2] as string, now);
      return n === undefined ? undefined : ago(m[2] as string, n, now);
    },
  },
  {
    // 過去3日, ここ2週間, 直近1か月間, この1年間, この3か月 (この with days: 間; この5日 is a day of the month).
    re: new RegExp(String.raw`(?:過去|ここ|直近)\s*${NUM_JA}\s*(日間|日|週間|週|(?:${JA_MONTHS})間?|年間|年)|この\s*${NUM_JA}\s*(日間|週間|(?:${JA_MONTHS})間?|年間|年(?!度|生))`, 'g'),
    read: (m, now) => {
      const n = count((m[1] ?? m[3]) as string);
      return n === undefined ? undefined : rolling((m[2] ?? m[4]) as string, n, now);
    },
  },
  // Japanese weekend: 先週末, 先週の週末 (週末 stays a word of the question, as "weekend" does).
  {
    re: /先週の?(?=週末)|先(?=週末)/g,
    read: (_m, now) => weekend(now, false),
  },
  // 週明け, 週初め: Monday and Tuesday of this week; 先週の週明け: of last week (before the weeks, or
  // 先週 would take the week). Not a deadline or a plan (週明けまでに, 週明けの予定).
  {
    re: /(?:(先々週|先週|今週)の|(?<!\p{sc=Han}|来週の))週(?:明け|初め)/gu,
    read: (m, now, input) => {
      if (JA_PLAN.test(input.slice(m.index + m[0].length))) return undefined;
      const monday = weekStart(addDays(startOfDay(now.getTime()), -7 * ({ 今週: 0, 先週: 1, 先々週: 2 }[m[1] as '今週' | '先週' | '先々週'] ?? 0)));
      return span(monday, addDays(monday, 2));
    },
  },
  // Japanese weekdays: 月曜日, 月曜 (the latest before today); 先週の金曜, 今週の月曜, 先々週の水曜: that
  // day of that week. Before the weeks, or 先週 would take the week and leave 金曜 a word.
  {
    re: new RegExp(String.raw`(?:(先々週|先週|今週)の?)?([日月火水木金土])曜(?:日)?${JA_DAYPART}`, 'g'),
    read: (m, now) => {
      const wd = JA_WEEKDAYS.indexOf(m[2] as string);
      if (m[1] === undefined) return latestWeekday(wd, now);
      return weekday(wd, { 今週: 0, 先週: 1, 先々週: 2 }[m[1] as '今週' | '先週' | '先々週'], now);
    },
  },
  // Japanese named days, weeks, months and years (先月末: 21 November to its end, 先月頭 and 先月中旬
  // its thirds; a year's parts and a week's are the year and the week: 昨年末, 去年の暮れ, 今年の初め,
  // 先週頭); a part of a day leaves with its day (昨日の午後, 今日の夕方に).
  {
    re: new RegExp(String.raw`(一昨日|おととい|昨日|きのう|昨夜|昨晩|ゆうべ|夕べ|今日|本日|きょう|今朝|先々週|先週|今週|先々月|先月|今月|一昨年|おととし|去年|昨年|今年)(?:の?(?:初め(?!て)|半ば|頭|上旬|初旬|中旬|下旬|暮れ|前半|後半)|末|中(?=[にのはでもまだ、,。?？!！]|$))?${JA_NEAR}${JA_DAYPART}`, 'g'),
    read: (m, now) => {
      const today = startOfDay(now.getTime());
      switch (m[1]) {
        case '一昨日':
        case 'おととい':
          return dayPeriod(addDays(today, -2));
        case '昨日':
        case 'きのう':
        case '昨夜':
        case '昨晩':
        case 'ゆうべ':
        case '夕べ':
          return dayPeriod(addDays(today, -1));
        case '今日':
        case '本日':
        case 'きょう':
        case '今朝':
          return dayPeriod(today);
        case '今週':
          return weekOf(today);
        case '先週':
          return unitAgo('week', 1, now);
        case '先々週':
          return unitAgo('week', 2, now);
        case '今月':
          return monthPart(now.getFullYear(), now.getMonth(), jaMonthPart(m[0]));
        case '先月':
          return monthPart(now.getFullYear(), now.getMonth() - 1, jaMonthPart(m[0]));
        case '先々月':
          return monthPart(now.getFullYear(), now.getMonth() - 2, jaMonthPart(m[0]));
        case '今年':
          return yearPeriod(now.getFullYear());
        case '去年':
        case '昨年':
          return yearPeriod(now.getFullYear() - 1);
        case '一昨年':
        case 'おととし':
          return yearPeriod(now.getFullYear() - 2);
      }
      return undefined;
    },
  },
  // A third of the month without a month (月初, 月末, 中旬, 月半ば): the latest such third that has
  // begun, this month's or last month's (on 10 December, 月末 is late November). A month before
  // it was read above (先月末, 3月上旬); not a deadline, a plan or a cycle (月末までに, 月末締め,
  // 毎月末, 月末月初).
  {
    re: new RegExp(String.raw`(?<![\p{sc=Han}\p{N}々])(?:月初め?|月頭|月半ば|月末|上旬|初旬|中旬|下旬)(?!月初)${JA_NEAR}`, 'gu'),
    read: (m, now, input) => {
      return JA_PLAN.test(input.slice(m.index + m[0].length)) ? undefined : latestMonthPart(jaMonthPart(m[0]) as MonthPart, now);
    },
  },
  // English months of a named year: March of last year, in March this year, March 5 last year.
  {
    re: new RegExp(String.raw`\b(?:(?:in|during|since|on|from)\s+)?${MONTH_NAMES}(?:\s+(\d{1,2})(?:st|nd|rd|th)?)?\s+(?:of\s+)?(this|last)\s+year\b`, 'gi'),
    read: (m, now) => {
      const word = m[1] as string;
      // The year after it is cue enough ("march of last year"), but "may" counts only capitalised.
      if (/^may$/i.test(word) && word[0] !== 'M') return undefined;
      const mo = monthIndex(word);
      if (mo < 0) return undefined;
      const y = now.getFullYear() - ((m[3] as string).toLowerCase() === 'last' ? 1 : 0);
      if (m[2] === undefined) return monthPeriod(y, mo);
      const d = Number(m[2]);
      return validDay(y, mo, d) ? dayPeriod(new Date(y, mo, d)) : monthPeriod(y, mo);
    },
  },
  // English days of a named week: Friday of last week, last week on Friday, this week's Monday.
  {
    re: /\b(?:(?:on\s+)?(?:the\s+)?(sunday|monday|tuesday|wednesday|thursday|friday|saturday)\s+(?:of\s+)?(last|this)\s+week|(last|this)\s+week(?:['’]s\s+|\s+on\s+)(sunday|monday|tuesday|wednesday|thursday|friday|saturday))\b(?:\s+(?:morning|afternoon|evening|night)\b)?/gi,
    read: (m, now) => weekday(WEEKDAYS.indexOf(((m[1] ?? m[4]) as string).toLowerCase()), ((m[2] ?? m[3]) as string).toLowerCase() === 'last' ? 1 : 0, now),
  },
  // A day of a week counted back: "the Wednesday two months ago", "Friday three weeks ago": that
  // day nearest the day that far back.
  {
    re: new RegExp(String.raw`\b(?:on\s+)?(?:the\s+)?(sunday|monday|tuesday|wednesday|thursday|friday|saturday)\s+(?:about\s+)?${NUM_EN}\s+(weeks?|months?|years?)\s+(?:ago|back)\b`, 'gi'),
    read: (m, now) => {
      const n = count(m[2] as string);
      return n === undefined || /(?:few|several)$/i.test(m[2] as string) ? undefined : weekdayNear(WEEKDAYS.indexOf((m[1] as string).toLowerCase()), (m[3] as string).toLowerCase(), n, now);
    },
  },
  // "Since the start of the year" (month, week): this year, this month, this week. "The middle
  // (end) of the month", in mid-month: that third of the latest month it has begun in ("of this
  // month": this month's). Not a deadline ("by the end of the month") nor "a mid-month review";
  // the end of a week or a year stays words.
  {
    re: /(?<!\b(?:by|until|till|before)\s+)\b(?:(?:at|in|around)\s+)?the\s+(beginning|start|middle|end)\s+of\s+(the|this)\s+(year|month|week)\b|\b(?:at|in|around)\s+mid-?month\b/gi,
    read: (m, now) => {
      const unit = (m[3] ?? 'month').toLowerCase();
      const part = enMonthPart(m[1] ?? 'mid') as MonthPart;
      if (unit === 'month') return m[2]?.toLowerCase() === 'this' ? monthPart(now.getFullYear(), now.getMonth(), part) : latestMonthPart(part, now);
      if (part !== 'early') return undefined;
      return unit === 'week' ? weekOf(startOfDay(now.getTime())) : yearPeriod(now.getFullYear());
    },
  },
  // English relative.
  {
    re: /\b(?:on |from )?(?:the )?day before yesterday\b/gi,
    read: (_m, now) => dayPeriod(addDays(startOfDay(now.getTime()), -2)),
  },
  {
    // "before today", "until today": a bound, not a period. A part of a day leaves with it ("yesterday afternoon").
    re: /(?<!\b(?:before|until|till|by|after) )\b(?:on |from |earlier )?(yesterday|today|this morning|this afternoon|last night)\b(?:\s+(?:morning|afternoon|evening|night)\b)?/gi,
    read: (m, now) => dayPeriod(addDays(startOfDay(now.getTime()), /yesterday|night/i.test(m[1] as string) ? -1 : 0)),
  },
  {
    // "last weekend": from Saturday of last week; "over the weekend": from the weekend that began last. Not "on weekends".
    // "weekend" stays a word of the question: it is named when told of ("last weekend I tried…"; bench/QUALITY.md).
    re: /\b(?:(?:on |during |at )?(?:the |this )?(last|past|previous)(?= weekend\b(?!s))|over the(?= weekend\b(?!s)))/gi,
    read: (m, now) => weekend(now, m[1] === undefined),
  },
  {
    // "the week before last", as 先々週: the Monday-to-Sunday week two before this one; the month
    // (year) before last, as 先々月 (おととし).
    re: /\b(?:in |during |over )?the (week|month|year) before last\b/gi,
    read: (m, now) => {
      const unit = (m[1] as string).toLowerCase();
      if (unit === 'week') return unitAgo('week', 2, now);
      return unit === 'month' ? monthPeriod(now.getFullYear(), now.getMonth() - 2) : yearPeriod(now.getFullYear() - 2);
    },
  },
  {
    // "this time last year", as 去年の今頃: the month around the same day a year back.
    re: /\b(?:(?:around|about|at) )?this time last year\b/gi,
    read: (_m, now) => monthsAgo(12, now),
  },
  {
    // "the other day", as 先日: the 14 days before today.
    re: /\b(?:on )?the other day\b/gi,
    read: (_m, now) => otherDay(now),
  },
  {
    // "a moment ago", "an hour ago", "20 minutes ago": the last day, as さっき.
    re: new RegExp(String.raw`\b(?:a moment|${NUM_EN}\s+(?:minutes?|hours?))\s+ago\b`, 'gi'),
    read: (_m, now) => lastDay(now),
  },
  {
    // "The past 48 hours", "within the last hour": those hours up to now, at least the last day (as "an hour ago").
    re: new RegExp(String.raw`\b(?:in |over |during |within |for )?the\s+(?:past|last|previous)\s+(?:${NUM_EN}\s+)?hours?\b(?!\s+of\b)`, 'gi'),
    read: (m, now) => pastHours(m[1] === undefined ? 1 : count(m[1]), now),
  },
  {
    re: /\b(?:(?:a )?half (?:a )?year|six months) ago\b/gi,
    read: (_m, now) => monthsAgo(6, now),
  },
  {
    // "A year and a half ago", "two and a half months back", as 1年半前: around the day that far back.
    re: new RegExp(String.raw`\b${NUM_EN}\s+(years?|months?)\s+and\s+a\s+half\s+(?:ago|back)\b|\b${NUM_EN}\s+and\s+a\s+half\s+(years?|months?)\s+(?:ago|back)\b`, 'gi'),
    read: (m, now) => {
      const n = count((m[1] ?? m[3]) as string);
      return n === undefined || /(?:few|several)$/i.test((m[1] ?? m[3]) as string) ? undefined : andAHalfAgo((m[2] ?? m[4]) as string, n, now);
    },
  },
  {
    re: new RegExp(String.raw`\b(?:in the |over the |during the |in |for the |the )?(?:past|last|previous)\s+${NUM_EN}\s+(days?|weeks?|months?|years?)\b`, 'gi'),
    read: (m, now) => {
      const n = count(m[1] as string);
      return n === undefined || n === 0 ? undefined : rolling((m[2] as string).toLowerCase(), n, now);
    },
  },
  {
    // "Two or three days ago", "2-3 weeks back": from the farther back to the nearer.
    re: new RegExp(String.raw`\b${NUM_EN}\s*(?:or|to|-|–)\s*${NUM_EN}\s+(days?|weeks?|months?|years?)\s+(?:ago|back)\b`, 'gi'),
    read: (m, now) => agoBetween(m[1] as string, m[2] as string, (m[3] as string).toLowerCase(), now),
  },
  {
    // "A fortnight ago": two weeks ago; "the past fortnight": the two weeks up to today.
    re: /\b(?:(?:a|one)\s+fortnight\s+(?:ago|back)|(?:in |over |during |for )?the\s+(?:past|last)\s+fortnight)\b/gi,
    read: (m, now) => (/ago|back/i.test(m[0]) ? weeksAgo(2, now) : rolling('week', 2, now)),
  },
  {
    // "Ago" or "back": "two weeks back", "a few days back".
    re: new RegExp(String.raw`\b${NUM_EN}\s+(days?|weeks?|months?|years?)\s+(?:ago|back)\b`, 'gi'),
    read: (m, now) => {
      const n = count(m[1] as string);
      if (/(?:few|several)$/i.test(m[1] as string)) return fewAgo((m[2] as string).toLowerCase(), now);
      return n === undefined ? undefined : ago((m[2] as string).toLowerCase(), n, now);
    },
  },
  {
    // "On the 3rd", "the 15th of this month": the latest such day. Only before the end, a comma or
    // a word that tells of it ("on the 3rd we…"): "on the 2nd run" is a count.
    re: new RegExp(String.raw`\b(?:on\s+)?the\s+(\d{1,2})(?:st|nd|rd|th)(?:\s+of\s+(this|last)\s+month)?(?!\s+(?:of\s+)?${MONTH_NAMES})(?=\s*(?:$|[,.;:!?)]|(?:i|we|you|they|he|she|it|at|in|when|and|or|before|after|about|for|regarding)\b))`, 'gi'),
    read: (m, now) => dayOfMonth(Number(m[1]), now, m[2]?.toLowerCase()),
  },
  {
    // "in the last month" is the month up to today, as "the past month" is; "last month" the calendar one.
    // "earlier this week", "late last year": that week, that year. A month's part is its third:
    // "early this month" (1–10), "mid last month", "late last month", "the end of last month" (21 to its end).
    re: /\b(?:(?:at\s+)?(?:the\s+)?(?<edge>beginning|start|middle|end|(?:first|second|latter)\s+half)\s+of\s+|(?:in |over |during |for )?(?<the>the )|in |during )?(?:(?<tone>earlier|early|late|mid)[\s-]+)?(?:this\s+(?=past\b))?(?<which>this|last|previous|prior|past)\s+(?<unit>week|month|year)\b(?!\s+of\b)/gi,
    read: (m, now, input) => {
      const g = m.groups ?? {};
      const which = (g.which as string).toLowerCase();
      const unit = (g.unit as string).toLowerCase();
      const today = startOfDay(now.getTime());
      // "the last month's invoice" is last month's: a possessive names the calendar one.
      const past = which === 'past' || (which === 'last' && g.the !== undefined && !/^['’]s\b/.test(input.slice(m.index + m[0].length)));
      if (past) return rolling(unit, 1, now);
      if (unit === 'week') return which === 'this' ? weekOf(today) : unitAgo(unit, 1, now);
      if (unit === 'year') return yearPeriod(now.getFullYear() - (which === 'this' ? 0 : 1));
      return monthPart(now.getFullYear(), now.getMonth() - (which === 'this' ? 0 : 1), enMonthPart(g.edge ?? g.tone));
    },
  },
  {
    // Not "on Saturday mornings": a habit, not a day. "This Monday": this week's. Abbreviated
    // only capitalised: "on Fri", "last Tue" ("on sat" is not a day).
    re: /\b(?:on |last |this past |on last |since |(this ))(sunday|monday|tuesday|wednesday|thursday|friday|saturday|sun|mon|tues?|wed|thu(?:rs?)?|fri|sat)\b\.?(?!\s+(?:mornings|afternoons|evenings|nights)\b)(?:\s+(?:morning|afternoon|evening|night)\b)?/gi,
    read: (m, now) => {
      const word = m[2] as string;
      if (word.length < 6 && !/^[A-Z]/.test(word)) return undefined;
      const wd = weekdayIndex(word);
      return m[1] !== undefined ? weekday(wd, 0, now) : latestWeekday(wd, now);
    },
  },
  // English month ranges: from July to October, between March and May, in March and April (2026).
  {
    re: new RegExp(String.raw`\b(?:(?:from|between|in|during)\s+)?${MONTH_NAMES}\s+(?:to|and|until|through|till|-|–)\s+${MONTH_NAMES}(?:,?\s+(\d{4})\b)?`, 'gi'),
    read: (m, now) => {
      const first = m[1] as string;
      const second = m[2] as string;
      // Both capitalised: "from march to may" is not read as months.
      if (!/^[A-Z]/.test(first) || !/^[A-Z]/.test(second)) return undefined;
      const a = monthIndex(first);
      const b = monthIndex(second);
      if (a < 0 || b < 0) return undefined;
      const yb = m[3] !== undefined ? Number(m[3]) : latestMonth(b, now);
      const ya = a <= b ? yb : yb - 1;
      return span(day(ya, a, 1), day(yb, b + 1, 1));
    },
  },
  // English months: March 5(th)(, 2026), 5(th) (of) March (2026), (in) March (2026), last March;
  // early (mid, late) March, the beginning (middle, end) of March: that third of it.
  {
    re: new RegExp(String.raw`\b(?:(?:in|during|since|on|from|of|until|by|at)\s+)?(?:(last|this)\s+)?(?:(early|late|mid|(?:the\s+)?(?:beginning|start|middle|end|(?:first|second|latter)\s+half)\s+of)[\s-]+)?(?:(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?)?${MONTH_NAMES}(?:\s+(\d{1,2})(?:st|nd|rd|th)?\b(?!\s+(?:times?|x|[a-z]+s)\b))?(?:,?\s+(\d{4})\b)?`, 'gi'),
    read: (m, now, input) => {
      const word = m[4] as string;
      const start = m.index + m[0].indexOf(word);
      const before = input.slice(0, start);
      const after = input.slice(start + word.length);
      // At the start of a sentence, not only of the question: "It broke. May I…".
      if (!isMonthWord(word, before, after, /(^|[.!?。！？]\s)\s*$/.test(before))) return undefined;
      const mo = monthIndex(word);
      if (mo < 0) return undefined;
      const lastOne = (m[1] ?? '').toLowerCase() === 'last';
      let y = m[6] !== undefined ? Number(m[6]) : latestMonth(mo, now);
      if (lastOne && m[6] === undefined && y === now.getFullYear()) y -= 1;
      const d = m[3] ?? m[5];
      if (d !== undefined) {
        const dn = Number(d);
        if (!validDay(y, mo, dn)) return monthPeriod(y, mo);
        if (m[6] === undefined && day(y, mo, dn) > now.getTime()) y -= 1;
        return dayPeriod(new Date(y, mo, dn));
      }
      return monthPart(y, mo, enMonthPart(m[2]));
    },
  },
  // A year: in 2025, during 2024, since 2023 (a bare number is not a year: it may be a port).
  {
    re: /\b(?:in|during|since|of|from)\s+((?:19|20)\d{2})\b/gi,
    read: (m) => yearPeriod(Number(m[1])),
  },
];

/**
 * Days the calendar names, [month (0-based), day, days long]; a span may cross into January.
 * Christmas and the New Year are the days around them; 年末 and 年始 the second half of December
 * and the first half of January; GW (ゴールデンウィーク) 29 April to 6 May; お盆 13 to 16 August.
 */
const NAMED_DAYS: Record<string, [number, number, number]> = {
  'christmas eve': [11, 24, 1],
  'christmas day': [11, 25, 1],
  christmas: [11, 24, 3],
  "new year's eve": [11, 31, 1],
  "new year's day": [0, 1, 1],
  "new year's": [11, 31, 3],
  "valentine's": [1, 14, 1],
  halloween: [9, 31, 1],
  'fourth of july': [6, 4, 1],
  クリスマスイブ: [11, 24, 1],
  クリスマス: [11, 24, 3],
  バレンタイン: [1, 14, 1],
  ホワイトデー: [2, 14, 1],
  ハロウィン: [9, 31, 1],
  大晦日: [11, 31, 1],
  元日: [0, 1, 1],
  正月: [0, 1, 3],
  年末年始: [11, 29, 6],
  年末: [11, 16, 16],
  年始: [0, 1, 15],
  GW: [3, 29, 8],
  お盆: [7, 13, 4],
};

/**
 * The seasons as the calendar of the northern hemisphere counts them (Japan's, the United
 * States', Europe's): spring March to May, summer June to August, autumn September to November,
 * winter December to February (a year's winter begins in its December).
 */
type SeasonName = 'spring' | 'summer' | 'autumn' | 'fall' | 'winter';
const SEASON_START: Record<SeasonName, number> = { spring: 2, summer: 5, autumn: 8, fall: 8, winter: 11 };

function seasonIn(name: SeasonName, y: number): Period {
  const m = SEASON_START[name];
  return span(day(y, m, 1), day(y, m + 3, 1));
}

/** "This winter": the one now, else this year's (which may be still to come). */
function thisSeason(name: SeasonName, now: Date): Period {
  const before = seasonIn(name, now.getFullYear() - 1);
  return before.untilMs > now.getTime() ? before : seasonIn(name, now.getFullYear());
}

/** The latest season of that name that has begun, or (`ended`: "last summer") that has ended. */
function latestSeason(name: SeasonName, now: Date, ended: boolean): Period {
  for (let y = now.getFullYear(); ; y--) {
    const p = seasonIn(name, y);
    if ((ended ? p.untilMs : p.sinceMs) <= now.getTime()) return p;
  }
}

/** The spellings of each named day, as NAMED_DAYS keys them. */
function namedDay(word: string): string {
  const w = word.toLowerCase().replace(/[’‘]/g, "'").replace(/\s+/g, ' ');
  if (/^valentine/.test(w)) return "valentine's";
  if (/^new years?'?s? eve$/.test(w)) return "new year's eve";
  if (/^new years?'?s? day$/.test(w)) return "new year's day";
  if (/^new year/.test(w)) return "new year's";
  if (/^(the )?(fourth|4th) of july$/.test(w)) return 'fourth of july';
  if (/^thanksgiving/.test(w)) return 'thanksgiving';
  if (/^クリスマス・?イ[ブヴ]$/.test(word)) return 'クリスマスイブ';
  if (/^バレンタイン/.test(word)) return 'バレンタイン';
  if (/^ハロウィー?ン$/.test(word)) return 'ハロウィン';
  if (/^(大晦日|大みそか)$/.test(word)) return '大晦日';
  if (/^(元日|元旦)$/.test(word)) return '元日';
  if (/^(お?正月|三が日)$/.test(word)) return '正月';
  if (/^(年始|年初|年明け)$/.test(word)) return '年始';
  if (/^(GW|ゴールデンウィーク|ゴールデンウイーク)$/.test(word)) return 'GW';
  return w;
}

/** Thanksgiving (the United States'): the fourth Thursday of November. */
function thanksgiving(y: number): Period {
  const first = new Date(y, 10, 1);
  return dayPeriod(new Date(y, 10, 1 + ((4 - first.getDay() + 7) % 7) + 21));
}

/** That named day in year y (a span crossing the year starts in y). */
function namedDayIn(name: string, y: number): Period | undefined {
  if (name === 'thanksgiving') return thanksgiving(y);
  const at = NAMED_DAYS[name];
  return at ? span(day(y, at[0], at[1]), day(y, at[0], at[1] + at[2])) : undefined;
}

/** The named day in the year given, or the latest that has begun (`before`: the one before this year's). */
function latestNamedDay(name: string, now: Date, year: number | undefined, before: boolean): Period | undefined {
  if (year !== undefined) return namedDayIn(name, year);
  const thisYear = namedDayIn(name, now.getFullYear());
  if (!thisYear) return undefined;
  return thisYear.sinceMs <= now.getTime() && !before ? thisYear : namedDayIn(name, now.getFullYear() - 1);
}

/** That day (0: Sunday) of this week (weeks back 0), last week (1) or the week before (2). */
function weekday(wd: number, weeksBack: number, now: Date): Period | undefined {
  if (wd < 0) return undefined;
  return dayPeriod(addDays(weekStart(addDays(startOfDay(now.getTime()), -7 * weeksBack)), (wd + 6) % 7));
}

/** That day of the week (0: Sunday) nearest the day n weeks (months, years) back: three days either side. */
function weekdayNear(wd: number, unit: string, n: number, now: Date): Period | undefined {
  if (wd < 0) return undefined;
  const back = dayBack(unit, n, now);
  const ahead = (wd - back.getDay() + 7) % 7;
  return dayPeriod(addDays(back, ahead > 3 ? ahead - 7 : ahead));
}

/** The day of the week (0: Sunday) a name or its abbreviation names (Thurs, Tue); -1: none. */
function weekdayIndex(word: string): number {
  const w = word.toLowerCase().slice(0, 3);
  return WEEKDAYS.findIndex((d) => d.startsWith(w));
}

function latestWeekday(wd: number, now: Date): Period | undefined {
  if (wd < 0) return undefined;
  const today = startOfDay(now.getTime());
  let back = (today.getDay() - wd + 7) % 7;
  if (back === 0) back = 7;
  return dayPeriod(addDays(today, -back));
}

/**
 * From Saturday of last week, or (`latest`) of the weekend that began last (this one on a
 * Saturday or Sunday), to now: a weekend is as often told of in the days after it as in it.
 */
function weekend(now: Date, latest: boolean): Period {
  const today = startOfDay(now.getTime());
  const thisOne = addDays(weekStart(today), 5);
  const saturday = latest && today.getTime() >= thisOne.getTime() ? thisOne : addDays(thisOne, -7);
  return span(saturday, addDays(today, 1));
}

/** "since last week", "3月以降": from the start of the period to the end of today. */
function sinceThen(p: Period, now: Date): Period {
  const end = addDays(startOfDay(now.getTime()), 1).getTime();
  return p.sinceMs < end ? span(p.sinceMs, end) : p;
}

export function readTime(query: string, nowMs: number): TimeReading {
  const input = query.normalize('NFKC');
  const now = new Date(nowMs);
  const found: Found[] = [];
  for (const rule of RULES) {
    rule.re.lastIndex = 0;
    for (let m = rule.re.exec(input); m !== null; m = rule.re.exec(input)) {
      if (m[0].length === 0) {
        rule.re.lastIndex++;
        continue;
      }
      let start = m.index;
      let end = start + m[0].length;
      if (found.some((f) => start < f.end && end > f.start)) continue; // taken by an earlier rule
      let period = rule.read(m, now, input);
      if (!period || period.untilMs <= period.sinceMs) continue;
      // "the week of November 16", 11月16日の週: that day's Monday-to-Sunday week (a day rule may have taken the "of").
      const weekBefore = /\b(?:(?:in|during|over)\s+)?the week\s+(?:of\s+)?$/i.exec(input.slice(0, start));
      const weekAfter = /^の週/.exec(input.slice(end));
      const weekOfIt = (weekBefore !== null && (/\bof\s+$/i.test(weekBefore[0]) || /^of\s/i.test(m[0]))) || /^the week of\s/i.test(m[0]);
      if ((weekOfIt || weekAfter) && addDays(new Date(period.sinceMs), 1).getTime() === period.untilMs) {
        period = weekOf(new Date(period.sinceMs));
        if (weekBefore && weekOfIt) start -= weekBefore[0].length;
        if (weekAfter) end += weekAfter[0].length;
      }
      // "last week Thursday", "a week ago Monday", "two weeks ago Friday": that day of the week read.
      const dayAfter = /^,?\s+(?:on\s+)?(sunday|monday|tuesday|wednesday|thursday|friday|saturday)\b/i.exec(input.slice(end));
      if (dayAfter && addDays(new Date(period.sinceMs), 7).getTime() === period.untilMs) {
        const wd = weekdayIndex(dayAfter[1] as string);
        period = dayPeriod(addDays(new Date(period.sinceMs), (wd - new Date(period.sinceMs).getDay() + 7) % 7));
        end += dayAfter[0].length;
      }
      // "the last week of March", 11月の第1週, 先月の最終週, "the first week of 2026": that week of the month or year.
      const nthBefore = /\b(?:(?:in|during|over)\s+)?the\s+(first|1st|second|2nd|third|3rd|fourth|4th|last|final)\s+week\s+(?:of\s+)?$/i.exec(input.slice(0, start));
      const nthAfter = /^の?(?:第([1-4一二三四])週|最終週)/.exec(input.slice(end));
      const nthOfIt = nthBefore !== null && (/\bof\s+$/i.test(nthBefore[0]) || /^of\s/i.test(m[0]));
      if ((nthOfIt || nthAfter) && (wholeMonth(period) || wholeYear(period))) {
        period = nthWeek(period, nthOfIt ? WEEK_ORDINALS[(nthBefore?.[1] ?? '').toLowerCase()] : nthAfter?.[1] === undefined ? undefined : count(nthAfter[1]));
        if (nthOfIt && nthBefore) start -= nthBefore[0].length;
        else if (nthAfter) end += nthAfter[0].length;
      }
      // "since …", "…以降", "…以来": until now.
      const sinceBefore = /\bsince\s+$/i.exec(input.slice(0, start));
      const sinceAfter = /^\s*(?:以降|以来)/.exec(input.slice(end));
      if (/^since\s/i.test(m[0]) || sinceBefore || sinceAfter) {
        period = sinceThen(period, now);
        if (sinceBefore) start -= sinceBefore[0].length;
        if (sinceAfter) end += sinceAfter[0].length;
      }
      found.push({ start, end, period });
    }
  }
  if (found.length === 0) return { text: query };
  found.sort((a, b) => a.start - b.start);
  const spans = joinRanges(found, input);
  let text = '';
  let at = 0;
  for (const f of spans) {
    text += `${input.slice(at, f.start)} `;
    at = f.end;
  }
  text += input.slice(at);
  return { period: (spans[0] as (typeof spans)[number]).period, text: text.replace(/\s+/g, ' ').trim() };
}

/** The weeks of a month or year "the first week of" names: 1–4; the last (undefined) is its last seven days. */
const WEEK_ORDINALS: Record<string, number | undefined> = { first: 1, '1st': 1, second: 2, '2nd': 2, third: 3, '3rd': 3, fourth: 4, '4th': 4, last: undefined, final: undefined };

/** Whether a period is one calendar month. */
function wholeMonth(p: Period): boolean {
  const from = new Date(p.sinceMs);
  return from.getDate() === 1 && from.getHours() === 0 && day(from.getFullYear(), from.getMonth() + 1, 1) === p.untilMs;
}

/** Whether a period is one calendar year. */
function wholeYear(p: Period): boolean {
  const from = new Date(p.sinceMs);
  return from.getMonth() === 0 && wholeMonth({ ...p, untilMs: day(from.getFullYear(), 1, 1) }) && day(from.getFullYear() + 1, 0, 1) === p.untilMs;
}

/** The n-th week of a month or year (the 1st–7th, the 8th–14th …); none: its last seven days. */
function nthWeek(whole: Period, n: number | undefined): Period {
  if (n === undefined) return span(addDays(new Date(whole.untilMs), -7), new Date(whole.untilMs));
  const first = new Date(whole.sinceMs);
  return span(addDays(first, 7 * (n - 1)), addDays(first, 7 * n));
}

interface Found {
  start: number;
  end: number;
  period: Period;
}

/** What joins two times into one span: "to", "until", "through", "-", "〜", "から" ("and" after "between"). */
const JOIN = String.raw`\s*(?:to|until|till|through|thru|and|-|–|—|〜|~|から)\s*`;
const RANGE_JOIN = new RegExp(`^${JOIN}$`, 'i');
/** A day of the same month after a day: "March 3-10", "3月3日〜10日", "from March 3 to 10" (not a count: "March 3 - 5 tests failed"). */
const RANGE_DAY = new RegExp(String.raw`^${JOIN}(\d{1,2})(?:日|st|nd|rd|th)?(?![\d:/.-])(?!\s*(?:月|年|時|分)|\s*(?:times?|x|people|pm|am|[a-z]+s)\b)`, 'i');

/**
 * Times found side by side, joined into one span where the question joins them: "between March 3
 * and March 10", "from last week to today", "March 3-10", 3月3日から3月10日まで, 3月3日〜10日: from
 * the first's start to the second's end. Any other pair stays two (the first names the period).
 */
function joinRanges(found: Found[], input: string): Found[] {
  const out: Found[] = [];
  for (let i = 0; i < found.length; i++) {
    const a = found[i] as Found;
    const b = found[i + 1];
    const lead = /\b(?:between|from)\s+$/i.exec(input.slice(0, a.start));
    const and = lead !== null && /^between/i.test(lead[0]);
    const start = lead ? a.start - lead[0].length : a.start;
    const joined = (end: number, untilMs: number): Found => {
      const until = /^\s*まで/.exec(input.slice(end));
      return { start, end: end + (until ? until[0].length : 0), period: span(a.period.sinceMs, untilMs) };
    };
    const between = b ? input.slice(a.end, b.start) : '';
    if (b && RANGE_JOIN.test(between) && (and || !/and/i.test(between)) && b.period.untilMs > a.period.untilMs) {
      out.push(joined(b.end, b.period.untilMs));
      i++;
      continue;
    }
    const first = new Date(a.period.sinceMs);
    const oneDay = addDays(first, 1).getTime() === a.period.untilMs;
    const day2 = oneDay ? RANGE_DAY.exec(input.slice(a.end)) : null;
    const d2 = day2 ? Number(day2[1]) : 0;
    if (day2 && (and || !/and/i.test(day2[0])) && d2 > first.getDate() && validDay(first.getFullYear(), first.getMonth(), d2)) {
      out.push(joined(a.end + day2[0].length, day(first.getFullYear(), first.getMonth(), d2 + 1)));
      continue;
    }
    out.push(a);
  }
  return out;
}

/**
 * A question about how past moments stand to each other: their order ("in what order", "which
 * came first", "before or after", 順番, どちらが先, 最初に) or the time between two of them ("how
 * many days passed between", "how long after", 何日後, 何か月かかった). Such a question is about
 * the past as a whole, so search ranks it without the recency prior (search.ts): the newer of
 * two events is no likelier its answer. A question about one moment and now ("how many days
 * ago", "since I last", 何日前) keeps the prior: the latest such moment is the likelier one.
 */
export function asksAboutOrder(query: string): boolean {
  const q = query.normalize('NFKC');
  return ORDER_EN.test(q) || ELAPSED_EN.test(q) || ORDER_JA.test(q) || ELAPSED_JA.test(q);
}

const ORDER_EN = /\b(?:in (?:what|which) order|the order (?:of|in which)|chronological(?:ly)?|earliest|before or after|after or before)\b|\b(?:which|who|what)\b[^.?!]*\bfirst\b[^.?!]*\bor\b|\b(?:which|who)\b[^.?!]*\b(?:came|happened|went|did \w+|was|were) first\b/i;
const ELAPSED_EN = /\b(?:how (?:many|much) (?:days|weeks|months|years|hours|time)|how long)\b[^.?!]*\b(?:between|before|after)\b/i;
const ORDER_JA = /順番|順序|どちらが先|どっちが先|どれが先|誰が先|どちらが最初|どれが最初|最初に|先か後か/;
const ELAPSED_JA = /何(?:日|週間|か月|ヶ月|カ月|ヵ月|年)(?:後|かかった)|(?:どのくらい|どれくらい)かかった/;
