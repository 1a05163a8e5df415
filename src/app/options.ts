/** Parsing and checking of option values; every failure names the option and the fix. */
import { UsageError } from '../errors.js';
import type { SearchMode } from '../types.js';
import { localMidnight, nextLocalMidnight } from '../days.js';
import { readTime, type Period } from '../search/when.js';

export function positiveInt(name: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`${name} must be a positive whole number, got "${value}"`);
  return n;
}

export function nonNegative(name: string, value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new UsageError(`${name} must be a number ≥ 0, got "${value}"`);
  return n;
}

export function searchMode(value: string): SearchMode {
  if (value === 'hybrid' || value === 'keyword' || value === 'vector') return value;
  throw new UsageError(`--mode must be hybrid, keyword or vector, got "${value}"`);
}

const DAY = 86_400_000;

const DATE_FORMS = 'a day like 2026-03-25, a time like 2026-03-25T14:00:00Z, an age like 7d / 2w / 3m, or words like yesterday, last week, 先週, 3月';

/**
 * A bound of a date option, in the local calendar (days.ts): a day (YYYY-MM-DD), a full ISO
 * time, an age such as 7d / 2w / 3m / 1y, or the words a question names a time with
 * (search/when.ts: "yesterday", "last week", "March 2026", 先週, 3月, 3日前). `end` = the bound
 * is an --until: a day or a period includes all of it.
 */
export function parseDate(name: string, value: string, now: Date, end = false): number {
  const v = value.trim();
  const rel = /^(\d+)([dwmy])$/.exec(v);
  if (rel) {
    const n = Number(rel[1]);
    const days = { d: 1, w: 7, m: 30, y: 365 }[rel[2] as 'd' | 'w' | 'm' | 'y'] * n;
    return now.getTime() - days * DAY;
  }
  if (/^\d{4}-\d{2}-\d{2}$/.test(v)) {
    const t = localMidnight(v);
    if (t === undefined) throw new UsageError(`${name}: there is no day ${v}; give ${DATE_FORMS}`);
    return end ? nextLocalMidnight(t) : t;
  }
  if (/^\d{4}-\d{2}-\d{2}T/.test(v)) {
    const t = Date.parse(v);
    if (!Number.isNaN(t)) return t;
  }
  const period = wholePeriod(v, now);
  if (period) return end ? period.untilMs : period.sinceMs;
  throw new UsageError(`${name} must be ${DATE_FORMS}, got "${value}"`);
}

/** The period the words name when they are nothing but a time ("March" alone counts as "in March"). */
function wholePeriod(value: string, now: Date): Period | undefined {
  for (const words of [value, `in ${value}`]) {
    const r = readTime(words, now.getTime());
    if (r.period && r.text.replace(/[\s.,、。]+/g, '') === '') return r.period;
  }
  return undefined;
}
