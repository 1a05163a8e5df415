/**
 * Periods on the calendar, in local time (the person's calendar): days, weeks from Monday, months
 * and their thirds and halves, quarters and halves of a year, fiscal years from April.
 */
import { localDay } from '../../days.js';

export interface Period {
  sinceMs: number;
  /** Exclusive. */
  untilMs: number;
  /** The period in words, for the person (the CLI prints it). */
  label: string;
  /**
   * Everything before a moment, as "before October", "until last Friday", 10月まで and 10月より前
   * say (`before`): it starts with the calendar, and the days after it are what the words leave out.
   */
  before?: true;
}

export function day(y: number, m: number, d: number): number {
  return new Date(y, m, d).getTime();
}

export function startOfDay(ms: number): Date {
  const d = new Date(ms);
  return new Date(d.getFullYear(), d.getMonth(), d.getDate());
}

export function addDays(d: Date, n: number): Date {
  return new Date(d.getFullYear(), d.getMonth(), d.getDate() + n);
}

/** Monday of the week holding d. */
export function weekStart(d: Date): Date {
  return addDays(d, -((d.getDay() + 6) % 7));
}

export function span(since: Date | number, until: Date | number): Period {
  const s = typeof since === 'number' ? since : since.getTime();
  const u = typeof until === 'number' ? until : until.getTime();
  const last = u - 1;
  return { sinceMs: s, untilMs: u, label: localDay(s) === localDay(last) ? localDay(s) : `${localDay(s)} – ${localDay(last)}` };
}

/** Everything before `untilMs` (Period.before). */
export function before(untilMs: number): Period {
  return { sinceMs: 0, untilMs, label: `before ${localDay(untilMs)}`, before: true };
}

/** The period moved back whole years (`years` of them), as its own month and day of that year. */
export function yearsBack(p: Period, years: number): Period {
  const back = (ms: number) => {
    const d = new Date(ms);
    return new Date(d.getFullYear() - years, d.getMonth(), d.getDate(), d.getHours(), d.getMinutes()).getTime();
  };
  return span(back(p.sinceMs), back(p.untilMs));
}

export function dayPeriod(d: Date): Period {
  return span(d, addDays(d, 1));
}

export function monthPeriod(y: number, m: number): Period {
  return span(day(y, m, 1), day(y, m + 1, 1));
}

export function yearPeriod(y: number): Period {
  return span(day(y, 0, 1), day(y + 1, 0, 1));
}

/**
 * A third of a month, as 上旬, 中旬 and 下旬 name them: early (1–10), mid (11–20), late (21 to its
 * end); or a half, as 前半 and 後半 do: first (1–15), second (16 to its end).
 */
export type MonthPart = 'early' | 'mid' | 'late' | 'first' | 'second';

/** The first day of each part. */
const PART_FROM: Record<MonthPart, number> = { early: 1, mid: 11, late: 21, first: 1, second: 16 };
/** The day after each part (none: it runs to the month's end). */
const PART_UNTIL: Record<MonthPart, number | undefined> = { early: 11, mid: 21, late: undefined, first: 16, second: undefined };

export function monthPart(y: number, m: number, part: MonthPart | undefined): Period {
  if (part === undefined) return monthPeriod(y, m);
  const until = PART_UNTIL[part];
  return span(day(y, m, PART_FROM[part]), until === undefined ? day(y, m + 1, 1) : day(y, m, until));
}

/** A third of the month where no month is named (月末, "the end of the month"): the latest that has begun. */
export function latestMonthPart(part: MonthPart, now: Date): Period {
  return monthPart(now.getFullYear(), now.getMonth() - (now.getDate() >= PART_FROM[part] ? 0 : 1), part);
}

/** The year of the latest month `m` that has begun: this year's, or last year's while it is still to come. */
export function latestMonth(m: number, now: Date): number {
  return m <= now.getMonth() ? now.getFullYear() : now.getFullYear() - 1;
}

/** The year of the latest day `d` of month `m` that has come: that month's latest year, or the one before while the day is still to come. */
export function latestDayYear(m: number, d: number, now: Date): number {
  const y = latestMonth(m, now);
  return validDay(y, m, d) && day(y, m, d) > now.getTime() ? y - 1 : y;
}

/** The Japanese counters of months (3か月, 3ヶ月, 3カ月, 3ヵ月, 3ケ月). */
export function weekOf(day0: Date): Period {
  const w = weekStart(day0);
  return span(w, addDays(w, 7));
}

export function dayOfMonth(d: number, now: Date, which: string | undefined): Period | undefined {
  const today = startOfDay(now.getTime());
  for (let back = which === 'last' ? 1 : 0; back < 12; back++) {
    const first = new Date(today.getFullYear(), today.getMonth() - back, 1);
    if (!validDay(first.getFullYear(), first.getMonth(), d)) continue;
    const at = new Date(first.getFullYear(), first.getMonth(), d);
    if (at.getTime() <= today.getTime() || which === 'this') return dayPeriod(at);
  }
  return undefined;
}

/**
 * Days a to b of the month that `month` falls in, or (none given) of the latest month whose day b
 * has come: "from the 10th to the 15th", 10日から15日まで.
 */
export function daysOfMonth(a: number, b: number, month: Date | undefined, now: Date): Period | undefined {
  const at = month ?? (a < b ? dayOfMonth(b, now, undefined) : undefined)?.sinceMs;
  if (at === undefined || a >= b) return undefined;
  const first = new Date(at);
  const [y, m] = [first.getFullYear(), first.getMonth()];
  return validDay(y, m, b) ? span(day(y, m, a), day(y, m, b + 1)) : undefined;
}

/** `3/15`'s day and a weekday in brackets after it, `(金)`: two groups. */
export function slashDay(a: number, b: number, dayFirst: boolean): { m: number; d: number } | undefined {
  if (a >= 1 && a <= 12 && b >= 1 && b <= 31) return { m: a - 1, d: b };
  if (dayFirst && a >= 13 && a <= 31 && b >= 1 && b <= 12) return { m: b - 1, d: a };
  return undefined;
}

/** A Japanese fiscal year (年度): 1 April of y to 31 March of the next. */
export function fiscalYear(y: number): Period {
  return span(day(y, 3, 1), day(y + 1, 3, 1));
}

/**
 * A quarter (q 1–4) or a half (h 1–2) of the year starting in month `first` (0: a calendar year; 3:
 * a Japanese fiscal year, from April) of y. Months past December run into the next year.
 */
export function quarterOf(y: number, q: number, first = 0): Period {
  return span(day(y, first + (q - 1) * 3, 1), day(y, first + q * 3, 1));
}

export function halfOf(y: number, h: number, first = 0): Period {
  return span(day(y, first + (h - 1) * 6, 1), day(y, first + h * 6, 1));
}

/** The calendar quarter `back` quarters before the one now (0: this one). */
export function quarterBack(now: Date, back: number): Period {
  const n = now.getFullYear() * 4 + Math.floor(now.getMonth() / 3) - back;
  return quarterOf(Math.floor(n / 4), (n % 4) + 1);
}

/** The latest quarter q of a calendar year that has begun (this year's, or last year's while q is to come). */
export function latestQuarter(q: number, now: Date): Period {
  return quarterOf((q - 1) * 3 <= now.getMonth() ? now.getFullYear() : now.getFullYear() - 1, q);
}

/** The fiscal years (年度) named by a word, as years back from the one now. */
export const FISCAL_BACK: Record<string, number> = { 今年度: 0, 本年度: 0, 昨年度: 1, 前年度: 1, 一昨年度: 2 };

/** The fiscal year (年度) now is in. */
export function fiscalNow(now: Date): number {
  return now.getMonth() >= 3 ? now.getFullYear() : now.getFullYear() - 1;
}

export function validDay(y: number, m: number, d: number): boolean {
  const t = new Date(y, m, d);
  return t.getFullYear() === y && t.getMonth() === m && t.getDate() === d;
}

/** Whether a period is one day long: a calendar day (or the 24 hours up to now, as the last day is read). */
export function oneDay(p: Period): boolean {
  return addDays(new Date(p.sinceMs), 1).getTime() === p.untilMs;
}

export function wholeMonth(p: Period): boolean {
  const from = new Date(p.sinceMs);
  return from.getDate() === 1 && from.getHours() === 0 && day(from.getFullYear(), from.getMonth() + 1, 1) === p.untilMs;
}

/** Whether a period is one calendar year. */
export function wholeYear(p: Period): boolean {
  const from = new Date(p.sinceMs);
  return from.getMonth() === 0 && wholeMonth({ ...p, untilMs: day(from.getFullYear(), 1, 1) }) && day(from.getFullYear() + 1, 0, 1) === p.untilMs;
}

/** The n-th week of a month or year (the 1st–7th, the 8th–14th …); none: its last seven days. */
export function nthWeek(whole: Period, n: number | undefined): Period {
  if (n === undefined) return span(addDays(new Date(whole.untilMs), -7), new Date(whole.untilMs));
  const first = new Date(whole.sinceMs);
  return span(addDays(first, 7 * (n - 1)), addDays(first, 7 * n));
}
