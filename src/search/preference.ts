/**
 * What the person said about themselves. A question that asks for advice ("can you suggest a
 * hotel for my trip?", "any tips for my phone's battery?", おすすめは?) rarely names the words of
 * the turn where they stated their taste ("I only stay in places with a pool"), their habit or
 * what they own ("my Sony A7R IV"). Without a model, the store knows which of a memory's
 * sentences are such statements: the person's own words (its question) in the first person, of
 * liking, preferring, usually doing, owning. For advice questions the ranking favours memories
 * whose statements hold the question's words.
 */

/** A question that asks for a suggestion, a recommendation, tips or what to do. */
const ADVICE_EN = /\b(suggest(ions?)?|recommend(ations?)?|any (tips|advice|ideas|suggestions)|tips (for|on)|ideas (for|on)|advice (for|on)|what should i|which .{1,40} should i|should i (get|buy|try|use|pick|choose|go)|what (would|do) you (suggest|recommend)|help me (choose|pick|find|decide|plan))\b/i;
const ADVICE_JA = /おすすめ|オススメ|お勧め|お薦め|提案|アドバイス|どうしたら(いい|良い)|何が(いい|良い)|どれが(いい|良い)|コツ|ヒント/;

/** Words that ask for advice, not what it is about: left out of the question's content. */
export const ADVICE_WORDS: ReadonlySet<string> = new Set(['suggest', 'suggestion', 'suggestions', 'recommend', 'recommendation', 'recommendations', 'tip', 'tips', 'idea', 'ideas', 'advice', 'help', 'should']);

export function asksForAdvice(question: string): boolean {
  return ADVICE_EN.test(question) || ADVICE_JA.test(question);
}

/** The Japanese phrases that ask, not what about: 提案 only as a request (提案して), a noun otherwise. */
const ASKING_JA = /おすすめ|オススメ|お勧め|お薦め|アドバイス|どうしたら(いい|良い)|何が(いい|良い)|どれが(いい|良い)|コツ|ヒント|提案して(ほしい|欲しい|ください|下さい)?/g;

/**
 * The question with its Japanese asking phrases cut out (コツ, 提案して, 何がいい): Japanese is
 * searched by character pairs, which such a phrase would lend to every other request for advice.
 * English asking words are left out word by word (ADVICE_WORDS).
 */
export function withoutAskingPhrases(question: string): string {
  return question.replace(ASKING_JA, ' ');
}

/** A sentence in which the person speaks of their taste, habits or possessions. */
const SELF_EN = /\b(i(?:'m| am)? (?:really |also |usually |always |often |mostly |only |just )?(?:like|love|prefer|enjoy|hate|dislike|usually|always|often|tend to|am into|'m into|own|have|use|play|drive|collect|follow|avoid)|i(?:'ve| have) (?:been|got|always|never)|i(?:'m| am) (?:a|an|into|allergic|vegan|vegetarian|learning|planning|trying)|my (?!question|answer)[a-z][a-z'-]+)\b/i;
const SELF_JA = /(私|僕|俺|自分|わたし)(の|は|が)|好き|嫌い|いつも|普段|よく[^\s。]{0,8}(する|します|している|しています)|持って(いる|います|る)|使って(いる|います|る)|苦手|愛用/;

/** The sentences of a text in which the person speaks of themselves (first person, taste, habit, possession). */
export function selfStatements(text: string): string[] {
  const sentences = text.split(/(?<=[.!?。！？\n])\s*/).filter((s) => s.trim().length > 0);
  return sentences.filter((s) => SELF_EN.test(s) || SELF_JA.test(s));
}
