/**
 * Each way a question names a time: a pattern and the period it reads. readTime (../when.ts) tries
 * them in this order, and an earlier rule takes its words first.
 */
import {
  addDays, day, dayOfMonth, dayPeriod, daysOfMonth, FISCAL_BACK, fiscalNow, fiscalYear, halfOf, latestDayYear, latestMonth,
  latestMonthPart, latestQuarter, type MonthPart, monthPart, monthPeriod, nthWeek, type Period,
  quarterBack, quarterOf, slashDay, span, startOfDay, validDay, weekOf, weekStart, yearPeriod,
} from './calendar.js';
import {
  ago, agoBetween, andAHalfAgo, fewAgo, jaYearNamed, lastDay, latestNamedDay, latestSeason,
  latestWeekday, monthsAgo, namedDay, otherDay, otherWeek, pastHours, rolling, seasonIn, type SeasonName,
  thisSeason, unitAgo, weekAround, weekday, weekdayNear, weekend, weeksAgo, yearNamed,
} from './relative.js';
import {
  BOUND_WORDS, count, enMonthPart, isMonthWord, JA_ABOUT, JA_DAYPART, JA_MONTHS, JA_NEAR, JA_OF_TIME,
  JA_ORDINAL, JA_PART, JA_PLAN, JA_WEEKDAYS, JA_YEARS, jaMonthPart, MONTH_NAMES, monthIndex,
  NUM_EN, NUM_JA, ORDINALS, SLASH_DAY, textAfter, textBefore, weekdayIndex,
} from './words.js';

interface Rule {
  re: RegExp;
  read: (m: RegExpExecArray, now: Date, input: string) => Period | undefined;
}

/** Words that make a sentence a plan, not a memory: "could work", "let's meet", "I'll", "we're going to". */
const EN_PLAN = /\b(?:will|won't|could|would|should|shall|can|let's|let us|going to|gonna|plan(?:ning)?|schedule|available|free)\b|\w'll\b/i;

export const RULES: Rule[] = [
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
      const cued = m[1] !== undefined || given !== undefined || ofYear !== undefined || which !== undefined || /\b(?:before|after|since)\s+(?:the\s+)?$/i.test(textBefore(input, m.index));
      if (!cued) return undefined;
      // "the new year" is often the one to come: only "New Year" capitalised, or "New Year's".
      if (/^new\s+year$/i.test(word) && !/^New\s+Year$/.test(word)) return undefined;
      if (/^(?:['’]s)?\s+resolutions?\b/i.test(textAfter(input, m.index + m[0].length))) return undefined;
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
      const after = textAfter(input, m.index + m[0].length);
      const timed = year !== undefined || m[4] !== undefined || m[5] !== undefined || m[6] !== undefined || JA_OF_TIME.test(after);
      if (/^(クリスマス|バレンタイン|ホワイトデー|ハロウィ)/.test(name) && !timed) return undefined;
      if (JA_PLAN.test(after)) return undefined;
      const p = latestNamedDay(namedDay(name), now, year, false);
      // GW明け, 正月休み明け: the week after it.
      return p && m[5] !== undefined ? span(p.untilMs, addDays(new Date(p.untilMs), 7)) : p;
    },
  },
  // Seasons, English: last summer, this past summer, this winter, the summer of 2025, winter 2025, over the summer.
  // A season is a time only with a cue (last, this, past, a year, "over/during/since the"): "the
  // summer sale" is a topic, "in the summer" often a habit; "Spring Boot" a framework.
  {
    re: /\b(?:(over|during|through|throughout|since)\s+)?(?:(the)\s+)?(?:(last|this past|this|past|previous)\s+)?(spring|summer|autumn|fall|winter)\b(?:\s+(?:of\s+)?((?:19|20)\d{2})\b|\s+(last|this)\s+year\b)?/gi,
    read: (m, now, input) => {
      const which = m[3]?.toLowerCase();
      const ofYear = m[6]?.toLowerCase();
      const cued = which !== undefined || m[5] !== undefined || ofYear !== undefined || (m[1] !== undefined && m[2] !== undefined);
      if (!cued || /^\s+(?:boot|framework|security|cloud|data|batch|mvc|webflux|ai|integration)\b/i.test(textAfter(input, m.index + m[0].length))) return undefined;
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
      if (end && JA_PLAN.test(textAfter(input, m.index + m[0].length))) return undefined;
      // 年度末 alone: the fiscal year whose March has begun last (in March, the one now).
      const back = m[1] === '年度' ? (now.getMonth() === 2 ? 0 : 1) : (FISCAL_BACK[m[1] as string] ?? 0);
      const y = m[2] !== undefined ? Number(m[2]) : fiscalNow(now) - back;
      return end ? monthPeriod(y + 1, 2) : fiscalYear(y);
    },
  },
  // ISO dates and months: 2026-03-05, 2026-03, 2026/03/05; a timestamp is its day, read whole
  // (2026-11-27T10:00:00Z, 2026-11-27 10:00:01,123 in a log: not November with "-27T10…" left).
  {
    re: /\b(?:on |in |since |of |from )?(\d{4})[-/](\d{1,2})(?:[-/](\d{1,2})(?:(?:T|[\t ]{1,4})\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d{1,9})?)?(?:Z\b|[\t ]?[+-]\d{2}:?\d{2}\b)?)?)?(?![\w:/-]|[.,]\d)/gi,
    read: (m) => {
      const y = Number(m[1]);
      const mo = Number(m[2]) - 1;
      if (mo < 0 || mo > 11 || y < 1970 || y > 2200) return undefined;
      if (m[3] === undefined) return monthPeriod(y, mo);
      const d = Number(m[3]);
      return validDay(y, mo, d) ? dayPeriod(new Date(y, mo, d)) : undefined;
    },
  },
  // Dates with the year written out: 11/27/2026 (American; 27/11/2026 where the first cannot be a
  // month), 2026.11.27, 27.11.2026 (dotted: year first, or the day first as Europe writes it).
  {
    re: /(?<![\w./:-])(?:(?:on|since|from|of)\s+)?(?:(\d{1,2})\/(\d{1,2})\/(\d{4})|(\d{4})\.(\d{1,2})\.(\d{1,2})|(\d{1,2})\.(\d{1,2})\.(\d{4}))(?![\w/]|\.\d)/g,
    read: (m) => {
      const slash = m[1] !== undefined ? slashDay(Number(m[1]), Number(m[2]), true) : undefined;
      const [y, mo, d] = slash ? [Number(m[3]), slash.m, slash.d] : m[4] !== undefined ? [Number(m[4]), Number(m[5]) - 1, Number(m[6])] : [Number(m[9]), Number(m[8]) - 1, Number(m[7])];
      if (m[1] !== undefined && !slash) return undefined;
      return y >= 1970 && y <= 2200 && validDay(y, mo, d) ? dayPeriod(new Date(y, mo, d)) : undefined;
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
      const after = textAfter(input, m.index + m[0].length);
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
  // Months joined with the counter only after the last: 3〜5月, 3-5月に (from March to May, the latest May
  // that has begun), 2025年の3〜5月, 去年の3〜5月 (that year's).
  {
    re: new RegExp(String.raw`(?:(\d{4})年|(今年|去年|昨年|一昨年))?の?(?<![\d/.:-])(\d{1,2})\s*[〜~-]\s*(\d{1,2})月(?![曜])${JA_PART}`, 'g'),
    read: (m, now) => {
      const a = Number(m[3]) - 1;
      const b = Number(m[4]) - 1;
      if (a < 0 || b > 11 || a >= b) return undefined;
      const y = m[1] !== undefined ? Number(m[1]) : m[2] !== undefined ? now.getFullYear() + (JA_YEARS[m[2]] ?? 0) : latestMonth(b, now);
      return span(monthPeriod(y, a).sinceMs, monthPeriod(y, b).untilMs);
    },
  },
  // Japanese absolute dates: 2026年3月5日, 2026年3月, 3月5日, 3月, 2026年 (3月上旬: 1–10 March;
  // 1990年代, a decade, is not 1990). A month after a year of an era not converted (慶応3年12月9日)
  // is that year's, not this one's: not read. 3月5日 without a year is the latest that has come.
  {
    re: new RegExp(String.raw`(\d{4})年(?![代度])(?:(\d{1,2})月(?:(\d{1,2})日)?)?${JA_PART}|(?<!\d年|\d)(\d{1,2})月(?:(\d{1,2})日)?(?![曜])${JA_PART}`, 'g'),
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
      if (m[5] === undefined) return monthPart(latestMonth(mo, now), mo, jaMonthPart(m[0]));
      const d = Number(m[5]);
      const y = latestDayYear(mo, d, now);
      return validDay(y, mo, d) ? dayPeriod(new Date(y, mo, d)) : undefined;
    },
  },
  // A day of a month named by where it stands: 先月の20日, 今月15日, 先々月の3日 (1日 too: the month names it).
  {
    re: new RegExp(String.raw`(先々月|先月|今月)の?([1-9]|[12]\d|3[01])日(?![\d間目]|あたり|当たり)${JA_DAYPART}`, 'g'),
    read: (m, now) => {
      const back = { 今月: 0, 先月: 1, 先々月: 2 }[m[1] as '今月' | '先月' | '先々月'];
      const first = new Date(now.getFullYear(), now.getMonth() - back, 1);
      const d = Number(m[2]);
      return validDay(first.getFullYear(), first.getMonth(), d) ? dayPeriod(new Date(first.getFullYear(), first.getMonth(), d)) : undefined;
    },
  },
  // Days of a month joined without one: 10日から15日まで, 10〜15日に (the latest month whose 15th has
  // come). Not a length: 3〜5日かかる, 10日から15日程度.
  {
    re: /(?<![\d月年毎/.:-])([1-9]|[12]\d|3[01])日?\s*(?:から|〜|~|-)\s*([1-9]|[12]\d|3[01])日(?:まで|の間に?|(?=に|の(?!間)|は|、|,|で(?!き)|$))/g,
    read: (m, now) => daysOfMonth(Number(m[1]), Number(m[2]), undefined, now),
  },
  // Japanese days of a month without one: 3日に, 15日の夜, 27日(金) (the latest such day). Not 1日 (a day as
  // often as the 1st: 1日に3回), 3日に1回 (every three days), 3日で, 3日間 (durations), 毎月15日, この5日.
  {
    re: new RegExp(String.raw`(?<![\d月年毎]|[こそあど]の)([1-9]|[12]\d|3[01])日(?:(\([日月火水木金土](?:曜日?)?\))|(?=に(?![\d一二三四五六七八九十])|の(?:朝|午前|午後|昼|夕方|夜|晩|深夜)))${JA_DAYPART}`, 'g'),
    // With its weekday in brackets (27日(金), 1日(月)) a day is meant, 1日 too.
    read: (m, now) => (m[1] === '1' && m[2] === undefined ? undefined : dayOfMonth(Number(m[1]), now, undefined)),
  },
  // Japanese relative: N日前, N週間前, Nか月前, N年前 (数日前: a few; 2週間ほど前: about), 半年前; 過去N日, ここN週間.
  {
    re: new RegExp(String.raw`半年${JA_ABOUT}前`, 'g'),
    read: (_m, now) => monthsAgo(6, now),
  },
  {
    // 過去48時間, ここ24時間, 直近3時間: those hours up to now, at least the last day.
    re: new RegExp(String.raw`(?:過去|ここ|直近)\s*${NUM_JA}\s*時間`, 'g'),
    read: (m, now) => {
      const n = count(m[1] as string);
      return n ? pastHours(n, now) : undefined;
    },
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
    re: /(?:去年|昨年|1年前|一年前)の(?:今頃|今ごろ|いまごろ|この時期|同じ頃|同じ時期)/g,
    read: (_m, now) => monthsAgo(12, now),
  },
  {
    // 先日, こないだ: the other day, the 14 days before today; この前, この間 too where something
    // was done or an event follows (この前話した, この間の会議), not "before this" (この前の行).
    re: /先日(?!付)|こないだ(?!の?[日月火水木金土]曜)|この(?:前|間|あいだ)(?=[、,]|に?(?:話|決め|言っ|聞い|教え|相談|議論|やっ|し(?:た|て)|作っ|直し|書い|調べ|試し|見|読ん|頼ん|お願い)|の(?:件|話|会議|打ち合わせ|ミーティング|議論|相談|続き|バグ|障害|エラー|変更|修正|設定|リリース|デプロイ))/g,
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
    re: new RegExp(String.raw`${NUM_JA}\s*[、,〜~・-]\s*${NUM_JA}\s*(日|週間|週|${JA_MONTHS}|年)${JA_ABOUT}前${JA_DAYPART}`, 'g'),
    read: (m, now) => agoBetween(m[1] as string, m[2] as string, m[3] as string, now),
  },
  {
    // ひと月前, ここひと月, このひと月間: as 1か月前 and ここ1か月 (ひと月 alone is a length: ひと月かかった).
    re: new RegExp(String.raw`(過去|ここ|直近|この)?\s*ひと月間?(${JA_ABOUT}前)?`, 'g'),
    read: (m, now) => (m[2] !== undefined ? ago('か月', 1, now) : m[1] !== undefined ? rolling('か月', 1, now) : undefined),
  },
  {
    re: new RegExp(String.raw`${NUM_JA}\s*(日|週間|週|${JA_MONTHS}|年)${JA_ABOUT}前(?!後)${JA_DAYPART}`, 'g'),
    read: (m, now) => {
      const n = count(m[1] as string);
      if (m[1] === '数') return fewAgo(m[2] as string, now);
      return n === undefined ? undefined : ago(m[2] as string, n, now);
    },
  },
  {
    // ここ2、3日, この2〜3週間, 過去2、3か月: the last of the larger count.
    re: new RegExp(String.raw`(?:過去|ここ|直近|この)\s*${NUM_JA}\s*[、,〜~・-]\s*${NUM_JA}\s*(日間|日|週間|週|(?:${JA_MONTHS})間?|年間|年)(?!前)`, 'g'),
    read: (m, now) => {
      const near = count(m[1] as string);
      const far = count(m[2] as string);
      return near === undefined || far === undefined || far <= near ? undefined : rolling(m[3] as string, far, now);
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
  {
    // 週末に直したバグ, 週末はデプロイした: the latest weekend, as "over the weekend", when the clause tells
    // of it in the past (not 週末に直したい, 週末にやる, 毎週末, 今週末, 来週末). The particle is the match:
    // 週末 stays a word of the question.
    re: /(?<=(?<![毎今来先次再]|週の)週末)[にはも](?=[^、。,.!?！？\n]{0,24}?(?:(?:し|っ|い|ん|え|け|め|れ|せ|て|き|ち|び|み|り)た(?!い|ら|が|く)|だった|でした|ました(?!ら)))/g,
    read: (_m, now) => weekend(now, true),
  },
  // 週明け, 週初め: Monday and Tuesday of this week; 先週の週明け, 先週明け: of last week (before the weeks, or
  // 先週 would take the week). Not a deadline or a plan (週明けまでに, 週明けの予定).
  {
    re: /(?:(先々週|先週|今週)の|(?<!\p{sc=Han}|来週の))週(?:明け|初め)|(先々週|先週)明け/gu,
    read: (m, now, input) => {
      if (JA_PLAN.test(textAfter(input, m.index + m[0].length))) return undefined;
      const monday = weekStart(addDays(startOfDay(now.getTime()), -7 * ({ 今週: 0, 先週: 1, 先々週: 2 }[(m[1] ?? m[2]) as '今週' | '先週' | '先々週'] ?? 0)));
      return span(monday, addDays(monday, 2));
    },
  },
  // Japanese weekdays: 月曜日, 月曜, この前の金曜 (the latest before today); 先週の金曜, 今週の月曜,
  // 先々週の水曜: that day of that week. Before the weeks, or 先週 would take the week and leave 金曜 a word.
  // Not a setting or a cycle: 月曜始まり, 金曜締め.
  {
    re: new RegExp(String.raw`(?:(先々週|先週|今週)の?|(?:この前|この間|こないだ)の)?([日月火水木金土])曜(?:日)?(?!始まり|締め|〆)${JA_DAYPART}`, 'g'),
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
    re: new RegExp(String.raw`(一昨日|おととい|昨日|きのう|昨夜|昨晩|ゆうべ|夕べ|今日|本日|きょう|今朝|先々週|先週|今週|先々月|先月|今月|一昨年|おととし|去年|昨年|今年)(?:の?(?:初め(?!て)|半ば|頭|上旬|初旬|中旬|中頃|中ごろ|下旬|暮れ|終わり|前半|後半)|の?末|中(?=[にのはでもまだ、,。?？!！]|$))?${JA_NEAR}${JA_DAYPART}`, 'g'),
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
      return JA_PLAN.test(textAfter(input, m.index + m[0].length)) ? undefined : latestMonthPart(jaMonthPart(m[0]) as MonthPart, now);
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
  {
    // "Between Monday and Wednesday", "from Monday to Wednesday last week": from the first day to
    // the second after it; the latest such first day before today, or that week's. Only after
    // from or between: "Monday through Friday" is as often a habit.
    re: /\b(?:from|between)\s+(sunday|monday|tuesday|wednesday|thursday|friday|saturday)\s+(?:to|and|through|thru|until|till|-|–)\s+(sunday|monday|tuesday|wednesday|thursday|friday|saturday)\b(?:\s+(?:of\s+)?(last|this)\s+week\b)?/gi,
    read: (m, now) => {
      const a = weekdayIndex(m[1] as string);
      const b = weekdayIndex(m[2] as string);
      const days = (b - a + 7) % 7;
      const week = m[3]?.toLowerCase();
      const first = week === undefined ? latestWeekday(a, now) : weekday(a, week === 'last' ? 1 : 0, now);
      if (!first || (week !== undefined && (b + 6) % 7 < (a + 6) % 7)) return undefined;
      return span(first.sinceMs, addDays(new Date(first.sinceMs), days + 1));
    },
  },
  // English days of a named week: Friday of last week, last week on Friday, this week's Monday.
  {
    re: /\b(?:(?:on\s+)?(?:the\s+)?(sunday|monday|tuesday|wednesday|thursday|friday|saturday)\s+(?:of\s+)?(last|this)\s+week|(last|this)\s+week(?:['’]s\s+|\s+on\s+)(sunday|monday|tuesday|wednesday|thursday|friday|saturday))\b(?:\s+(?:morning|afternoon|evening|night)\b)?/gi,
    read: (m, now) => weekday(weekdayIndex((m[1] ?? m[4]) as string), ((m[2] ?? m[3]) as string).toLowerCase() === 'last' ? 1 : 0, now),
  },
  // A day of a week counted back: "the Wednesday two months ago", "Friday three weeks ago": that
  // day nearest the day that far back.
  {
    re: new RegExp(String.raw`\b(?:on\s+)?(?:the\s+)?(sunday|monday|tuesday|wednesday|thursday|friday|saturday)\s+(?:about\s+)?${NUM_EN}\s+(weeks?|months?|years?)\s+(?:ago|back)\b`, 'gi'),
    read: (m, now) => {
      const n = count(m[2] as string);
      return n === undefined || /(?:few|several)$/i.test(m[2] as string) ? undefined : weekdayNear(weekdayIndex(m[1] as string), (m[3] as string).toLowerCase(), n, now);
    },
  },
  // "The first week of the year": this year's 1st–7th January; "the last week of the year": the
  // latest 25th–31st December that has begun.
  {
    re: /\b(?:(?:in|during|over)\s+)?the\s+(first|1st|last|final)\s+week\s+of\s+the\s+year\b/gi,
    read: (m, now) => {
      const y = now.getFullYear();
      if (/^(?:first|1st)$/i.test(m[1] as string)) return nthWeek(yearPeriod(y), 1);
      return nthWeek(yearPeriod(day(y, 11, 25) <= now.getTime() ? y : y - 1), undefined);
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
    re: /(?<!\b(?:before|until|till|by|after) )\b(?:on |from |earlier )?(yesterday|today|this morning|this afternoon|last night|last evening)\b(?:\s+(?:morning|afternoon|evening|night)\b)?/gi,
    read: (m, now) => dayPeriod(addDays(startOfDay(now.getTime()), /yesterday|night|evening/i.test(m[1] as string) ? -1 : 0)),
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
    // "this time last year", "the same time last year", "last year around this time", "this time a
    // year ago", as 去年の今頃: the month around the same day a year back.
    re: /\b(?:(?:(?:around|about|at) )?(?:this|the same|same) time (?:last year|a year ago)|(?:last year|a year ago),? (?:around|about|at) (?:this|the same) time)\b/gi,
    read: (_m, now) => monthsAgo(12, now),
  },
  {
    // "the other day", as 先日: the 14 days before today.
    re: /\b(?:on )?the other day\b/gi,
    read: (_m, now) => otherDay(now),
  },
  {
    // "the other week": a week or two back.
    re: /\b(?:in |during )?the other week\b/gi,
    read: (_m, now) => otherWeek(now),
  },
  {
    // "a moment ago", "an hour ago", "20 minutes ago": the last day, as さっき.
    re: new RegExp(String.raw`\b(?:a moment|${NUM_EN}\s+(?:minutes?|hours?))\s+ago\b`, 'gi'),
    read: (_m, now) => lastDay(now),
  },
  {
    // "The past 48 hours", "within the last hour": those hours up to now, at least the last day (as "an hour ago").
    re: new RegExp(String.raw`\b(?:in |over |during |within |for )?the\s+(?:past|last|previous)\s+(?:${NUM_EN}\s+)?hours?\b(?!\s+of\b)`, 'gi'),
    read: (m, now) => {
      const n = m[1] === undefined ? 1 : count(m[1]);
      return n ? pastHours(n, now) : undefined;
    },
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
    re: new RegExp(String.raw`\b(?:in the |over the |during the |within the |in |within |for the |the |these )?(?:past|last|previous)\s+${NUM_EN}\s+(days?|weeks?|months?|years?)\b(?:\s+or\s+so\b)?`, 'gi'),
    read: (m, now) => {
      const n = count(m[1] as string);
      return n === undefined || n === 0 ? undefined : rolling((m[2] as string).toLowerCase(), n, now);
    },
  },
  {
    // "Two or three days ago", "2-3 weeks back", "a month or two ago": from the farther back to the nearer.
    re: new RegExp(String.raw`\b${NUM_EN}\s*(?:or|to|-|–)\s*${NUM_EN}\s+(days?|weeks?|months?|years?)\s+(?:ago|back)\b|\b${NUM_EN}\s+(days?|weeks?|months?|years?)\s+or\s+${NUM_EN}\s+(?:(?:days?|weeks?|months?|years?)\s+)?(?:ago|back)\b`, 'gi'),
    read: (m, now) => (m[1] !== undefined ? agoBetween(m[1], m[2] as string, (m[3] as string).toLowerCase(), now) : agoBetween(m[4] as string, m[6] as string, (m[5] as string).toLowerCase(), now)),
  },
  {
    // "A fortnight ago": two weeks ago; "the past fortnight": the two weeks up to today.
    re: /\b(?:(?:a|one)\s+fortnight\s+(?:ago|back)|(?:in |over |during |for |within )?(?:the\s+)?(?:past|last)\s+fortnight)\b/gi,
    read: (m, now) => (/ago|back/i.test(m[0]) ? weeksAgo(2, now) : rolling('week', 2, now)),
  },
  {
    // "Ago" or "back": "two weeks back", "a few days back", "a week or so ago".
    re: new RegExp(String.raw`\b${NUM_EN}\s+(days?|weeks?|months?|years?)\s+(?:or\s+so\s+)?(?:ago|back)\b`, 'gi'),
    read: (m, now) => {
      const n = count(m[1] as string);
      if (/(?:few|several)$/i.test(m[1] as string)) return fewAgo((m[2] as string).toLowerCase(), now);
      return n === undefined ? undefined : ago((m[2] as string).toLowerCase(), n, now);
    },
  },
  {
    // "From the 10th to the 15th", "between the 20th and the 27th of April": those days of that month
    // (of the latest whose later day has come, when none is named).
    re: new RegExp(String.raw`\b(?:(?:from|between)\s+)?the\s+(\d{1,2})(?:st|nd|rd|th)\s+(?:to|until|till|through|and|-|–)\s+the\s+(\d{1,2})(?:st|nd|rd|th)\b(?:\s+of\s+(?:${MONTH_NAMES}|(this|last)\s+month\b))?`, 'gi'),
    read: (m, now) => {
      const [a, b] = [Number(m[1]), Number(m[2])];
      let month: Date | undefined;
      if (m[3] !== undefined) {
        const mo = monthIndex(m[3]);
        if (mo < 0) return undefined;
        month = new Date(latestDayYear(mo, b, now), mo, 1);
      } else if (m[4] !== undefined) {
        month = new Date(now.getFullYear(), now.getMonth() - (m[4].toLowerCase() === 'last' ? 1 : 0), 1);
      }
      return daysOfMonth(a, b, month, now);
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
    re: /\b(?:(?:at\s+)?(?:the\s+)?(?<edge>beginning|start|middle|end|(?:first|second|latter)\s+half)\s+of\s+|(?:in |over |during |for )?(?<the>the )|in |during )?(?:(?<tone>earlier|early|late|mid)[\s-]+)?(?:this\s+(?=past\b))?(?<which>this|last|previous|prior|past)\s+(?<unit>week|month|year)\b(?!\s+of\b)(?:\s+or\s+(?:so|(?<two>two))\b)?/gi,
    read: (m, now, input) => {
      const g = m.groups ?? {};
      const which = (g.which as string).toLowerCase();
      const unit = (g.unit as string).toLowerCase();
      const today = startOfDay(now.getTime());
      // "in the last week or two": the two up to today.
      if (g.two !== undefined && which !== 'this') return rolling(unit, 2, now);
      // "the last month's invoice" is last month's: a possessive names the calendar one.
      const past = which === 'past' || (which === 'last' && g.the !== undefined && !/^['’]s\b/.test(textAfter(input, m.index + m[0].length)));
      if (past) return rolling(unit, 1, now);
      if (unit === 'week') return which === 'this' ? weekOf(today) : unitAgo(unit, 1, now);
      if (unit === 'year') return yearPeriod(now.getFullYear() - (which === 'this' ? 0 : 1));
      return monthPart(now.getFullYear(), now.getMonth() - (which === 'this' ? 0 : 1), enMonthPart(g.edge ?? g.tone));
    },
  },
  {
    // "earlier in the week (month, year)": this one.
    re: /\bearlier in the (week|month|year)\b(?!\s+of\b)/gi,
    read: (m, now) => {
      const unit = (m[1] as string).toLowerCase();
      const today = startOfDay(now.getTime());
      return unit === 'week' ? weekOf(today) : unit === 'month' ? monthPeriod(now.getFullYear(), now.getMonth()) : yearPeriod(now.getFullYear());
    },
  },
  {
    // "Within the past day", "in the last day or two", "the past day": the day (two days) up to now. Not "the last day of …".
    re: /\b(?:(?:in|over|during|within|for)\s+the\s+(?:past|last)|the\s+past)\s+day(?:\s+or\s+(two|so))?\b(?!\s+of\b)/gi,
    read: (m, now) => ((m[1] ?? '').toLowerCase() === 'two' ? rolling('day', 2, now) : lastDay(now)),
  },
  {
    // "Two Fridays ago", "a couple of Mondays ago": that many of those days back (the latest is one).
    re: new RegExp(String.raw`\b${NUM_EN}\s+(sunday|monday|tuesday|wednesday|thursday|friday|saturday)s\s+(?:ago|back)\b`, 'gi'),
    read: (m, now) => {
      const n = count(m[1] as string);
      const latest = latestWeekday(weekdayIndex(m[2] as string), now);
      return n === undefined || n < 1 || /(?:few|several)$/i.test(m[1] as string) || !latest ? undefined : dayPeriod(addDays(new Date(latest.sinceMs), -7 * (n - 1)));
    },
  },
  {
    // "Monday's meeting", "during Tuesday's pairing": the latest such day (the full name, capitalised).
    re: /\b(?:(?:at|during|in|from|on)\s+)?(Sunday|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday)['’]s\b/g,
    read: (m, now) => latestWeekday(weekdayIndex(m[1] as string), now),
  },
  {
    // "Friday before last", "on the Monday before last": the one a week before the latest.
    re: /\b(?:on\s+)?(?:the\s+)?(sunday|monday|tuesday|wednesday|thursday|friday|saturday)\s+before\s+last\b/gi,
    read: (m, now) => {
      const latest = latestWeekday(weekdayIndex(m[1] as string), now);
      return latest && dayPeriod(addDays(new Date(latest.sinceMs), -7));
    },
  },
  {
    // Not "on Saturday mornings": a habit, not a day; nor before a date ("on Friday, November 20": the
    // date is read, the weekday with it). "This Monday": this week's. Abbreviated
    // only capitalised: "on Fri", "last Tue" ("on sat" is not a day), and not as the first word
    // of a name ("on Sun Microsystems", "on Wed Street").
    re: /\b(?:on |last |this past |on last |since |(?:on )?the previous |previous |(this ))(sunday|monday|tuesday|wednesday|thursday|friday|saturday|sun|mon|tues?|wed|thu(?:rs?)?|fri|sat)\b\.?(?!\s+(?:mornings|afternoons|evenings|nights)\b)(?!,?\s+(?:the\s+\d{1,2}(?:st|nd|rd|th)\b|\d{1,2}(?:st|nd|rd|th)?\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s*\d))(?:\s+(?:morning|afternoon|evening|night)\b)?/gi,
    read: (m, now, input) => {
      const word = m[2] as string;
      if (word.length < 6 && (!/^[A-Z]/.test(word) || (m[0].endsWith(word) && /^\s+[A-Z][a-z]/.test(textAfter(input, m.index + m[0].length))))) return undefined;
      const wd = weekdayIndex(word);
      return m[1] !== undefined ? weekday(wd, 0, now) : latestWeekday(wd, now);
    },
  },
  {
    // "what did we decide Monday morning": a day with its part, the latest such day (capitalised; not
    // "the Monday morning standup" nor "our Friday evening deploys", which are habits, nor in a
    // sentence that makes a plan: "Tuesday afternoon could work", "let's meet Friday morning").
    re: /\b(Sunday|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday)\s+(?:morning|afternoon|evening|night)\b(?!s)/g,
    read: (m, now, input) => {
      const before = textBefore(input, m.index);
      const sentence = `${before.slice(before.search(/[^.!?\n]*$/))} ${textAfter(input, m.index + m[0].length).split(/[.!?\n]/)[0] ?? ''}`;
      if (/\b(?:the|our|my|your|their|a|an|weekly|usual|regular)\s+$/i.test(before) || EN_PLAN.test(sentence)) return undefined;
      return latestWeekday(weekdayIndex(m[1] as string), now);
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
      const before = textBefore(input, start);
      const after = textAfter(input, start + word.length);
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
  // Its parts are the year, as 昨年末 is: early 2025, mid-2025, the end of 2025. After a bound's
  // word, the year alone (when.ts bound reads the word): before 2025, until 2024, after 2023 — not
  // a count ("after 2000 retries", "until 2048 MB").
  {
    re: new RegExp(String.raw`\b(?:(?:in|during|since|from|at)\s+)?(?:(?:early|late|mid)[\s-]+|(?:the\s+)?(?:beginning|start|middle|end)\s+of\s+)((?:19|20)\d{2})\b|\b(?:in|during|since|of|from)\s+((?:19|20)\d{2})\b|(?=(?:19|20)\d{2}\b)(?<=\b(?:${BOUND_WORDS})[\t ]{1,4})((?:19|20)\d{2})\b(?![.,:/-]?\d|\s*(?:%|[a-z]+s\b|ms|px|kb|mb|gb|mhz|x)\b)`, 'gi'),
    read: (m) => yearPeriod(Number(m[1] ?? m[2] ?? m[3])),
  },
];

/**
 * Days the calendar names, [month (0-based), day, days long]; a span may cross into January.
 * Christmas and the New Year are the days around them; 年末 and 年始 the second half of December
 * and the first half of January; GW (ゴールデンウィーク) 29 April to 6 May; お盆 13 to 16 August.
 */
