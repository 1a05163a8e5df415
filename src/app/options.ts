/** Parsing and checking of option values; every failure names the option and the fix. */
import { UsageError } from '../errors.js';
import type { SearchMode } from '../types.js';

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

/**
 * A day (YYYY-MM-DD, UTC), a full ISO time, or an age such as 7d / 2w / 3m / 1y.
 * `end` = the bound is an --until: a plain day includes that whole day.
 */
export function parseDate(name: string, value: string, now: Date, end = false): number {
  const rel = /^(\d+)([dwmy])$/.exec(value.trim());
  if (rel) {
    const n = Number(rel[1]);
    const days = { d: 1, w: 7, m: 30, y: 365 }[rel[2] as 'd' | 'w' | 'm' | 'y'] * n;
    return now.getTime() - days * DAY;
  }
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    const t = Date.parse(`${value}T00:00:00.000Z`);
    if (!Number.isNaN(t)) return end ? t + DAY : t;
  } else if (/^\d{4}-\d{2}-\d{2}T/.test(value)) {
    const t = Date.parse(value);
    if (!Number.isNaN(t)) return t;
  }
  throw new UsageError(`${name} must be a date like 2026-03-25, a time like 2026-03-25T14:00:00Z, or an age like 7d / 2w / 3m, got "${value}"`);
}
