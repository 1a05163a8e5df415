/**
 * Time in a question: "what did we do last week", "the May 2026 deploy", "先月の障害".
 * A time expression names a period, computed from the clock at query time in this
 * machine's time zone; search then puts that period's memories first (search.ts) and the
 * time words stop counting as words to match. Pure: the clock is an argument. Here: the
 * reading (readTime) and what joins and narrows what the rules found; the rules themselves in
 * when/rules.ts, over the calendar (when/calendar.ts), periods counted from now
 * (when/relative.ts) and the words of time (when/words.ts).
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
 *    year; "since the start of the year": this year to now; 先週あたり, 先月くらい: as 先週,
 *    先月). A fiscal year, 今年度, 昨年度, 2025年度: from 1 April; its end, 昨年度末: its March
 *    (年度末 alone: the latest March that has begun).
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
 *    that day of that week; between Monday and Wednesday, from Monday to Wednesday last week,
 *    月曜から水曜まで: from that day to the next such second day (only after from or between in
 *    English: "Monday through Friday" is as often a habit); the
 *    Wednesday two months ago / 2か月前の水曜日: that day nearest the day that far back.
 *  - since … / …以降 / …以後 / …以来: from the start of that period to now. Before … / prior to …
 *    / …より前: everything up to its start; until … / till … / …まで / …以前: through its end;
 *    after … / …より後: from its end to now (bound; not after a length: "two days before").
 *    The second of two times joined takes the first's year when only the first says it. The
 *    week of November 16 / 11月16日の週: that day's Monday-to-Sunday week.
 *  - a month: "in March", "March", "3月": the latest March that has begun (this year's, or last
 *    year's when March is still to come); "last March": the one before this year's; with a
 *    year, "March 2026", "2026年3月"; with a day, "March 5", "5 March 2026", "3月5日",
 *    "2026-03-05": that day (3/15に, 12/1の, 11/20(金), "on 3/15": the latest such day, month
 *    first; only with a cue, a particle or a weekday, never a fraction such as 1/2の確率);
 *    "March of last year", 去年の3月: that year's; 3月末, 3月上旬, "early March": that third of
 *    March; 3月後半, 先月の前半, "the second half of last month": that half (1–15, 16 to its end);
 *    先月中, 今年中, 先週中: as 先月, 今年, 先週 (not 先週中国); "the last week of March",
 *    3月の第2週, 先月の最終週: that week of the month (the 1st–7th, the 8th–14th …; the last:
 *    its last seven days; so of a year: "the last week of 2025", 去年の最終週, 2026年の第1週;
 *    "the last week of the year": the latest that has begun). A lower-case month name counts
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
 * Words that ask for the latest time rather than a period ("last time", "most recently",
 * 前回: when/latest.ts) are taken out too, and the reading says so (`latest`).
 */
import {
  addDays, before, day, dayPeriod, nthWeek, oneDay, type Period, span, startOfDay, validDay, weekOf, wholeMonth, wholeYear, yearsBack,
} from './when/calendar.js';
import { sinceThen } from './when/relative.js';
import { readLatest } from './when/latest.js';
import { FENCED_CODE, pastedLines } from './query.js';
import { RULES } from './when/rules.js';
import { BOUND_WORDS, count, textAfter, textBefore, WEEK_ORDINALS, weekdayIndex } from './when/words.js';

export type { Period };

export interface TimeReading {
  period?: Period;
  /** The question asks for the latest time on its topic ("last time", 前回: when/latest.ts). */
  latest?: true;
  /** The question asks about the order of past moments or the time between them (asksAboutOrder). */
  order?: true;
  /** The question without its time expressions. */
  text: string;
}

/** The period and the latest time a question names, and what is left of it. */
export function readTime(query: string, nowMs: number): TimeReading {
  const reading = readPeriod(query, nowMs);
  // "How many weeks between the last time I … and …": two moments asked about, not the latest.
  // Code in the question says neither (a `latest` variable, a comment's "first … or …").
  if (asksAboutOrder(withoutCode(query))) return { ...reading, order: true };
  const l = outsideCode(reading.text, readLatest);
  return l.latest ? { ...reading, latest: true, text: l.text } : reading;
}

/**
 * Where a text holds code: fenced blocks and inline spans (CODE), and the lines of code pasted with
 * no fence (query.ts pastedLines; a log's lines not: their stamps name a day). In order, apart.
 */
function codeSpans(text: string): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  if (text.includes('`') || text.includes('~~~')) for (const c of text.matchAll(CODE)) spans.push([c.index, c.index + c[0].length]);
  for (const p of pastedLines(text)) if (!p.log) spans.push([p.start, p.end]);
  spans.sort((a, b) => a[0] - b[0]);
  const out: Array<[number, number]> = [];
  for (const s of spans) {
    const last = out[out.length - 1];
    if (last && s[0] <= last[1]) last[1] = Math.max(last[1], s[1]);
    else out.push([s[0], s[1]]);
  }
  return out;
}

/** The text with each piece of its code (codeSpans) put as `mark(piece)`. */
function markCode(text: string, mark: (piece: string) => string): string {
  let out = '';
  let at = 0;
  for (const [start, end] of codeSpans(text)) {
    out += text.slice(at, start) + mark(text.slice(start, end));
    at = end;
  }
  return out + text.slice(at);
}

/** The text without its code, each piece a space. */
const withoutCode = (text: string) => markCode(text, () => ' ');

/** `read` over the text with its code set aside (each piece a mark no rule reads), the code put back in what it leaves. */
function outsideCode<T extends { text: string }>(text: string, read: (t: string) => T): T {
  const pieces: string[] = [];
  const masked = markCode(text, (piece) => `\u0001${pieces.push(piece) - 1}\u0001`);
  if (pieces.length === 0) return read(text);
  const r = read(masked);
  return { ...r, text: r.text.replace(/\u0001(\d+)\u0001/g, (_m, i: string) => pieces[Number(i)] ?? '') };
}

function readPeriod(query: string, nowMs: number): TimeReading {
  // 令和8年, 平成31年, 昭和64年: the Japanese era's years as the calendar's, so every rule reads them.
  const input = query.normalize('NFKC').replace(/(令和|平成|昭和|大正|明治)(元|\d{1,2})年/g, (_w, era: string, n: string) => `${(ERA_YEAR_ZERO[era] ?? 0) + (n === '元' ? 1 : Number(n))}年`);
  const now = new Date(nowMs);
  const found: Found[] = [];
  // The characters an earlier rule's match took (a mark per character: found.some over every
  // earlier match made a long prompt full of dates quadratic).
  const taken = new Uint8Array(input.length);
  // Code pasted or quoted (a fenced block, an inline span, lines of code with no fence) is material, not a time told of.
  for (const [start, end] of codeSpans(input)) taken.fill(1, start, end);
  for (const rule of RULES) {
    rule.re.lastIndex = 0;
    for (let m = rule.re.exec(input); m !== null; m = rule.re.exec(input)) {
      if (m[0].length === 0) {
        rule.re.lastIndex++;
        continue;
      }
      let start = m.index;
      let end = start + m[0].length;
      if (taken.subarray(start, end).includes(1)) continue; // taken by an earlier rule
      // What is said right before and after the match, as written (the match widens below).
      const behind = textBefore(input, start);
      const ahead = textAfter(input, end);
      if (NOT_A_TIME_AFTER.test(ahead)) continue; // "today's date", 先月比: a value, not a time told of
      if (/^\d/.test(m[0]) && VERSION_BEFORE.test(behind)) continue; // "apiVersion 2023-10-16": a name, not a time
      // "next Friday", 来週の金曜, 来年の3月, "in March next year": a time to come holds no memory yet (a plan for it is recent).
      if (TO_COME_BEFORE.test(behind) || TO_COME_AFTER.test(ahead)) continue;
      // "every March", "each December", 毎年12月, 毎週月曜: a habit, not a time (as "on Saturday mornings").
      if (HABIT_BEFORE.test(behind)) continue;
      let period = rule.read(m, now, input);
      if (!period || period.untilMs <= period.sinceMs) continue;
      // "the week of November 16", 11月16日の週: that day's Monday-to-Sunday week (a day rule may have taken the "of").
      const weekBefore = /\b(?:(?:in|during|over)\s+)?the week\s+(?:of\s+)?$/i.exec(behind);
      const weekAfter = /^の週/.exec(ahead);
      const weekOfIt = (weekBefore !== null && (/\bof\s+$/i.test(weekBefore[0]) || /^of\s/i.test(m[0]))) || /^the week of\s/i.test(m[0]);
      if ((weekOfIt || weekAfter) && oneDay(period)) {
        period = weekOf(new Date(period.sinceMs));
        if (weekBefore && weekOfIt) start -= weekBefore[0].length;
        if (weekAfter) end += weekAfter[0].length;
      }
      // "last week Thursday", "a week ago Monday", "two weeks ago Friday": that day of the week read.
      const dayAfter = /^,?\s+(?:on\s+)?(sunday|monday|tuesday|wednesday|thursday|friday|saturday)\b/i.exec(textAfter(input, end));
      if (dayAfter && addDays(new Date(period.sinceMs), 7).getTime() === period.untilMs) {
        const wd = weekdayIndex(dayAfter[1] as string);
        period = dayPeriod(addDays(new Date(period.sinceMs), (wd - new Date(period.sinceMs).getDay() + 7) % 7));
        end += dayAfter[0].length;
      }
      // "the day after Thanksgiving", "the week before Christmas", "the day before March 3": that day or week beside it.
      // The day beside one day; the week beside a week or less (the day after a three-day Christmas is not told).
      const beside = BESIDE.exec(textBefore(input, start));
      const week = beside?.[1]?.toLowerCase() === 'week';
      if (beside && period.untilMs - period.sinceMs <= (week ? 7 : 1) * 86_400_000 + 3_600_000) {
        const after = (beside[2] as string).toLowerCase() === 'after';
        const edge = new Date(after ? period.untilMs : period.sinceMs);
        period = after ? span(edge, addDays(edge, week ? 7 : 1)) : span(addDays(edge, week ? -7 : -1), edge);
        start -= beside[0].length;
      }
      // "Friday, November 27", "Fri Nov 27": the weekday before a day that is that weekday goes with it.
      const named = oneDay(period) ? WEEKDAY_BEFORE.exec(textBefore(input, start)) : null;
      if (named && weekdayIndex(named[1] as string) === new Date(period.sinceMs).getDay()) start -= named[0].length;
      // 12月1日(火), 先週金曜(11/27), "Nov 27 (Fri)": the day said again in brackets goes with it.
      const again = oneDay(period) ? DAY_AGAIN.exec(textAfter(input, end)) : null;
      if (again) end += again[0].length;
      // "yesterday at 3pm", 昨日の15時ごろ, 今日の午後3時: a time of that day goes with it (the day is read; no hour is pretended).
      const clock = oneDay(period) ? CLOCK_AFTER.exec(textAfter(input, end)) : null;
      if (clock) end += clock[0].length;
      // "the last week of March", 11月の第1週, 先月の最終週, "the first week of 2026": that week of the month or year.
      const nthBefore = /\b(?:(?:in|during|over)\s+)?the\s+(first|1st|second|2nd|third|3rd|fourth|4th|last|final)\s+week\s+(?:of\s+)?$/i.exec(textBefore(input, start));
      const nthAfter = /^の?(?:第([1-4一二三四])週|最終週)/.exec(textAfter(input, end));
      const nthOfIt = nthBefore !== null && (/\bof\s+$/i.test(nthBefore[0]) || /^of\s/i.test(m[0]));
      if ((nthOfIt || nthAfter) && (wholeMonth(period) || wholeYear(period))) {
        period = nthWeek(period, nthOfIt ? WEEK_ORDINALS[(nthBefore?.[1] ?? '').toLowerCase()] : nthAfter?.[1] === undefined ? undefined : count(nthAfter[1]));
        if (nthOfIt && nthBefore) start -= nthBefore[0].length;
        else if (nthAfter) end += nthAfter[0].length;
      }
      // "since …", "…以降", "…以来", "from … until now", "…から今まで": until now.
      const sinceBefore = /\b(?:since|from)\s+$/i.exec(textBefore(input, start));
      const sinceAfter = /^\s*(?:以降|以後|以来|から\s*(?:今|現在)まで|(?:to|until|till|through|up to)\s+(?:now|the present|date)\b)/i.exec(textAfter(input, end));
      if (/^since\s/i.test(m[0]) || (sinceBefore && /^since/i.test(sinceBefore[0])) || sinceAfter) {
        period = sinceThen(period, now);
        if (sinceBefore) start -= sinceBefore[0].length;
        if (sinceAfter) end += sinceAfter[0].length;
      }
      // "sometime in March", "around November 20", "this year so far": words that only say how loosely the time is meant.
      const looseBefore = (oneDay(period) ? LOOSE_BEFORE_DAY : LOOSE_BEFORE).exec(textBefore(input, start));
      const looseAfter = /^,?\s*so far\b/i.exec(textAfter(input, end));
      if (looseBefore) start -= looseBefore[0].length;
      if (looseAfter) end += looseAfter[0].length;
      // "last week's decision", "yesterday's bug": the possessive goes with its time.
      const possessive = /^['’]s\b/.exec(textAfter(input, end));
      if (possessive) end += possessive[0].length;
      // "this Saturday" asked on a Thursday, "this summer" asked in April, "tonight": a time still to
      // come holds no memory yet, as "next Friday" does not (TO_COME_BEFORE); its words stay searched.
      if (period.sinceMs > nowMs) continue;
      found.push({ start, end, period });
      taken.fill(1, start, end);
    }
  }
  if (found.length === 0) return { text: query };
  found.sort((a, b) => a.start - b.start);
  const spans = joinRanges(found, input).map((f) => bound(f, input, now));
  let text = '';
  let at = 0;
  for (const f of spans) {
    text += `${input.slice(at, f.start)} `;
    at = f.end;
  }
  text += input.slice(at);
  return { period: (spans[0] as (typeof spans)[number]).period, text: text.replace(/\s+/g, ' ').trim() };
}

/** The calendar year before each era's first (元年): 令和 from 2019, 平成 1989, 昭和 1926, 大正 1912, 明治 1868. */
const ERA_YEAR_ZERO: Record<string, number> = { 令和: 2018, 平成: 1988, 昭和: 1925, 大正: 1911, 明治: 1867 };

/**
 * After a time, what makes it a value rather than a time something was said in: "today's date",
 * "yesterday's timestamp", 今日の日付 (code that computes a date), 先月比, 昨年比 (a comparison).
 */
const NOT_A_TIME_AFTER = /^(?:['’]s)?\s*(?:date|timestamp|datetime)\b|^の?(?:日付|日時|タイムスタンプ)|^比(?!較|べ)|^\s*(?:api\s+version|edition)\b/i;

/**
 * Code in the prompt, marked as such: a fenced block (to the prompt's end when left open), an
 * inline span. A date in it is a value or a name (`new Date("2025-12-01")`, the partition
 * `2026-03`), and stays in the words searched. A log pasted as text keeps its stamp read as its day.
 */
const CODE = new RegExp(`${FENCED_CODE.source}|\`[^\`\\n]+\``, 'g');

/**
 * Before a date written in digits, what makes it a version's name: an API pinned to a date (Stripe's
 * `apiVersion: '2023-10-16'`, Azure's `api-version=2024-06-01`, "stripe api version 2024-06-20").
 */
const VERSION_BEFORE = /\b(?:api[-_ ]?version|version|ver\.?)["'`]?\s*[:=]?\s*["'`]?$/i;

/**
 * Before a time, what puts it ahead: "next", "this coming", "upcoming", 来週の, 来月, 来年の, 次の,
 * 今度の; also before the second of a span that begins ahead ("next Monday to Friday", 来週の月曜から金曜).
 */
const TO_COME_BEFORE = /(?:\b(?:next|this coming|the coming|upcoming)\s+(?:\w+\s+(?:to|until|through|-)\s+)?|(?:再?来週|再?来月|再?来年|次の|今度の)の?\s*(?:[^、。,.!?\s]{1,8}(?:から|〜|~|-)\s*)?)$/i;
/** Before a time, what makes it a habit: "every", "each", "every other", "every year in", 毎年, 毎月, 毎週, 毎日. */
const HABIT_BEFORE = /(?:\b(?:every|each)\s+(?:other\s+)?(?:(?:year|month|week)\s+)?|毎(?:年|月|週|日)[のは、]?\s*)$/i;
/** After a time, what puts it ahead: "on Friday next week", "in March next year", "the 10th to the 14th of next month". */
const TO_COME_AFTER = /^,?\s*(?:of\s+)?next\s+(?:week|month|year)\b/i;

/** Before a time, the day or week beside it: "the day after", "in the week before". */
const BESIDE = /\b(?:(?:on|in|during)\s+)?the\s+(day|week)\s+(before|after)\s+(?:the\s+)?$/i;
/** A weekday before a day, said with it: "Friday, November 27", "on Fri Nov 27", "last Friday, November 27". */
const WEEKDAY_BEFORE = /\b(?:(?:on|last)\s+)?(sun|mon|tue|wed|thu|fri|sat)(?:day|sday|nesday|rsday|urday|s|rs)?\.?,?\s+$/i;
/** Words before a time that only say how loosely it is meant ("sometime in March", "around November 20"); "early", "late" before a day. */
const LOOSE = String.raw`sometime|some time|so far|around|about|roughly|approximately|towards?`;
const LOOSE_BEFORE = new RegExp(String.raw`\b(?:${LOOSE})\s+$`, 'i');
const LOOSE_BEFORE_DAY = new RegExp(String.raw`\b(?:${LOOSE}|early|late)\s+$`, 'i');

/** A day said again in brackets after it: its weekday, (火), (Fri), or its date, (11/27), (27日). */
const DAY_AGAIN = /^\s*\((?:[日月火水木金土](?:曜日?)?|(?:sun|mon|tue|wed|thu|fri|sat)[a-z]*\.?|\d{1,2}\/\d{1,2}(?:\/\d{2,4})?|\d{1,2}日)\)/i;

/** A time of day after a day: "at 3pm", "around 15:00", "at noon", a log's 10:00:01,123; の15時ごろ, 15時半に, の午後3時 (not 3時間, a length). */
const CLOCK_AFTER = /^(?:,?\s+(?:at|around|about|before|after|by)?\s*(?:\d{1,2}(?::\d{2}(?::\d{2})?)?\s*(?:am|pm|a\.m\.|p\.m\.)|\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d{1,9})?)?(?:Z|[\t ]?(?:UTC|GMT|[+-]\d{2}:?\d{2}))?|noon|midnight)\b|の?(?:午前|午後)?\d{1,2}時(?:\d{1,2}分|半)?(?!間)(?:頃|ごろ)?)/i;

/** The weeks of a month or year "the first week of" names: 1–4; the last (undefined) is its last seven days. */
interface Found {
  start: number;
  end: number;
  period: Period;
}

/** What joins two times into one span: "to", "until", "through", "-", "〜", "から" ("and" after "between"). */
const JOIN = String.raw`\s*(?:to|until|till|through|thru|and|-|–|—|〜|~|から)\s*`;
const RANGE_JOIN = new RegExp(`^${JOIN}$`, 'i');
/** What offers two times as either: "or", か. */
const OR_JOIN = /^\s*,?\s*(?:or|か)\s*$/i;
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
    const lead = /\b(?:between|from)\s+$/i.exec(textBefore(input, a.start));
    const and = lead !== null && /^between/i.test(lead[0]);
    const start = lead ? a.start - lead[0].length : a.start;
    const joined = (end: number, untilMs: number): Found => {
      const until = /^\s*(?:まで|にかけて)/.exec(textAfter(input, end));
      return { start, end: end + (until ? until[0].length : 0), period: span(a.period.sinceMs, untilMs) };
    };
    const between = b ? input.slice(a.end, b.start) : '';
    if (b && (OR_JOIN.test(between) || RANGE_JOIN.test(between))) b.period = inYearsOf(a, b, input);
    // "in March or April", 先週か先々週: either, so both: from the earlier's start to the later's end.
    if (b && OR_JOIN.test(between)) {
      out.push({ start: a.start, end: b.end, period: span(Math.min(a.period.sinceMs, b.period.sinceMs), Math.max(a.period.untilMs, b.period.untilMs)) });
      i++;
      continue;
    }
    const first = new Date(a.period.sinceMs);
    const aDay = oneDay(a.period);
    if (b && RANGE_JOIN.test(between) && (and || !/and/i.test(between))) {
      // 月曜から水曜まで asked on a Tuesday: the Wednesday after that Monday, not the one before it.
      const weekdays = aDay && /曜/.test(input.slice(a.start, a.end)) && /曜/.test(input.slice(b.start, b.end));
      const untilMs = weekdays ? addDays(first, Math.round((b.period.sinceMs - a.period.sinceMs) / 86_400_000 + 7) % 7 + 1).getTime() : b.period.untilMs;
      if (untilMs > a.period.untilMs) {
        out.push(joined(b.end, untilMs));
        i++;
        continue;
      }
    }
    const day2 = aDay ? RANGE_DAY.exec(textAfter(input, a.end)) : null;
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
 * The second of two times joined or offered as either, in the first's years when only the first
 * says its year: "from March 3, 2025 to April 5" ends on 5 April 2025, 2025年3月から6月まで in June
 * 2025 (read alone, April 5 and 6月 are the latest that have begun). Read as the first such month
 * or day after the first time's start. A time of its own ("to last week", "to today") stays.
 */
function inYearsOf(a: Found, b: Found, input: string): Period {
  const said = input.slice(b.start, b.end);
  if (!/\d{4}/.test(input.slice(a.start, a.end)) || /\d{3}|年|year|ago|前|後|先|今|昨|去|曜|\b(?:last|this|past|previous|today|yesterday|(?:mon|tues|wednes|thurs|fri|satur|sun)day)\b/i.test(said)) return b.period;
  if (!/\d|月|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)/i.test(said)) return b.period;
  const back = new Date(b.period.sinceMs).getFullYear() - new Date(a.period.sinceMs).getFullYear();
  if (back <= 0) return b.period;
  const same = yearsBack(b.period, back);
  return same.sinceMs > a.period.sinceMs ? same : back > 1 ? yearsBack(b.period, back - 1) : b.period;
}

/** Before a time, the word that makes it a bound: "before October", "prior to the launch in May", "until last Friday", "after March". */
const BOUND_BEFORE = new RegExp(String.raw`\b(${BOUND_WORDS})\s+$`, 'i');
/** After a time, the words that make it a bound: 10月より前, 10月以前, 先週まで(に), 3月より後; お盆前に, GW後の (not 20日前後, 10月前半). */
const BOUND_AFTER = /^\s*(より前|以前|まで(?:に|の間)?|より後|前(?=[にのはも、]|$)|後(?=[にのはも、]|$))/;
/** A length before the bound's word: "two days before Christmas", "a week after the launch" tell a moment, not a bound. */
const LENGTH_BEFORE = /\b(?:an?|one|two|three|four|five|six|few|several|couple(?: of)?|\d+)\s+(?:days?|weeks?|months?|years?)\s+$/i;

/**
 * A time said as a bound: everything before it ("before October", "prior to", 10月より前: up to its
 * start; "until last Friday", "till March", 10月まで, 10月以前: through its end), or everything
 * after it up to today ("after October", 10月より後: from its end). Not the time itself, which is
 * what the words leave out. "The day before Christmas" and "from March until May" are read before.
 */
function bound(f: Found, input: string, now: Date): Found {
  const behind = textBefore(input, f.start);
  const lead = BOUND_BEFORE.exec(behind);
  const tail = lead ? null : BOUND_AFTER.exec(textAfter(input, f.end));
  const word = (lead?.[1] ?? tail?.[1])?.toLowerCase();
  if (word === undefined || (lead && LENGTH_BEFORE.test(behind.slice(0, lead.index)))) return f;
  const start = lead ? f.start - lead[0].length : f.start;
  const end = tail ? f.end + tail[0].length : f.end;
  if (word === 'after' || word === 'より後' || word === '後') {
    const endOfToday = addDays(startOfDay(now.getTime()), 1).getTime();
    return f.period.untilMs < endOfToday ? { start, end, period: span(f.period.untilMs, endOfToday) } : f;
  }
  const through = word === 'until' || word === 'till' || word === '以前' || word.startsWith('まで');
  const untilMs = through ? f.period.untilMs : f.period.sinceMs;
  // "Until today", 今日まで: everything up to now bounds nothing; the time is read as it is said.
  return untilMs > now.getTime() ? f : { start, end, period: before(untilMs) };
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
  if (ORDER_JA.test(q) || ELAPSED_JA.test(q)) return true;
  // The English patterns look across one clause: each is tried on a clause of its own, and not
  // on one longer than a question is (a paste without a full stop: trying them across 32 KB of
  // "which … first" took minutes, the search waiting).
  return q.split(/[.?!]/).some((c) => c.length <= CLAUSE_MAX && (ORDER_EN.test(c) || ELAPSED_EN.test(c)));
}

/** The longest clause asksAboutOrder reads (the development set's longest question is far shorter). */
const CLAUSE_MAX = 500;

const ORDER_EN = /\b(?:in (?:what|which) order|the order (?:of|in which)|chronological(?:ly)?|earliest|before or after|after or before)\b|\b(?:which|who|what)\b[^.?!]*\bfirst\b[^.?!]*\bor\b|\b(?:which|who)\b[^.?!]*\b(?:came|happened|went|did \w+|was|were) first\b/i;
const ELAPSED_EN = /\b(?:how (?:many|much) (?:days|weeks|months|years|hours|time)|how long)\b[^.?!]*\b(?:between|before|after)\b/i;
const ORDER_JA = /順番|順序|どちらが先|どっちが先|どれが先|誰が先|どちらが最初|どれが最初|最初に|先か後か/;
const ELAPSED_JA = /何(?:日|週間|か月|ヶ月|カ月|ヵ月|年)(?:後|かかった)|(?:どのくらい|どれくらい)かかった/;
