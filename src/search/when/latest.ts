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

/**
 * English: "(the) last time", "most recent(ly)", "the latest on/about", the last session's end
 * ("where we left off", "where we stopped", "where were we?"), and the last session itself when
 * the question asks of it ("in our last session", "what did we do in the previous conversation?"),
 * not a thing named so ("restore the last session on startup", "the last session token"). "Our
 * previous conversation about …" is any earlier one: read only when it ends the question.
 */
const LATEST_EN = /\b(?:(?:the\s+)?last\s+time(?!['’]s|\s+(?:period|frame|zone|step|slot|window|limit|out)\b)|most\s+recent(?:ly)?(?!\s+\d)|the\s+latest(?=\s+(?:on|about|regarding|with)\b)|where\s+(?:did\s+)?(?:we|i)\s+(?:had\s+)?(?:left|leave)\s+(?:off|it)|where\s+(?:did\s+)?(?:we|i)\s+(?:had\s+)?stop(?:ped)?|^\W*where\s+were\s+we|\b(?:in|during|from|since|at)\s+(?:the|our|my)\s+last\s+(?:session|conversation|chat)|(?:the|our|my)\s+(?:last|previous)\s+(?:session|conversation|chat)(?=\s*[?.!]*\s*$))\b/gi;

/**
 * Japanese: 前回 (not 前回比), 直近 (not 直近3か月: a period; not 合併時直近, nearest to a time
 * named), 前のセッション and 前の会話 (the last session), 中断したところ (where it stopped).
 */
const LATEST_JA = /前回(?!比)|(?<![\p{sc=Han}\p{sc=Katakana}ー])直近(?![0-9０-９一二三四五六七八九十数何])|(?<![\p{sc=Han}\p{sc=Katakana}ー])前の(?:セッション|会話|チャット)|中断した(?:ところ|とこ)/gu;

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
