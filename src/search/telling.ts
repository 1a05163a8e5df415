/**
 * The words that tell only of the talk itself. Apart from search, so that the recall hook reads
 * them without loading the ranking.
 */
import { buildKeywordQuery } from './query.js';

/**
 * What is left of a question once its time words are out says nothing of a topic: only words
 * that tell of the talk itself ("what did we talk about", "what were we working on", 何を話した
 * っけ, 決めたこと) or of going on with it ("let's continue", 前回の続き). Such a question asks for
 * that time's memories, whatever they are about.
 */
export function toldOfNothing(words: string): boolean {
  return buildKeywordQuery(withoutTelling(words)).match === undefined;
}

export function withoutTelling(words: string): string {
  return words.replace(TELLING_EN, ' ').replace(TELLING_JA, ' ');
}

const TELLING_EN = /\b(?:let['’]?s|let us|continu(?:e[ds]?|ing)|carry on|pick(?:ed)? (?:it )?up|resum(?:e[ds]?|ing)|talk(?:s|ed|ing)?|chat(?:s|ted|ting)?|discuss(?:es|ed|ing)?|work(?:s|ed|ing)?(?=\s+on\b|\s*[?.!]*\s*$)|decide[ds]?|deciding|go(?:es|ing)? over|went over|mention(?:s|ed)?|cover(?:s|ed)?|happen(?:s|ed)?|up to)\b/gi;
const TELLING_JA = /(?<=の)続き(?:を|から)?(?:やろう|しよう|お願い(?:します)?)?|続けよう|再開しよう|何(?:を|が|に|について|(?=した|話し|決め|やっ))|話し(?:た|合った|ていた)|議論した|相談した|決めた|やった|作業した|(?<=^|[\s何をにでが])した|(?<=[たるだ])(?:こと|もの)|(?<=の)件|っけ|でしたか?|ですか?/g;
