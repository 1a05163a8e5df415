/**
 * A secret the person typed because the agent asked for it. The agent's answer ends by asking for
 * a password, a PIN, a token or a key ("What's the sudo password?", "I need the API key to go
 * on.", "パスワードを教えてください"), and the next prompt is the value alone ("hunter22", "it's
 * hunter22", "sunshine please", "hunter22 です"). No rule can tell that "hunter22" alone is a
 * secret; after such a question it is. The value is then redacted wherever the session repeats
 * it, the agent's answers included. Pure.
 */

import { CJK_PASSWORD, CJK_TOKEN, PASSWORD_WORD } from './rules.js';

/** What the agent may ask for: the rules' names of a password and a token, a PIN, credentials. */
const SECRET_WORD = String.raw`(?:${PASSWORD_WORD}|pass code|PIN(?: code| number)?|api[ _-]?key|access[ _-]?key|secret(?:[ _-]?key)?|(?:access |auth |api |bot |deploy )?token|credentials?)`;
const CJK_SECRET_WORD = `${CJK_PASSWORD}|${CJK_TOKEN}|PIN(?:コード|番号)?|認証情報`;

/** The ways an answer asks for one, read in its last ASKED_TAIL characters. */
const ASKS = [
  // "What's the sudo password?", "which token should I use?", "the database password?"
  // (not "what's the password policy?": the word ends what is asked, or a "for …" follows it)
  new RegExp(String.raw`\b(?:what(?:['’]s| is| was)|which)\s+(?:(?:the|your|its|that)\s+)?[\w .-]{0,40}?\b${SECRET_WORD}(?:\s+(?:for|of|on|to)\b[^.!?\n]{0,40})?\s*\?`, 'i'),
  // "Could you provide the API key?", "I need the sudo password to continue.", "Please enter your PIN:"
  // (the word its object: not "you'll need to reset the password")
  new RegExp(String.raw`\b(?:provide|share|enter|give me|send(?: me)?|paste|type|tell me|needs?|requires?|supply|input)\s+(?:me\s+)?(?:the|your|an?|that)\s+(?:[\w.-]+\s+){0,2}?${SECRET_WORD}\b`, 'i'),
  // パスワードを教えてください, 暗証番号を入力して, APIキーが必要です, トークンは何ですか
  new RegExp(`(?:${CJK_SECRET_WORD})[^。\\n]{0,30}?(?:教えて|入力して|ください|お願い|必要|(?:は|って)(?:何|なん)|貼って|共有して|送って)`),
];
const ASKED_TAIL = 400;

/** Words around a value in a reply: "it's", "here you go:", "sure,"; "please", です, だよ. */
const LEAD = /^(?:(?:sure|ok(?:ay)?|yes|yeah|here(?:\s+(?:you\s+go|it\s+is))?|it(?:['’]s|\s+is)|the\s+\w+\s+is|use|try|password|pw|pin)\b[\s,:!.-]*)+/i;
const TRAIL = /[\s,.!。、]*(?:please|thanks|thank you|です|でした|だよ|だ|でお願いします|お願いします)?[\s.!。]*$/i;
/**
 * Replies that are not a value; and a user's name (the agent asked for "the username and
 * password"), which redacted wherever the session says it would cut "admin" out of "the admin panel".
 */
const NOT_A_VALUE = /^(?:yes|no|nope|skip|later|cancel|stop|continue|proceed|why|what|okay|sure|done|thanks|none|nothing|wait|help|retry|again|same|unchanged|empty|blank|default|nevermind|never mind|n\/a|idk|dunno|admin|administrator|root|user|guest|test|ubuntu|postgres)$/i;

/** The value a short reply gives, if it is one word that could be a secret. */
function valueOf(reply: string): string | undefined {
  const line = reply.trim();
  if (line.length === 0 || line.length > 120 || line.includes('\n')) return undefined;
  const value = line.replace(LEAD, '').replace(TRAIL, '').replace(/^["'`「]|["'`」]$/g, '');
  if (!/^[\x21-\x7e]{4,128}$/.test(value) || NOT_A_VALUE.test(value) || value.endsWith('?')) return undefined;
  // Where a secret is kept, or how it is named: a path, a URL, a file, a variable.
  if (/[/\\]|^~|^\$|^%|^\[REDACTED|^[a-z][a-z0-9+.-]*:\/\//i.test(value) || /\.[a-z]{1,5}$/i.test(value)) return undefined;
  return value;
}

/** Whether an answer ends by asking for a secret. */
export function asksForSecret(answer: string): boolean {
  const tail = answer.slice(-ASKED_TAIL);
  return ASKS.some((re) => re.test(tail));
}

/**
 * The value a prompt gives, when the agent's answer before it (`answered`, the turn's answer so
 * far) asked for a secret; the transcripts' parsers call it at each prompt, short ones too
 * (those continue the turn and are not kept as a question).
 */
export function givenWhenAsked(answered: string, prompt: string): string | undefined {
  return asksForSecret(answered) ? valueOf(prompt) : undefined;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Redacts each of `values` (a whole word: not inside another) in every turn's question and answer. */
export function redactGivenValues(turns: Array<{ question: string; answer: string }>, values: readonly string[]): void {
  if (values.length === 0) return;
  // The longest first, so that one value inside another is not cut short.
  const alternatives = [...new Set(values)].sort((a, b) => b.length - a.length).map(escape);
  const re = new RegExp(`(?<![A-Za-z0-9])(?:${alternatives.join('|')})(?![A-Za-z0-9])`, 'g');
  for (const t of turns) {
    t.question = t.question.replace(re, '[REDACTED:secret]');
    t.answer = t.answer.replace(re, '[REDACTED:secret]');
  }
}
