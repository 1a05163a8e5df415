/**
 * Days as the person counts them: by this machine's clock and time zone. Records keep their
 * time in UTC (the JSONL's `timestamp`), but a date shown to the person or the agent, a day
 * typed in `--since`, and "yesterday" in a question all mean the local calendar. A memory made
 * at 08:00 in Tokyo is that day's, not the UTC day before; one made at 17:00 in San Francisco
 * is not dated tomorrow, which the agent (told today's local date) would take for the future.
 */

const pad = (n: number) => String(n).padStart(2, '0');

/** YYYY-MM-DD of a moment (an ISO time or epoch ms) in the local calendar. */
export function localDay(t: string | number): string {
  const d = new Date(t);
  if (Number.isNaN(d.getTime())) return typeof t === 'string' ? t.slice(0, 10) : '-';
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** Local midnight of YYYY-MM-DD, or undefined when no such day exists (2026-02-30, 2026-13-01). */
export function localMidnight(day: string): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]) - 1, Number(m[3])];
  const t = new Date(y, mo, d);
  return t.getFullYear() === y && t.getMonth() === mo && t.getDate() === d ? t.getTime() : undefined;
}

/** The local midnight after the one of `ms`'s day (a day's exclusive end, whatever DST does). */
export function nextLocalMidnight(ms: number): number {
  const d = new Date(ms);
  return new Date(d.getFullYear(), d.getMonth(), d.getDate() + 1).getTime();
}
