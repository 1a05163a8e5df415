/**
 * The latest time, not a period: "what did we decide last time about retries", "the most
 * recent deploy error", "let's continue where we left off", 前回決めた方針, 直近の障害. Such words ask for the newest memory on the
 * topic, however long ago it was, and name no topic themselves: they leave the question's words
 * (as a period's words do), and search puts the memories on the topic newest first (search.ts).
 *
 * Not read:
 *  - "recently", "lately", 最近: as often told of oneself ("I recently switched to pnpm", a tenth
 *    of the development set's user turns) as asked, and they name no latest occasion; they stay words.
 *  - "previously", "before", 以前: the older of two (a value that changed), not the latest.
 *  - "the latest version", "@latest", 最新の: a release's name as often as a time.
 *  - 直近3か月, "the most recent 3 days": a period (when/rules.ts reads those first).
 *  - 前回比, "last time's figure": a comparison or a value (after the phrase, as the period rules).
 */

/** English: "(the) last time", "most recent(ly)", "the latest on/about", "where we left off" (the last session's end). */
const LATEST_EN = /\b(?:(?:the\s+)?last\s+time(?!['’]s|\s+(?:period|frame|zone|step|slot|window|limit|out)\b)|most\s+recent(?:ly)?(?!\s+\d)|the\s+latest(?=\s+(?:on|about|regarding|with)\b)|where\s+(?:did\s+)?(?:we|i)\s+(?:left|leave)\s+off)\b/gi;

/** Japanese: 前回 (not 前回比), 直近 (not 直近3か月: a period; not 合併時直近, nearest to a time named). */
const LATEST_JA = /前回(?!比)|(?<![\p{sc=Han}\p{sc=Katakana}ー])直近(?![0-9０-９一二三四五六七八九十数何])/gu;

export interface LatestReading {
  /** The question asks for the newest memory on its topic. */
  latest: boolean;
  /** The question without those words. */
  text: string;
}

export function readLatest(text: string): LatestReading {
  let latest = false;
  const out = text.replace(LATEST_EN, () => ((latest = true), ' ')).replace(LATEST_JA, () => ((latest = true), ' '));
  return latest ? { latest, text: out.replace(/\s+/g, ' ').trim() } : { latest, text };
}
