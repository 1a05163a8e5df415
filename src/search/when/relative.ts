/**
 * Periods counted from now: N days (weeks, months, years) ago, the past N of them, weekdays and
 * weekends, seasons and named days (the latest that has begun), years named in words.
 */
import {
  addDays, day, dayPeriod, FISCAL_BACK, fiscalNow, monthPeriod, type Period, span, startOfDay,
  weekOf, weekStart, yearPeriod,
} from './calendar.js';
import { count, JA_YEARS, MONTH_UNIT } from './words.js';

export function unitAgo(unit: string, n: number, now: Date): Period | undefined {
  const today = startOfDay(now.getTime());
  if (/^(day|日)/.test(unit)) return dayPeriod(addDays(today, -n));
  if (/^(week|週)/.test(unit)) return weekOf(addDays(today, -7 * n));
  if (MONTH_UNIT.test(unit)) return monthPeriod(now.getFullYear(), now.getMonth() - n);
  if (/^(year|年)/.test(unit)) return yearPeriod(now.getFullYear() - n);
  return undefined;
}

/** "The other day", 先日: the 14 days before today (today is the days after it). */
export function otherDay(now: Date): Period {
  const today = startOfDay(now.getTime());
  return span(addDays(today, -14), today);
}

/**
 * "The other week": a week or two back, as "a week ago" and "two weeks ago" read them together
 * (each the seven days around its day): from 17 days back to 4 days back.
 */
export function otherWeek(now: Date): Period {
  const today = startOfDay(now.getTime());
  return span(addDays(today, -17), addDays(today, -3));
}

/** The 24 hours up to now: "a moment ago", "an hour ago", さっき. */
export function lastDay(now: Date): Period {
  return pastHours(24, now);
}

/** The n hours up to now ("the past 48 hours"), at least the last day (a moment's memory is among today's). */
export function pastHours(n: number, now: Date): Period {
  return span(now.getTime() - Math.max(n, 24) * 3_600_000, now.getTime() + 1);
}

/**
 * "N weeks ago", "N週間前": the seven days around the day N weeks back (three either side). A
 * person counting weeks back counts from today, not from a Monday.
 */
export function weeksAgo(n: number, now: Date): Period {
  return weekAround(dayBack('week', n, now));
}

/** The seven days around a day: three either side. */
export function weekAround(day0: Date): Period {
  return span(addDays(day0, -3), addDays(day0, 4));
}

/** "N months ago", "Nか月前": the month around the day N months back (15 days either side). */
export function monthsAgo(n: number, now: Date): Period {
  return monthAround(dayBack('month', n, now));
}

/** The month around a day: 15 days either side. */
function monthAround(d: Date): Period {
  return span(addDays(d, -15), addDays(d, 16));
}

/** "A year and a half ago", 2か月半前: the month around the day N months (years) and a half back. */
export function andAHalfAgo(unit: string, n: number, now: Date): Period {
  if (MONTH_UNIT.test(unit)) return monthAround(addDays(dayBack('month', n, now), -15));
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
export function fewAgo(unit: string, now: Date): Period | undefined {
  const today = startOfDay(now.getTime());
  if (/^(day|日)/.test(unit)) return span(addDays(today, -5), addDays(today, -1));
  if (/^(week|週)/.test(unit)) return span(addDays(today, -35), addDays(today, -13));
  if (MONTH_UNIT.test(unit)) return span(monthsBack(today, 5), addDays(monthsBack(today, 2), 1));
  if (/^(year|年)/.test(unit)) return span(monthsBack(today, 60), addDays(monthsBack(today, 24), 1));
  return undefined;
}

/** "Two or three days ago", 2、3日前: from the farther back (b) to the nearer (a). */
export function agoBetween(a: string, b: string, unit: string, now: Date): Period | undefined {
  const near = count(a);
  const far = count(b);
  if (near === undefined || far === undefined || near === 0 || far <= near) return undefined;
  const from = ago(unit, far, now);
  const to = ago(unit, near, now);
  return from && to ? span(from.sinceMs, to.untilMs) : undefined;
}

/** The latest day d of a month up to today ("this": this month's, "last": last month's), as "on the 3rd" means it. */
export function yearNamed(words: string, now: Date): number {
  if (/^\d{4}$/.test(words)) return Number(words);
  return now.getFullYear() - (/^last/i.test(words) ? 1 : 0);
}

/** The calendar year, or the fiscal year (年度), a Japanese word names: 2025年, 今年, 去年; 2025年度, 今年度, 昨年度. */
export function jaYearNamed(word: string, now: Date): { y: number; fiscal: boolean } {
  const fiscal = word.endsWith('年度');
  const digits = /^(\d{4})/.exec(word);
  if (digits) return { y: Number(digits[1]), fiscal };
  if (fiscal) return { y: fiscalNow(now) - (FISCAL_BACK[word] ?? 0), fiscal };
  return { y: now.getFullYear() + (JA_YEARS[word] ?? 0), fiscal };
}

/** "N units ago": counted back from today, a unit's span around the day that far back (a day: that day). */
export function ago(unit: string, n: number, now: Date): Period | undefined {
  if (/^(week|週)/.test(unit)) return weeksAgo(n, now);
  if (MONTH_UNIT.test(unit)) return monthsAgo(n, now);
  if (/^(year|年)/.test(unit)) return yearsAgo(n, now);
  return unitAgo(unit, n, now);
}

export function rolling(unit: string, n: number, now: Date): Period | undefined {
  const today = startOfDay(now.getTime());
  const tomorrow = addDays(today, 1);
  if (/^(day|日)/.test(unit)) return span(addDays(today, -(n - 1)), tomorrow);
  if (/^(week|週)/.test(unit)) return span(addDays(today, -7 * n + 1), tomorrow);
  // From the day after the same day n months (years) back.
  if (MONTH_UNIT.test(unit)) return span(addDays(monthsBack(today, n), 1), tomorrow);
  if (/^(year|年)/.test(unit)) return span(addDays(monthsBack(today, 12 * n), 1), tomorrow);
  return undefined;
}

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
export type SeasonName = 'spring' | 'summer' | 'autumn' | 'fall' | 'winter';
const SEASON_START: Record<SeasonName, number> = { spring: 2, summer: 5, autumn: 8, fall: 8, winter: 11 };

export function seasonIn(name: SeasonName, y: number): Period {
  const m = SEASON_START[name];
  return span(day(y, m, 1), day(y, m + 3, 1));
}

/** "This winter": the one now, else this year's (which may be still to come). */
export function thisSeason(name: SeasonName, now: Date): Period {
  const before = seasonIn(name, now.getFullYear() - 1);
  return before.untilMs > now.getTime() ? before : seasonIn(name, now.getFullYear());
}

/** The latest season of that name that has begun, or (`ended`: "last summer") that has ended. */
export function latestSeason(name: SeasonName, now: Date, ended: boolean): Period {
  for (let y = now.getFullYear(); ; y--) {
    const p = seasonIn(name, y);
    if ((ended ? p.untilMs : p.sinceMs) <= now.getTime()) return p;
  }
}

/** The spellings of each named day, as NAMED_DAYS keys them. */
export function namedDay(word: string): string {
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
export function thanksgiving(y: number): Period {
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
export function latestNamedDay(name: string, now: Date, year: number | undefined, before: boolean): Period | undefined {
  if (year !== undefined) return namedDayIn(name, year);
  const thisYear = namedDayIn(name, now.getFullYear());
  if (!thisYear) return undefined;
  return thisYear.sinceMs <= now.getTime() && !before ? thisYear : namedDayIn(name, now.getFullYear() - 1);
}

/** That day (0: Sunday) of this week (weeks back 0), last week (1) or the week before (2). */
export function weekday(wd: number, weeksBack: number, now: Date): Period | undefined {
  if (wd < 0) return undefined;
  return dayPeriod(addDays(weekStart(addDays(startOfDay(now.getTime()), -7 * weeksBack)), (wd + 6) % 7));
}

/** That day of the week (0: Sunday) nearest the day n weeks (months, years) back: three days either side. */
export function weekdayNear(wd: number, unit: string, n: number, now: Date): Period | undefined {
  if (wd < 0) return undefined;
  const back = dayBack(unit, n, now);
  const ahead = (wd - back.getDay() + 7) % 7;
  return dayPeriod(addDays(back, ahead > 3 ? ahead - 7 : ahead));
}

/** The day of the week (0: Sunday) a name or its abbreviation names (Thurs, Tue); -1: none. */
export function latestWeekday(wd: number, now: Date): Period | undefined {
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
export function weekend(now: Date, latest: boolean): Period {
  const today = startOfDay(now.getTime());
  const thisOne = addDays(weekStart(today), 5);
  const saturday = latest && today.getTime() >= thisOne.getTime() ? thisOne : addDays(thisOne, -7);
  return span(saturday, addDays(today, 1));
}

/** "since last week", "3月以降": from the start of the period to the end of today. */
export function sinceThen(p: Period, now: Date): Period {
  const end = addDays(startOfDay(now.getTime()), 1).getTime();
  return p.sinceMs < end ? span(p.sinceMs, end) : p;
}
