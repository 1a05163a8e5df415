/**
 * What counts as a secret: one table, each rule a kind, a pattern, and examples that the
 * tests run (every positive redacted, every negative left as it is). Pure data.
 *
 * Examples are assembled from pieces (`r(…)`), so that no secret scanner mistakes this file
 * for a leak, and none of them is a real credential.
 */

export type { SecretRule } from './secret-rule.js';
import type { SecretRule } from './secret-rule.js';

/**
 * Placeholders and references, never secrets: `$X`, `${X}`, `${{ secrets.X }}`, `%X%`,
 * `{{ .Values.x }}`, `var.x`, `<your-key>`, `your-api-key`, `changeme`, documented examples
 * (AWS's `…EXAMPLE…`), a prefix followed by one repeated character (`ghp_xxxx…`,
 * `glpat-XXXX`, `xoxb-xxx`), and an environment-variable name standing for its value
 * (`access_token=ACCESS_TOKEN`). A command that no longer runs as written is a worse memory.
 */
export function isPlaceholder(value: string): boolean {
  const v = value.trim().replace(/^["'`]|["'`]$/g, '');
  if (v.length === 0) return true;
  if (/^(?:\$\{?\{?|%[A-Za-z_]|\{\{|<[^>]*>$|\[REDACTED)/.test(v)) return true;
  if (/^(?:var|local|module|data|vars|secrets|env|inputs|params)\.[A-Za-z_][\w.]*$/.test(v)) return true;
  if (/^(?:process\.env|os\.environ|os\.getenv|System\.getenv|ENV\[|getenv\()/.test(v)) return true;
  if (/EXAMPLE|example(?:key|token|secret)?$/.test(v)) return true;
  if (/^(?:your|my|the)[_-][A-Za-z0-9_-]+$/i.test(v)) return true;
  // A format's prefix, then words saying what goes there: xoxb-your-bot-token, xoxb-123-my-bot-token.
  if (/[_.-](?:your|my)[_-][a-z]+(?:[_-][a-z]+)*$/i.test(v)) return true;
  if (/^(?:changeme|change[_-]me|placeholder|dummy|redacted|sample|secret|password|passwd|pass|test|xxx+|todo|tbd|none|null|nil|undefined|foo|bar|foobar)$/i.test(v)) return true;
  // A prefix, then one character repeated (or x's and dots): a placeholder of that format.
  const body = v.replace(/^[A-Za-z]{1,12}[_.-](?:[A-Za-z]{1,8}[_.-])?/, '');
  if (body.length >= 3 && (/^(.)\1+$/.test(body) || /^[xX.*#…_-]+$/.test(body))) return true;
  if (/^(.)\1{5,}$/.test(v)) return true;
  // A short prefix with no separator, then one character repeated: AKIAXXXXXXXXXXXXXXXX.
  if (/^[A-Za-z]{2,5}(.)\1{7,}$/.test(v)) return true;
  // An environment variable's name standing for its value.
  if (/^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/.test(v)) return true;
  return false;
}

/**
 * A quoted value of several words is a passphrase ("correct horse battery staple", "p@ss w0rd"),
 * not a message said of one (`password: "must be at least 8 characters"`, "Password is required.",
 * "Passwords do not match", "Your password"): eight words at most, no sentence's end, none of the
 * words such messages are made of.
 */
function passphrase(value: string): boolean {
  const v = value.trim();
  if (v.split(/\s+/).length > 8 || /[.!?:]$/.test(v)) return false;
  return !/\b(?:must|should|least|characters?|letters?|digits?|required|invalid|incorrect|please|enter|match(?:es)?|cannot|can't|too (?:short|long|weak)|empty|missing|wrong|confirm(?:ation)?|forgot(?:ten)?|reset|expired|strength|weak|passwords?|passphrases?)\b/i.test(v);
}

/** Names that say password: any non-placeholder value is one, however plain ("correct-horse-battery"). */
const PASSWORD_NAME = /(?:password|passwd|passphrase|(?:^|[^A-Za-z])pass|pwd|_pw)["'`\]]?\s*(?:[:=,>]|$)/i;

/**
 * A value assigned to a token-ish name (api_key, secret, token) must look generated: long
 * enough and not a plain word or phrase ("public", "bearer", "not-set").
 */
function tokenLike(secret: string, pre: string, after = ''): boolean {
  const password = PASSWORD_NAME.test(pre.trim());
  // Words with spaces between them: a passphrase if the name says password, never a token.
  if (/\s/.test(secret.trim())) return password && passphrase(secret);
  // Code that reads it from somewhere: cfg.APIKey, settings.SECRET_KEY, self.token.
  if (/^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?:\(\))?$/.test(secret) && /^(?:cfg|conf|config|settings|self|this|opts|options|env|args|params|props|app|cls)\.|\.[A-Z_]/.test(secret)) return false;
  if (!/["'`]$/.test(pre) && codeReference(secret, after)) return false;
  if (password) return true;
  if (secret.length < 8) return false;
  return !/^[a-z]+(?:[ _.-][a-z]+)*$/.test(secret);
}

/**
 * An unquoted value that is code, not a literal: an identifier or a member access (apiKeyValue,
 * authTokenRef.current, isLiteLLM in `apiKey: isLiteLLM ? env.KEY : undefined`) — a
 * lowerCamelCase name of words, a member access, or a name the code goes on after (`;`, `?`,
 * `)`, `&&`, `||`). Few digits: a generated token followed by `;` in a shell line stays a secret.
 */
function codeReference(value: string, after: string): boolean {
  if (!/^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*(?:\(\))?$/.test(value)) return false;
  if (value.replace(/\D/g, '').length > 2) return false;
  return /^[a-z_$][\w$]*\.[A-Za-z_$]/.test(value) || /^[a-z]+(?:[A-Z][a-z]+)+$/.test(value) || /^[\t ]*(?:;|\?|\)|&&|\|\|)/.test(after);
}

/** Join pieces: keeps whole tokens out of the source text. */
const r = (...parts: string[]) => parts.join('');
const rep = (s: string, n: number) => s.repeat(n);

import { PROVIDER_CONTEXT, PROVIDER_RULES } from './providers.js';

/** Values that name a type, a placeholder or code, not a secret: `password: string`, `${TOKEN}`, `getToken()`. */
const NOT_A_VALUE =
  '(?!(?:string|str|number|int|integer|boolean|bool|bytes|null|nil|undefined|none|true|false|any|object|optional|required|secret|password|token|changeme|placeholder|redacted|example|your[_-][a-z_-]+|x{3,}|\\*{3,}|\\.{3})(?![A-Za-z0-9_]))'
  + '(?![$<%{\\[])(?!(?:process\\.env|os\\.environ|os\\.getenv|env\\.|config\\.|settings\\.|self\\.|this\\.|getenv|secrets\\.|vars\\.)|\\[REDACTED)';

/**
 * How many characters of a variable name around a provider's name or "key" are looked at.
 * Every prefix and run in these rules is bounded: an unbounded lazy one is tried from every
 * start position to the end of a run of word characters and joiners (minified code, SVG
 * paths, base64 with dashes), quadratic or worse (bench:redact, test/privacy/redact-linear.test.ts).
 */
const NAME_MAX = 64;

/**
 * Names of secrets, as a whole word or a suffix: API_KEY, DB_PASSWORD, client_secret,
 * authToken, SMTP_PASS, GITHUB_PAT (a personal access token). Not: max_tokens, tokenizer, token_type, tokenCount, secret_sauce,
 * password_min_length, PWD (the working directory).
 */
const SECRET_NAME =
  '(?:[A-Za-z0-9]{1,40}[_.-]){0,6}?[A-Za-z0-9]{0,40}?(?:(?:password|passwd|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|secret[_-]?key|auth[_-]?key|signing[_-]?key|encryption[_-]?key|master[_-]?key|credentials?|creds)|(?<=[_.-])(?:pass|pwd|pw|auth|pat))';

/**
 * Bits per character: a generated token scores about 4 and more; words, paths and ids less.
 * Scanners use the same measure for values whose name alone does not say "secret".
 */
export function entropy(s: string): number {
  const counts = new Map<string, number>();
  for (const ch of s) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) h -= (n / s.length) * Math.log2(n / s.length);
  return h;
}

/** A value that looks generated: long, letters and digits, high entropy. */
function generated(secret: string): boolean {
  const digits = secret.replace(/\D/g, '').length;
  if (secret.length < 16 || !/[A-Za-z]/.test(secret) || digits < 2 || entropy(secret) < 3.5) return false;
  // snake_case or kebab-case words are identifiers (user_profile_settings_v2), not keys.
  return !/^[a-z][a-z0-9]*(?:[_.-][a-z0-9]+)+$/.test(secret) || digits >= 6;
}

/**
 * Labels of a secret in Japanese, Chinese and Korean ("本番DBのパスワードは …", "APIキー: …",
 * "密码是 …", "비밀번호는 …"), and an English name followed by a Japanese particle
 * ("DBのpasswordは …"). Written without spaces between words, so no word boundary before them.
 */
export const CJK_PASSWORD = 'パスワード|パスフレーズ|暗証番号|(?<=(?:Wi-?Fi|WiFi|wifi|WIFI|無線LAN|ルーター|テザリング)の?)パス(?![ァ-ヴー])|密码|密碼|口令|비밀번호|패스워드|암호';
export const CJK_TOKEN = 'API ?キー|アクセスキー|シークレット(?:キー)?|(?:アクセス|認証)?トークン|秘密鍵|(?:リカバリー?|バックアップ|復旧|回復)(?:コード|キー)|ライセンスキー|密钥|密鑰|秘钥|令牌|API ?키|시크릿|토큰';
const ASCII_BEFORE_PARTICLE = '(?:password|passwd|passphrase|api[ _-]?key|access[ _-]?key|secret(?:[ _-]?key)?|token|pw)(?=[\\t ]{0,4}(?:は|が|を|も|って))';
/**
 * What binds a value to such a label (itself perhaps quoted, as a key in JSON): a colon or
 * equals sign (either width), a question mark (パスワード？ hunter22), a particle (は が を も って; 是 为 成;
 * 는 은 을 를 이 가), or only a space.
 */
const CJK_BINDING = '["\'`]?(?:[\\t \\u3000]{0,4}は(?:これ|こちら|以下|次(?:の(?:通り|とおり))?)(?:です)?[\\t \\u3000]{0,4}[:：][\\t \\u3000]{0,4}|[\\t \\u3000]{0,4}(?:を|は)?(?:教え(?:る|ます|とく|ておく)|送(?:る|ります|っとく|っておく)|伝え(?:る|ます|とく|ておく)|共有(?:する|します|しとく|しておく))(?:ね|よ|ね〜)?[\\t \\u3000]{0,4}[、，:：→][\\t \\u3000]{0,4}|[\\t \\u3000]{0,4}(?:[:：=＝?？、，→⇒]|->|は|が|を|も|って|是|为|為|成|는|은|을|를|이|가)[\\t \\u3000]{0,4}|[\\t \\u3000]{1,4})';

/**
 * Whether a base64 word is `user:password`: it decodes to printable ASCII, a name (letters,
 * digits, . _ @ + -) and after one colon four or more characters — not a URL (`https://…`), a
 * time (`time: 12:30`) or a short pair (`key:val`). Words that are not base64 of text decode to
 * bytes that are not.
 */
function basicCredentials(secret: string): boolean {
  if (!/[0-9+/=]/.test(secret) && !(/[a-z]/.test(secret) && /[A-Z]/.test(secret))) return false;
  const text = Buffer.from(secret, 'base64').toString('latin1');
  const m = /^([\w.@+-]{1,64}):([\x21-\x7e]{4,128})$/.exec(text);
  return m !== null && !(m[2] as string).startsWith('//') && !/^\d{1,2}:\d{2}$/.test(m[2] as string);
}

/** Names of hashes, ciphers and formats, said of passwords and tokens: not their values. */
const SCHEME_NAME = /^(?:argon2(?:id|i|d)?|b?crypt|scrypt|pbkdf2(?:-sha\d+)?|sha-?\d+(?:crypt)?|md5(?:crypt)?|[hrpe]s\d{3}|aes-?\d+(?:-[a-z]+)?|base(?:32|64)(?:url)?|utf-?(?:8|16)|oauth-?2(?:\.\d)?|jwt|totp|hotp|ed25519|x25519|rsa-?\d*|x\.?509|pkcs#?\d+|tlsv?1\.\d|sslv?\d|https?(?:\/[\d.]+)?|iso-?\d+|rfc-?\d+|v\d+(?:\.\d+)*)$/i;

/**
 * What prose says of a password rather than the password ("the password is incorrect.", "… was
 * reset.", "… is below:"): states, places, pronouns, irregular participles; the endings of
 * adjectives, participles and adverbs are in SAID_ENDING.
 */
const SAID_OF_A_PASSWORD = new RegExp(
  `^(?:${[
    'wrong|right|correct|incorrect|invalid|valid|empty|blank|plain|plaintext|cleartext|clear|short|strong|secure|insecure|obscure|unsafe|random|unique|common|simple|complex|default|same|similar|other|fine|okay|ready|alone|enough|weird|strange|bogus|junk|garbage|nonsense|stale|fresh|private|remote|false|gone|mixed|case|unset|reset',
    'great|perfect|awesome|solid|proper|sound|sturdy|robust|tight|loose|poor|legit|obsolete|complete|concise|precise|inline|online|offline|itself|yourself|risky|tricky|sketchy|flaky|hacky|messy|dirty|heavy|crazy|silly|funny|handy|sloppy|lengthy|lousy',
    'longer|shorter|stronger|weaker|better|worse|safer|easier|harder|simpler|bigger|smaller|newer|older',
    'there|where|here|below|above|under|underneath|inside|outside|elsewhere|somewhere|nowhere|anywhere|everywhere|again|already|always|never|often|still|maybe|perhaps|instead|otherwise|indeed',
    'yours|mine|theirs|ours|hers|whose|which|these|those|whatever',
    'known|unknown|shown|sent|lost|kept|given|taken|(?:over|re|un)?written|mistaken|chosen|forgotten|stolen|broken|hidden|found|built|bought|caught|brought|gotten|begun|drawn|grown|thrown|frozen|spoken|proven|sworn|stuck|split|spread',
    'sentinel|whitespace|lowercase|uppercase|ascii|unicode|numbers|letters|digits|symbols|characters|chars|words|spaces|eight|twelve|sixteen|twenty|thirty',
  ].join('|')})$`,
  'i',
);
const SAID_ENDING = /(?:ed|ing|able|ible|ive|ous|ful|less|ent|ant|ic|al|ary|ory|ile|ish|ly|ise|ize)$/i;

/**
 * A password a sentence names as one plain word ("the wifi password is sunshine.", "username:
 * admin password: sunshine", "パスワードは sunshine"), or as words joined by hyphens ("the wifi
 * password is coffee-shop-42", "correct-horse-battery-staple"): lowercase, the last word of its
 * clause, not a word prose says of a password. A value with capitals or symbols, or quoted, is
 * told by the rules for those.
 */
function passwordWord(secret: string, after: string): boolean {
  if (!(plainWord(secret) || joinedWords(secret))) return false;
  return /^(?:[\t ]*$|[.,;:!?)\]\r\n。、，！？）」]|[\t ]+(?:and|but|or|so|please|thanks|thank you)\b|[\t \u3000]*で(?:ログ|サイ|入|接続|認証|アク))/.test(after);
}

/** Letters only, five or more, lowercase: "sunshine", not "incorrect" or "bcrypt". */
function plainWord(secret: string): boolean {
  return /^[a-z]{5,64}$/.test(secret) && !SAID_OF_A_PASSWORD.test(secret) && !SAID_ENDING.test(secret) && !SCHEME_NAME.test(secret);
}

/**
 * Lowercase words and numbers joined by hyphens, eight characters or more: three words or more,
 * or with a number ("coffee-shop-42", "blue-dog-rex", "summer-2024"). Not what prose joins so
 * ("one-time", "up-to-date", "end-to-end", "base64-encoded", "read-only"), nor a scheme ("sha-256").
 */
function joinedWords(secret: string): boolean {
  if (!/^[a-z0-9]+(?:-[a-z0-9]+){1,7}$/.test(secret) || secret.length < 8 || !/[a-z]/.test(secret) || SCHEME_NAME.test(secret)) return false;
  const parts = secret.split('-');
  if (parts.length < 3 && !parts.some((w) => /\d/.test(w))) return false;
  const last = parts[parts.length - 1] as string;
  if (SAID_ENDING.test(last) || SAID_OF_A_PASSWORD.test(last)) return false;
  return !parts.some((w) => JOINING_WORD.test(w));
}

/** Words that make a hyphenated phrase of prose ("up-to-date", "state-of-the-art", "non-empty", "per-user"). */
const JOINING_WORD = /^(?:to|of|the|a|an|and|or|in|on|at|by|for|with|from|per|non|pre|post|re|self|so|only|time|based|like|wide|free|safe|proof|level|side)$/;

/** A label and what binds a value to it, in Japanese, Chinese or Korean. */
const CJK_LABEL_BOUND = `(?:(?:${CJK_PASSWORD})(?:の?(?:変更|更新))?|${CJK_TOKEN}|${ASCII_BEFORE_PARTICLE})${CJK_BINDING}`;
const SAYS_PASSWORD = new RegExp(`(?:${CJK_PASSWORD}|pass|pw)`, 'i');
const CJK_SAYS_PASSWORD = new RegExp(`(?:${CJK_PASSWORD}|password|passwd|passphrase)`, 'i');

/**
 * What says the value before it is the label's ("パスワードは hogehoge です", "… に変えた", "… 입니다"):
 * as bound as a colon, so a password without digits counts too.
 */
const SAYS_IT_IS = /^[\t \u3000]*(?:です|でした|だ(?:よ|ね|った)?(?![ぁ-んァ-ヶ一-龯])|に(?:した|しました|して|変え|変更し|設定し|なって|なりました)|입니다|이다)/;

/**
 * Whether a value after a label in another script is the secret. After a colon, an equals
 * sign or a quote, as in English: a password is any value, a token one that looks generated.
 * After a particle or a space the label may be followed by anything ("パスワードは bcrypt で",
 * "トークンを localStorage に"): the value must hold letters and digits.
 */
function cjkSecret(secret: string, pre: string, after: string): boolean {
  // After "パスワード変更:" a colon may name when as well as what ("パスワード更新: 2024-01-01"): not bound.
  const change = /(?:変更|更新)[\t \u3000]*[:：=＝]?[\t \u3000]*$/.test(pre);
  const bound = (!change && /[:：=＝「『"'`]\s*$|[:：=＝][\t \u3000]*["'`「『]?$/.test(pre)) || SAYS_IT_IS.test(after);
  if (!bound && CJK_SAYS_PASSWORD.test(pre) && /(?:は|が|って|是|为|為|는|은|이|가)[\t \u3000]*$/.test(pre) && passwordWord(secret, after)) return true;
  return labelledValue(secret, pre, after, bound, SAYS_PASSWORD.test(pre));
}

/**
 * Whether a value after a label in a sentence is the secret ("the staging password is …",
 * "wifi password: …", "set the token to …"). Prose goes on after a label with any word ("the
 * password is incorrect", "Reset the password: click the link"), so a value must hold letters
 * and digits — unless it is quoted, which says it is the literal.
 */
function proseSecret(secret: string, pre: string, after: string): boolean {
  // Only a space after the label ("password Winter2024"): a quote there binds nothing ("the password 'reset' flow").
  const spaced = !/(?:[:=：＝]|\b(?:is|was|to|into|from|now|still|it['’]s))[\t \u3000]*["'`]?$/i.test(pre);
  const quoted = !spaced && /["'`]$/.test(pre);
  const password = /pass|pw/i.test(pre);
  // A test runner's verdict, not a password: Go's `--- PASS: TestParse2 (0.00s)`.
  if (/\bPASS[\t ]*:[\t ]*$/.test(pre) && /^(?:Test|Benchmark|Example|Fuzz)/.test(secret)) return false;
  // After a space, only what a password is made of: `Behavior</h3>` in "Token Behavior</h3>" is markup.
  if (spaced && !/^[\w!@#$%^&*+=.~-]+$/.test(secret)) return false;
  // After only a space, a token or a secret must look generated: `kubectl get secret app-tls-2024` names one.
  if (spaced && !password && !generated(secret)) return false;
  // Words with spaces between them, quoted after "is" or a colon: a passphrase ("the password is
  // "correct horse battery staple""), not a message ("the password: "must be 8 characters"").
  if (/\s/.test(secret)) return quoted && password && passphrase(secret);
  if (!quoted && (NAMED_PASSWORD.test(pre) || SET_PASSWORD_TO.test(pre)) && passwordWord(secret, after) && !SET_TO_DO.test(secret)) return true;
  // Code, not a literal: token = get_token(user_id=42), key = keys[2].
  if (!quoted && /[()[\]{}]/.test(secret)) return false;
  // A line's end written as an escape (text inside a JSON string): `is correct.\n3. Move…` is no value.
  if (/\\[nrt]/.test(secret)) return false;
  return labelledValue(secret, pre, after, quoted, password);
}

/**
 * Words a passphrase is made of: three to eight, lowercase, none of the little words prose and
 * messages are made of ("not set yet", "see the vault entry", "stored in vault") nor a message's.
 */
function plainPassphrase(value: string): boolean {
  const words = value.trim().split(/[\t ]+/);
  if (words.length < 3 || words.length > 8 || !/^[a-z0-9' \t-]+$/.test(value) || !passphrase(value)) return false;
  return !words.some((w) => PROSE_WORD.test(w));
}
/** What a password is set to do, said first after "set … to" ("set the password to require two factor auth everywhere"). */
const TO_DO = /^(?:require|allow|include|contain|use|meet|comply|prevent|enforce|accept|reject|support|be|have|get|go|make|keep|stay|work|pass|fail|follow|expire|rotate|match|change|reset|update|refresh|renew|lapse|lock|unlock)$/;
/** Words a sentence about a password goes on with, after "is": never a passphrase's. */
const RUNS_ON = /^(?:something|anything|nothing|whatever|yesterday|today|tomorrow|last|next|never|always|over|under|via|after|before|when|where|which|who|so|than|about|into|onto|per|each|every|still|already|again|more|less|much|many|most|some|long|short|case|digits?|characters?|chars?|minimum|maximum|min|max|plain|text|stored|vault|env|file|same|different|encrypted|hashed|required|sensitive|insensitive|weak|strong|secure|insecure|valid|invalid|wrong)$/;
const PROSE_WORD = /^(?:the|a|an|is|are|was|were|be|been|not|no|yes|in|on|at|to|for|of|from|by|with|as|and|or|but|if|it|its|it's|this|that|these|those|see|use|ask|same|your|my|our|their|his|her|yet|now|then|set|check|any|all|none|null|n\/a|here|later|tbd|todo|optional|unchanged|we|you|they|i|me|us|them|do|does|did|has|have|had|will|can|just|also|only|very|too)$/;

/** What names a PIN: PIN (code, number), 暗証番号, a passcode, and a door's, an alarm's or a safe's code. */
const PIN_LABEL = '(?:\\bpin(?:[\\t -]?(?:code|number))?\\b|(?<![A-Za-z])PIN(?:コード|番号)|暗証番号|\\bpasscode\\b|\\b(?:door|gate|alarm|lock|safe|garage|lockbox|keypad|keybox|building)[\\t -]code\\b)';
/** What the PIN is for: "the PIN for the SIM card". */
const PIN_FOR = '(?:[\\t ]+(?:for|of|on)[\\t ]+(?:(?:the|my|our)[\\t ]+)?[\\w.-]{1,30}(?:[\\t ]+[\\w.-]{1,30})?)?';
/** The card check digit (Luhn): every second digit from the right doubled. */
function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
}
/** What binds a number to its name: "is", a colon or equals sign (either width) or #, は or が, or a space ("card 4539…"). */
const NUMBER_BINDING = String.raw`(?:[\t ]+(?:is|was)[\t ]+|[\t ]*[:=：＝#][\t \u3000]*|[\t \u3000]*(?:は|が)[\t \u3000]*|[\t ]+)`;
/** The IBAN check: the first four characters moved to the end, letters as 10–35, the number mod 97 is 1. */
function ibanValid(iban: string): boolean {
  const moved = iban.slice(4) + iban.slice(0, 4);
  let rest = 0;
  for (const ch of moved) {
    const v = /\d/.test(ch) ? ch : String(ch.charCodeAt(0) - 55);
    for (const d of v) rest = (rest * 10 + Number(d)) % 97;
  }
  return rest === 1;
}
/** The IBAN standard's and banks' published examples: written about payment forms, nobody's account. */
const EXAMPLE_IBANS = new Set(['DE89370400440532013000', 'GB29NWBK60161331926819', 'GB82WEST12345698765432', 'FR1420041010050500013M02606', 'NL91ABNA0417164300', 'ES9121000418450200051332', 'IT60X0542811101000000123456', 'CH9300762011623852957', 'BE68539007547034', 'AT611904300234573201']);
/** The card networks' and payment providers' published test numbers: written about payment forms, nobody's card. */
const TEST_CARDS = new Set([
  '4242424242424242', '4111111111111111', '4012888888881881', '4000056655665556', '4000000000003220', '4000002500003155', '4000000000009995', '4000000000000002',
  '5555555555554444', '5200828282828210', '5105105105105100', '2223003122003222', '378282246310005', '371449635398431', '6011111111111117', '6011000990139424',
  '3056930009020004', '36227206271667', '3566002020360505', '6200000000000005', '4000000000000077', '4000000000000341',
]);

/** Words that name a password (not a token: its value must look generated). */
export const PASSWORD_WORD = 'password|passphrase|passcode|passwd|pw';
/** What sets a password to a value, before it ("set the password to …") and after it, in the passive ("the password was changed to …"). */
const SETTING_VERB = 'set|sets|setting|change[ds]?|changing|reset|resets|resetting|update[ds]?|updating';
const SET_PARTICIPLE = 'set|changed|reset|updated|rotated';
/** A password's label, then "is", "was", "it's" or a colon: what follows is the password, a plain word too. */
const NAMED_PASSWORD = new RegExp(`\\b(?:${PASSWORD_WORD})\\b(?:.*[\\t ](?:is|was|it['’]s)[\\t ]+(?:now[\\t ]+|still[\\t ]+)?|[\\t ]*[:=：＝][\\t \\u3000]*)$`, 'i');
/** A password set to a value in a sentence ("set the wifi password to sunshine", "changed my password to …", "the password was changed to …"). */
const SET_PASSWORD_TO = new RegExp(`(?:\\b(?:${SETTING_VERB})\\b[^.!?\\n]{0,40}\\b(?:${PASSWORD_WORD})\\b[^.!?\\n]{0,40}|\\b(?:${PASSWORD_WORD})\\b[^.!?\\n]{0,40}\\b(?:${SET_PARTICIPLE}))[\\t ]to[\\t ]+$`, 'i');
/** What a password is set to do, not set to: "set the password to expire". */
const SET_TO_DO = /^(?:expire|rotate|match|change|reset|update|refresh|renew|lapse|lock|unlock|something|anything|nothing|null)$/;

/** A file's name: where a secret is kept, not the secret (`.env`, `config.yaml`, `id_rsa.pem`). */
const FILE_NAME = /\.(?:[cm]?[jt]sx?|py|rb|go|rs|java|kt|php|sh|env|ya?ml|json|toml|ini|conf|cfg|txt|md|pem|key|crt|sql|html?)$/i;

/**
 * The value after a label: `bound` (a colon, an equals sign or a quote says it is the value)
 * as the names in code are taken — a password any value, a token one that is no plain word;
 * otherwise letters and digits, and not the name of where a secret is kept or how it is made.
 */
function labelledValue(secret: string, pre: string, after: string, bound: boolean, password: boolean): boolean {
  // Where a secret is kept, not the secret: a path, a file, a URL, a product.
  if (/^(?:~|\.{0,2}\/|[a-z][a-z0-9+.-]*:\/\/)/i.test(secret)) return false;
  if (FILE_NAME.test(secret)) return false;
  if (/^\d?[A-Z][a-z]+(?:[A-Z][a-z]+)*$/.test(secret) || SCHEME_NAME.test(secret)) return false;
  if (!/["'`「『]\s*$/.test(pre) && codeReference(secret, after)) return false;
  const letters = /[A-Za-z]/.test(secret);
  const digits = secret.replace(/\D/g, '').length;
  if (bound) return password ? secret.length >= 4 : secret.length >= 8 && !/^[a-z]+(?:[ _.-][a-z]+)*$/.test(secret);
  if (!letters || digits === 0 || secret.length < (password ? 6 : shortKey(secret) ? 8 : 12)) return false;
  // kebab-case or snake_case words with a version in them: user-v2, oauth2-proxy.
  return !/^[a-z][a-z0-9]*(?:[_.-][a-z0-9]+)+$/.test(secret) || digits >= 3;
}

/**
 * A short value that can only have been generated or chosen as a secret ("the VPN shared secret is
 * t7Yq!kP2zz", "the client secret is 9fK2mQ7xLp"): lower and upper case and digits, or a symbol among
 * letters and digits, and no word in it (`OAuth2Bearer`, `v2BetaKey` name things; `sha256sum`
 * is one case).
 */
function shortKey(value: string): boolean {
  if (/[A-Z][a-z]{3,}|[a-z]{4,}/.test(value)) return false;
  const cases = /[a-z]/.test(value) && /[A-Z]/.test(value);
  return cases || /[!@#$%^&*+=~]/.test(value);
}

/**
 * A secret named in an English sentence: the label, perhaps what it is for ("for the staging
 * DB"), then a colon, an equals sign, "is"/"was", "to" ("set the token to …"), "from" ("changed
 * the password from … to …"), a question mark ("the wifi password? sunshine42") or only a space ("log in with password Winter2024", "pw Winter2024"),
 * after which proseSecret asks letters and digits. `pass` is a label only before a colon or an
 * equals sign ("user: admin pass: …"): before a space it is a verb ("pass arg2 to it").
 */
const PROSE_LABEL = '\\b(?:password|passphrase|passcode|passwd|pwd|pw|pass(?=[\\t ]*[:=：＝])|api[ _-]?key|access[ _-]?key|secret[ _-]?key|client[ _-]secret|secret|(?:access|auth|bearer|api|bot|deploy) token|token|(?:encryption|shared|pre-?shared|signing|master|license|licence|product|activation|recovery)[ _-]key|(?:recovery|backup)[ _-]code)';
const PROSE_FOR = '(?:[\\t ]+(?:(?:for|of|on)[\\t ]+(?:the[\\t ]+)?|to[\\t ]+the[\\t ]+)[\\w.-]{1,40}(?:[\\t ]+[\\w.-]{1,40}){0,2}?)?';
const PROSE_BINDING = '(?:[\\t ]*[:=：＝][\\t \\u3000]*|[\\t ]*[?,][\\t ]+(?:it[\'’]s|it[\\t ]+is)[\\t ]+|[\\t ]*[?？][\\t ]+|[\\t ]+(?:is|was|=)[\\t ]+(?:now[\\t ]+|still[\\t ]+)?|[\\t ]+(?:to|into|from)[\\t ]+|[\\t ]+(?:now[\\t ]+|still[\\t ]+)?)';
/** Words with a space between them inside the quotes just opened: a passphrase, or a message (passphrase() tells). */
const QUOTED_WORDS = `(?<=["'\`])(?=[^"'\`\\n]{0,256}?[\\t ])[^"'\`\\n]{3,256}`;
/** A value in a sentence, to the first space or quote (a closing mark or a sentence's end is not part of it), or quoted words. */
const PROSE_VALUE = `${NOT_A_VALUE}(?:[^\\s"'\`]{3,511}[^\\s"'\`),;\\]}.?](?=\\k<q>)|${QUOTED_WORDS}(?=\\k<q>))`;

/** "log in with", "sign in using": a pair or a password follows ("log in with admin / P@ssw0rd1"). */
const LOG_IN_WITH = '\\b(?:log(?:ged)?[\\t -]?in|sign(?:ed)?[\\t -]?in)(?:[\\t ]+(?:to|into)[\\t ]+[\\w.-]{1,40})?[\\t ]+(?:with|using)[\\t ]+';

/**
 * A login written as a pair in a sentence ("the credentials are admin:hunter22", "login: deploy /
 * Winter2024", "ログイン情報は admin / Winter2024"): the label, then a user name, a colon or a slash,
 * and the password (pairSecret says which count).
 */
const PAIR_LABEL = `(?:\\b(?:credentials?|creds|logins?|log-?in(?:[\\t ]+details)?|user(?:name)?[\\t ]*(?:/|and|&)[\\t ]*pass(?:word)?)${PROSE_FOR}(?:[\\t ]*[:=][\\t ]*|[\\t ]+(?:is|are|was|were)[\\t ]+)|${LOG_IN_WITH}|(?:ログイン情報|認証情報|アカウント情報|ログイン)[\\t \\u3000]*(?:[:：=＝]|は)[\\t \\u3000]*)`;

/** "log in with" and a user's name, then a colon or a slash: a pair's password follows. */
const LOG_IN_WITH_USER = new RegExp(`${LOG_IN_WITH}["'\`]?[\\w.@+-]{1,64}(?::|[\\t ]*/[\\t ]*)$`, 'i');
/** A way in and its version, not a password: `OAuth2`, `SAML2`, `Google`. */
const NAME_WITH_VERSION = /^[A-Za-z]+\d{0,2}$/;

/**
 * Whether the part after a user name and its separator is a password: not a time or a ratio (the
 * "user" is a number), a port (digits only), a path, a scheme or a word said of a password. After a
 * slash without spaces ("auth/callback2" is a path) it must hold a digit and a capital or a symbol.
 */
function pairSecret(secret: string, pre: string, after: string): boolean {
  const m = /([\w.@+-]{1,64})([\t ]*\/[\t ]*|:)$/.exec(pre);
  if (!m || /^\d+$/.test(m[1] as string) || /^\d{1,5}$/.test(secret) || secret.includes('/')) return false;
  if (SCHEME_NAME.test(secret) || SAID_OF_A_PASSWORD.test(secret) || codeReference(secret, after)) return false;
  if (FILE_NAME.test(secret)) return false;
  // After "log in with" a colon asks what a slash does: "sign in with google:oauth" names a way in.
  const withPair = LOG_IN_WITH_USER.test(pre);
  // "log in with SSO/SAML2": a way in and its version, not a user and a password.
  if (withPair && NAME_WITH_VERSION.test(secret)) return false;
  const sep = withPair ? '/' : (m[2] as string);
  if (sep === ':') return secret.length >= 4 && !(/^[a-z]+$/.test(secret) && SAID_ENDING.test(secret));
  if (sep === '/') return /\d/.test(secret) && /[A-Z]|[^A-Za-z0-9]/.test(secret);
  return /[^A-Za-z]/.test(secret) || /[A-Z]/.test(secret);
}

export const SECRET_RULES: SecretRule[] = [
  {
    kind: 'private-key',
    re: /-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY( BLOCK)?-----[\s\S]*?(?:-----END \1PRIVATE KEY\2-----|$(?![\s\S]))/g,
    positives: [
      r('-----BEGIN RSA ', 'PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nabc\n-----END RSA ', 'PRIVATE KEY-----'),
      r('-----BEGIN OPENSSH ', 'PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjE'),
      r('{"type": "service_account", "private_key": "-----BEGIN ', 'PRIVATE KEY-----\\nMIIEvQIBADANBg\\n-----END ', 'PRIVATE KEY-----\\n"}'),
      r('-----BEGIN PGP ', 'PRIVATE KEY BLOCK-----\n\nlQOYBGXyz0EBCAC5\n=abcd\n-----END PGP ', 'PRIVATE KEY BLOCK-----'),
    ],
    negatives: ['-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQ\n-----END PUBLIC KEY-----', '-----BEGIN CERTIFICATE-----', '-----BEGIN PGP PUBLIC KEY BLOCK-----\nmQENBGXyz\n-----END PGP PUBLIC KEY BLOCK-----'],
  },
  {
    kind: 'secret',
    // The same in Japanese (or Chinese, Korean): a passphrase of plain words after a password's
    // label and は, が or a colon, to what says it is the value or the line's end
    // ("秘密鍵のパスフレーズは blue ocean morning です").
    re: new RegExp(`(?<pre1>(?:${CJK_PASSWORD})[\\t \\u3000]*(?:[:：=＝]|は|が|是|는|은)[\\t \\u3000]*)[a-z0-9][a-z0-9'-]*(?:[\\t ]+[a-z0-9][a-z0-9'-]*){2,7}(?=[\\t \\u3000]*(?:です|でした|だよ|だ(?![ぁ-ん])|입니다|。|\\r?\\n|$))`, 'gm'),
    accept: (secret) => plainPassphrase(secret),
    positives: ['秘密鍵のパスフレーズは blue ocean morning です', 'Wi-Fiのパスワード: maple river cobalt lantern'],
    negatives: ['パスワードは not set yet です', 'パスワードは see the vault です'],
  },
  {
    kind: 'secret',
    // A passphrase of plain words after a password's label and a colon, to the line's end ("wifi
    // password: correct horse battery staple"): all of it, not its first word alone (the other
    // rules take one word after a colon). Three words or more, lowercase, none that prose or a
    // message is made of ("password: not set yet", "Password: must be at least 8 characters").
    re: new RegExp(`(?<pre1>\\b(?:password|passphrase|passcode|passwd)${PROSE_FOR}[\\t ]*[:=：＝][\\t ]*)[a-z0-9][a-z0-9'-]*(?:[\\t ]+[a-z0-9][a-z0-9'-]*){2,7}(?=[\\t ]*(?:\\r?\\n|$))`, 'gim'),
    accept: (secret) => plainPassphrase(secret),
    positives: ['wifi password: correct horse battery staple', 'the passphrase for the backup disk: maple river cobalt lantern\nthen run restic', 'password = tulip orbit seven canyon'],
    negatives: ['passwords: stored in vault', 'password reset: click the link', 'the password policy: twelve characters minimum'],
  },
  {
    kind: 'secret',
    // The same after "is" or set to ("my password is correct horse battery staple", "the passphrase
    // for the backup disk was maple river cobalt lantern.", "the password was changed to …", "I set
    // my vault passphrase to …"), to the sentence's or the line's end. A sentence
    // about a password goes on after "is" too, so four words or more, and none of the little words
    // nor the words it goes on with ("is never logged anywhere in plain text", "is sent over tls
    // only"), nor first an adverb or a participle ("is hashed using argon2id", "is randomly
    // generated daily"; later in the phrase such an ending is a noun's as often: "blue ocean morning
    // tide"), nor first what a password is set to do ("set the password to require two factor auth").
    re: new RegExp(`(?<pre1>(?:\\b(?:password|passphrase|passcode|passwd)${PROSE_FOR}[\\t ]+(?:(?:(?:is|was|has[\\t ]+been|had[\\t ]+been)[\\t ]+)?(?:${SET_PARTICIPLE})[\\t ]+to[\\t ]+|(?:is|was)[\\t ]+(?:now[\\t ]+|still[\\t ]+)?)|\\b(?:${SETTING_VERB})[\\t ]+(?:(?:the|my|our|your|a|new|their)[\\t ]+){0,2}(?:[\\w.-]{1,30}[\\t ]+)?(?:password|passphrase|passcode|passwd)[\\t ]+to[\\t ]+))[a-z0-9][a-z0-9'-]*(?:[\\t ]+[a-z0-9][a-z0-9'-]*){3,7}(?=[\\t ]*(?:[.,;!?](?:[\\t ]|$)|\\r?\\n|$))`, 'gim'),
    accept: (secret) => plainPassphrase(secret) && !/^[a-z]+(?:ly|ed|ing)\b/.test(secret) && !TO_DO.test(secret.split(/[\t ]+/)[0] ?? '') && !secret.split(/[\t ]+/).some((w) => RUNS_ON.test(w)),
    positives: ['my password is correct horse battery staple', 'the passphrase for the backup disk was maple river cobalt lantern. then run restic', 'the wifi password is tulip orbit seven canyon, ask me if it fails', 'the password was changed to river stone maple cloud', 'I set my vault passphrase to amber falcon quiet meadow.'],
    negatives: [
      'the password is never logged anywhere',
      'the password is hashed with argon2id before storage',
      'the password is case sensitive everywhere in the app.',
      'the password is rotated every ninety days',
      'the password is sent over tls only',
      'my password is too short for the policy',
      'the passcode is six digits long',
      'the password is in the team vault under staging',
      'the password was set to never expire on the service account',
      'changed the password to something stronger yesterday',
      'set the password to expire every ninety days',
      'set the password to require two factor auth everywhere',
    ],
  },
  {
    kind: 'private-key',
    // A private key block in base64 (kubeconfig's `client-key-data:`, a Secret's `tls.key`, CI
    // variables): `LS0tLS1CRUdJTi` is `-----BEGIN`; what it decodes to says it is a private key,
    // not a certificate (`client-certificate-data:` stays).
    re: /(?<![A-Za-z0-9+/])LS0tLS1CRUdJTi[A-Za-z0-9+/]{20,65536}={0,2}(?![A-Za-z0-9+/=])/g,
    accept: (secret) => /^-----BEGIN [A-Z0-9 ]*PRIVATE KEY/.test(Buffer.from(secret.slice(0, 96), 'base64').toString('latin1')),
    positives: [
      r('    client-key-data: ', Buffer.from(r('-----BEGIN RSA ', 'PRIVATE KEY-----\nMIIEowIBAAKCAQEA7Kq2Lm9Zx4Vb8Nw3Rt6Yu1Io5Pa3Sd9F\n-----END RSA ', 'PRIVATE KEY-----\n')).toString('base64')),
      r('  tls.key: ', Buffer.from(r('-----BEGIN ', 'PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END ', 'PRIVATE KEY-----\n')).toString('base64')),
    ],
    negatives: [r('    client-certificate-data: ', Buffer.from('-----BEGIN CERTIFICATE-----\nMIIC/jCCAeagAwIBAgIBADANBgkqhkiG9w0B\n-----END CERTIFICATE-----\n').toString('base64'))],
  },
  {
    kind: 'private-key',
    // A PuTTY key file's private lines (`Private-Lines: N`, then N lines of base64).
    re: /(?<pre1>\bPrivate-Lines:[\t ]*\d{1,3}\r?\n)[A-Za-z0-9+/=]{1,128}(?:\r?\n[A-Za-z0-9+/=]{1,128}){0,127}(?=\r?\n|$)/g,
    positives: [r('PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nPublic-Lines: 2\nAAAAC3NzaC1lZDI1NTE5AAAAIKq7Lm2Zx9Vb4\nNw8Rt3Yu6Io1Pa5Sd9Fg2Hj0Kq7Lm2\nPrivate', '-Lines: 1\nAAAAIKq7Lm2Zx9Vb4Nw8Rt3Yu6Io1Pa5Sd9Fg2Hj0Kq7Lm2Zx9Vb4\nPrivate-MAC: 3f9a8c7d6e5b4a39')],
    negatives: ['PuTTY keys hold Private-Lines: and Public-Lines:'],
  },
  {
    kind: 'private-key',
    // A wallet's private key as 64 hex digits after its name in a sentence ("the deployer's private
    // key is 0x4c08…"; in code the secret names take it). A hash said of a key names none ("the
    // private key's sha256 is …", "private key fingerprint …").
    re: /(?<pre1>\bprivate[\t _-]?key(?:[\t ]+(?:is|was)[\t ]+|[\t ]*[:=：＝][\t \u3000]*|[\t ]+|[\t \u3000]*(?:は|が)[\t \u3000]*)["'`「]?)(?:0x)?[0-9a-fA-F]{64}(?![0-9A-Za-z])/gi,
    positives: [r('the wallet\'s private key is 0x', '4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318'), r('private key ', '4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318 funds the faucet'), r('秘密鍵じゃなくて private key は ', '4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318')],
    negatives: ['the private key\'s sha256 is 3f9a8c7d6e5b4a3928171615141312ab3f9a8c7d6e5b4a3928171615141312ab', 'private key fingerprint 3f9a8c7d6e5b4a3928171615141312ab3f9a8c7d6e5b4a3928171615141312ab'],
  },
  {
    kind: 'seed-phrase',
    // A wallet's recovery words after their name ("seed phrase:", "MNEMONIC=\"…\"", "the recovery
    // phrase is …", シードフレーズは …): 12, 15, 18, 21 or 24 lowercase words of three to eight
    // letters, as the wallets' word lists are, none of them a little word prose is made of.
    re: /(?<pre1>(?:\b(?:seed|recovery|backup|mnemonic|wallet)[\t _-]?(?:phrase|words)|\bmnemonic|シードフレーズ|リカバリーフレーズ|復元フレーズ|ニーモニック)(?:[\t ]+(?:is|was)[\t ]+|[\t ]*[:=：＝][\t \u3000]*|[\t \u3000]*(?:は|が)[\t \u3000]*)["'`「]?)[a-z]{3,8}(?:[\t ]+[a-z]{3,8}){11,23}(?![\t ]*[a-z])/gi,
    accept: (secret) => {
      const words = secret.split(/[\t ]+/);
      return /^[a-z\t ]+$/.test(secret) && [12, 15, 18, 21, 24].includes(words.length) && !words.some((w) => PROSE_WORD.test(w));
    },
    positives: [
      'my metamask seed phrase: abandon ability able about above absent absorb abstract absurd abuse access accident',
      'MNEMONIC="abandon ability able about above absent absorb abstract absurd abuse access accident"',
      'シードフレーズは abandon ability able about above absent absorb abstract absurd abuse access accident です',
    ],
    negatives: [
      'the seed phrase is never stored anywhere and the wallet asks for it again after every restart of the app',
      'seed words: twelve random english words picked from the list',
      'mnemonic: abandon ability able about above absent absorb abstract absurd abuse access',
    ],
  },
  {
    kind: 'card-number',
    // A payment card's number after its name ("my credit card number is 4539 1488 0343 6467", "card:
    // 5425…", カード番号は …): 13 to 19 digits, in groups or not, that pass the card check digit
    // (Luhn). The networks' published test numbers (4242 4242 4242 4242, 4111 1111 1111 1111, …)
    // are what a developer writes about a payment form, not anyone's card: they stay.
    re: new RegExp(String.raw`(?<pre1>(?:\b(?:credit[\t -]?card|debit[\t -]?card|card)(?:[\t ]+(?:number|no\.?|#))?|クレジットカード(?:番号)?|カード番号)` + NUMBER_BINDING + String.raw`)\d{4}(?:[\t -]?\d{2,4}){2,4}(?:[\t -]?\d{1,4})?(?![\d])`, 'gi'),
    accept: (secret) => {
      const digits = secret.replace(/\D/g, '');
      return digits.length >= 13 && digits.length <= 19 && luhn(digits) && !TEST_CARDS.has(digits);
    },
    positives: ['my credit card number is 4539 1488 0343 6467', 'card: 5425233430109903 exp 04/28', 'カード番号は 4539-1488-0343-6467 です'],
    negatives: ['use the test card 4242 4242 4242 4242 for 3DS', 'card number 4111 1111 1111 1111 is Visa\'s test card', 'card 1234 5678 9012 3456 fails the check', 'the card is 2 of 5'],
  },
  {
    kind: 'card-number',
    // A card's security code after its name ("cvv 123", "CVC: 4821", セキュリティコードは 123): three or four digits.
    re: /(?<pre1>(?:\b(?:cvv2?|cvc2?|csc|cid|card[\t ]+security[\t ]+code)|セキュリティコード)(?:[\t ]+(?:is|was)[\t ]+|[\t ]*[:=：＝][\t \u3000]*|[\t \u3000]*(?:は|が)[\t \u3000]*|[\t ]+))\d{3,4}(?![\d.,:/-]|[\t \u3000]*(?:digits?|characters?|chars?|桁))/gi,
    positives: ['card: 5425 exp 04/28 cvv 123', 'CVC: 4821', 'セキュリティコードは 123 です'],
    negatives: ['the cvv is 3 digits', 'CVV: 3 digits on the back', 'cid 12345678 is the customer'],
  },
  {
    kind: 'secret',
    // Backup or recovery codes of digits after their name ("the 2FA backup codes are 12345678
    // 87654321", "recovery codes: 4821-9930, 1174-2209", バックアップコードは …): each group six to
    // ten digits (a hyphen inside allowed), all of them; a count or a length stays ("8 digits", "10 of them").
    re: /(?<pre1>(?:\b(?:backup|recovery|2fa|mfa|otp)[\t -](?:codes?)|(?:バックアップ|リカバリー?|復旧)コード)(?:[\t ]+(?:is|are|was|were)[\t ]+|[\t ]*[:=：＝][\t \u3000]*|[\t \u3000]*(?:は|が)[\t \u3000]*))(?:\d{6,10}|\d{3,5}-\d{3,5})(?:[\t ]*[,、]?[\t \u3000]+(?:and[\t ]+)?(?:\d{6,10}|\d{3,5}-\d{3,5}))*(?![\d.:/]|[\t \u3000]*(?:digits?|characters?|chars?|of|桁|文字|個))/gi,
    accept: (secret) => secret.split(/[^\d-]+/).filter(Boolean).every((g) => g.replace(/-/g, '').length >= 6 && g.replace(/-/g, '').length <= 10),
    positives: ['the 2FA backup codes are 12345678 87654321', 'recovery codes: 4821-9930, 1174-2209 and 5530-1187', 'バックアップコードは 48219930 11742209 です'],
    negatives: ['backup codes are 8 digits', 'recovery codes: 10 of them', 'the backup code is 1234 digits long', 'backup code 200 OK'],
  },
  {
    kind: 'bank-account',
    // An IBAN after its name ("my IBAN is DE44 5001 0517 5407 3249 31", "IBAN: …"): a country's two
    // letters, two check digits and the account, passing the IBAN check (mod 97); the standard's and
    // the banks' published examples stay.
    re: new RegExp(String.raw`(?<pre1>\bIBAN` + NUMBER_BINDING + String.raw`)[A-Z]{2}\d{2}(?:[\t ]?[A-Z0-9]{4}){2,7}(?:[\t ]?[A-Z0-9]{1,3})?(?![A-Za-z0-9])`, 'g'),
    accept: (secret) => {
      const iban = secret.replace(/[\t ]/g, '');
      return iban.length >= 15 && iban.length <= 34 && ibanValid(iban) && !EXAMPLE_IBANS.has(iban);
    },
    positives: ['my IBAN is DE44 5001 0517 5407 3249 31', 'IBAN: GB33BUKB20201555555555', 'IBANは FR76 3000 6000 0112 3456 7890 189 です'],
    negatives: ['IBAN: DE89 3704 0044 0532 0130 00 is the example in the docs', 'IBAN: DE00 1234 5678 9012 3456 78 fails the check', 'the IBAN is 22 characters in Germany'],
  },
  {
    kind: 'bank-account',
    // A bank account's number after its name ("my bank account number is 12345678", 口座番号は1234567):
    // six to seventeen digits (a Japanese account, seven), grouped or not.
    re: new RegExp(String.raw`(?<pre1>(?:\b(?:bank[\t ]+)?account[\t ]+(?:number|no\.?|#)|\bbank[\t ]+account|口座番号)` + NUMBER_BINDING + String.raw`)\d{2,8}(?:[\t -]?\d{2,8}){0,3}(?![\d.,:/]\d|[\t \u3000]*(?:digits?|characters?|chars?|桁))`, 'gi'),
    accept: (secret, pre) => {
      const digits = secret.replace(/\D/g, '').length;
      return /bank|口座/i.test(pre) && digits >= 6 && digits <= 17;
    },
    positives: ['my bank account number is 12345678', '口座番号は1234567です', 'bank account: 0012-3456-7890'],
    negatives: ['the account number is 8 digits', 'account number 42 in the test fixture', 'bank account number: 10 digits max'],
  },
  {
    kind: 'national-id',
    // A US social security number after its name ("my SSN is 524-71-3398", "social security
    // number: …"): nine digits, grouped three-two-four or not, of a shape the numbers are issued in
    // (not 000, 666 or 9xx first, not 00 or 0000 after).
    re: new RegExp(String.raw`(?<pre1>\b(?:ssn|social[\t ]+security(?:[\t ]+(?:number|no\.?|#))?)` + NUMBER_BINDING + String.raw`)\d{3}(?<sep>[\t -]?)\d{2}\k<sep>\d{4}(?![\d.,:/-]\d)`, 'gi'),
    accept: (secret) => !/^(?:000|666|9\d\d)/.test(secret.replace(/\D/g, '')) && !/^\d{3}00|0000$/.test(secret.replace(/\D/g, '')),
    positives: ['my SSN is 524-71-3398', 'Social Security number: 524 71 3398', 'SSNは524713398です'],
    negatives: ['the ssn column is 9 digits', 'SSN: 000-12-3456 fails validation', 'ssn 123 is the row id'],
  },
  {
    kind: 'national-id',
    // A Japanese My Number after its name (マイナンバー, 個人番号): twelve digits, grouped four by four or not.
    re: /(?<pre1>(?:マイナンバー|個人番号)(?:カード)?(?:の番号)?(?:[\t \u3000]*[:=：＝][\t \u3000]*|[\t \u3000]*(?:は|が)[\t \u3000]*|[\t \u3000]+))\d{4}(?<sep>[\t -]?)\d{4}\k<sep>\d{4}(?!\d)/g,
    positives: ['マイナンバーは 1234 5678 9012 です', '個人番号: 123456789012'],
    negatives: ['マイナンバーは12桁です', 'マイナンバーカードの有効期限は2030年'],
  },
  {
    kind: 'secret',
    // The answer to a security question, said as one ("the answer to my security question is
    // Fluffy", "my mother's maiden name is Smith", 秘密の質問の答えは「ポチ」): one to three words, up
    // to the sentence's end or the closing quote.
    re: /(?<pre1>(?:\b(?:(?:the[\t ]+)?answer[\t ]+(?:to|for)[\t ]+(?:my|the|our|your|his|her|their)[\t ]+(?:security|secret)[\t ]+question|(?:security|secret)[\t ]+(?:question[\t ]+)?answer|(?:my|his|her|their|your)[\t ]+mother['’]s[\t ]+maiden[\t ]+name)(?:[\t ]+(?:is|was)[\t ]+|[\t ]*[:=：＝][\t \u3000]*)|(?:秘密の質問|セキュリティ(?:ー)?質問)の(?:答え|回答)(?:[\t \u3000]*[:：][\t \u3000]*|[\t \u3000]*(?:は|が)[\t \u3000]*))["'`「]?)[\p{L}\p{N}](?:(?!です|でした|だよ)[\p{L}\p{N}'’-])*(?:[\t ][\p{L}\p{N}](?:(?!です|でした|だよ)[\p{L}\p{N}'’-])*){0,2}?(?=["`」]|[\t ]*(?:[.,;!?。、](?:[\t ]|$)|です|でした|だよ|だ(?![ぁ-ん])|\r?\n|$))/giu,
    accept: (secret, pre, after) => {
      // After は or が with no quote, Japanese runs on into the verb ("答えは保存しない"): the value is one only before です.
      if (/[はが][\t \u3000]*$/.test(pre) && !/^[\t ]*(?:です|でした|だよ|だ(?![ぁ-ん]))/.test(after)) return false;
      return !/^(?:not|no|none|unknown|blank|empty|the|a|an|same|different|stored|saved|encrypted|hashed|case|required|optional|in|on|at)$/i.test(secret.split(/[\t ]+/)[0] ?? '');
    },
    positives: ['the answer to my security question is Fluffy', 'my mother\'s maiden name is Smith.', '秘密の質問の答えは「ポチ」', '秘密の質問の答えはポチです', 'security answer: blue falcon'],
    negatives: ['the answer to the security question is stored hashed', 'security answer: not set', '秘密の質問の答えは保存しない'],
  },
  {
    kind: 'secret',
    // A one-time-password seed after its name ("TOTP seed: JBSWY3DPEHPK3PXP", "the 2FA seed is …"):
    // base32 letters and digits, sixteen or more.
    re: /(?<pre1>\b(?:totp|hotp|2fa|mfa|otp|authenticator)[\t _-]?(?:seed|key)(?:[\t ]+(?:is|was)[\t ]+|[\t ]*[:=：＝][\t ]*|[\t ]+))[A-Z2-7]{16,64}={0,6}(?![A-Za-z0-9])/gi,
    accept: (secret) => /\d/.test(secret) && /^[A-Z2-7]+=*$/.test(secret),
    positives: ['TOTP seed: JBSWY3DPEHPK3PXP', 'the 2FA key is GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ'],
    negatives: ['TOTP seed: stored in 1Password', 'the 2FA key is required for admins'],
  },
  {
    kind: 'jwt',
    // A JWT, and a JWT encoded once more in base64 (Kubernetes Secret data, config blobs): `ZXlK…`.
    re: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}|\bZXlK[A-Za-z0-9+/]{60,}={0,2}/g,
    positives: [
      r('eyJhbGciOiJIUzI1NiJ9', '.eyJzdWIiOiIxMjM0NTY3ODkwIn0', '.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U'),
      Buffer.from(r('eyJhbGciOiJIUzI1NiJ9', '.eyJzdWIiOiIxMjM0NTY3ODkwIn0', '.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U')).toString('base64'),
    ],
    negatives: ['eyJ is how JWTs start', 'eyJhbGciOiJIUzI1NiJ9 is only a header'],
  },
  {
    kind: 'anthropic-key',
    re: /\bsk-ant-[A-Za-z0-9_-]{20,}/g,
    positives: [r('sk-ant-api03-', rep('x', 40)), r('ANTHROPIC_API_KEY=sk-ant-', 'admin01-', rep('Ab9', 12))],
    negatives: ['sk-ant is the prefix of Anthropic keys'],
  },
  {
    kind: 'openai-key',
    re: /\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{32,}/g,
    positives: [r('sk-proj-', rep('Ab1', 15)), r('sk-', rep('aB3dE5', 8)), r('OPENAI_API_KEY: sk-svcacct-', rep('Zz9_', 9))],
    negatives: ['sk-short', 'scikit-learn is imported as sk-learn', 'the sk-proj- prefix'],
  },
  {
    kind: 'github-token',
    re: /\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b/g,
    positives: [
      r('ghp_', 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'),
      r('github_pat_', '11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGH'),
      r('gho_', rep('q7R8s9', 6)),
      r('export GH_TOKEN=ghs_', rep('Kk1', 12)),
      r('ghu_', rep('u1', 18)),
    ],
    negatives: ['ghp_ tokens start with ghp_', 'ghost_protocol', r('ghp_', rep('x', 36)), r('export GITHUB_TOKEN=ghp_', rep('X', 40))],
  },
  {
    kind: 'gitlab-token',
    re: /\bgl(?:pat|dt|oas|rt|ptt|cbt|imt|ft)-[A-Za-z0-9_-]{20,}/g,
    positives: [r('glpat-', 'xYz12AbCdEfGhIjKlMnO'), r('GITLAB_TOKEN=glpat-', rep('a1_b', 6))],
    negatives: ['glpat- is the GitLab prefix', r('glpat-', 'XXXXXXXXXXXXXXXXXXXX'), r('GITLAB_TOKEN: glpat-', rep('x', 20))],
  },
  {
    kind: 'aws-access-key',
    re: /\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b/g,
    positives: [r('AKIA', 'Q3ZC7RWB5M2HNJXT'), r('aws_access_key_id = ASIA', 'Y34FZKBOKMUTVV7A')],
    negatives: ['AKIA is a prefix', 'AKIAXXXX', r('AKIA', 'IOSFODNN7EXAMPLE'), r('aws_access_key_id = AKIA', 'IOSFODNN7EXAMPLE'), r('aws_access_key_id = AKIA', rep('X', 16))],
  },
  {
    kind: 'aws-secret-key',
    // After its name, bound by a colon, an equals sign or only a space (`aws configure set aws_secret_access_key …`).
    re: /(?<pre1>(?:aws_secret_access_key|aws[_-]?secret[_-]?key|secretaccesskey)["']?(?:\s*[:=]\s*|[\t ]+)["']?|AWS Secret Access Key \[[^\]]*\]:\s*)[A-Za-z0-9/+=]{40}(?![A-Za-z0-9/+=])/gi,
    positives: [
      r('aws configure set aws_secret_access_key wJalrXUtnFEMI/K7MDENG/', 'bPxRfiCYzq8wKEY1ab'),
      r('aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/', 'bPxRfiCYzq8wKEY1ab'),
      r('AWS Secret Access Key [None]: Kq7pLm2/Zx9vBn4+Wr8tY', 'Io5Pa3SdFg6HjKl0QwE'),
      r('"SecretAccessKey": "', 'abcdEFGHijklMNOPqrstUVWXyz0123456789+/AB', '"'),
    ],
    negatives: ['aws_secret_access_key = ${AWS_SECRET}', r('aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/', 'bPxRfiCYEXAMPLEKEY')],
  },
  {
    kind: 'google-oauth-secret',
    re: /\bGOCSPX-[A-Za-z0-9_-]{28}\b/g,
    positives: [r('GOCSPX-', rep('aB3_cD4-eF5g', 2), 'Hi6j')],
    negatives: ['GOCSPX- is the prefix of Google OAuth client secrets'],
  },
  {
    kind: 'telegram-bot-token',
    re: /\b\d{8,10}:AA[A-Za-z0-9_-]{33}\b/g,
    positives: [r('123456789:AA', rep('Hx9_k', 6), 'ZzZ')],
    negatives: ['at 12:30 the build finished', 'ratio 123456789:1'],
  },
  {
    kind: 'slack-token',
    re: /\b(?:xox[abposr]-[A-Za-z0-9-]{10,}|xapp-\d-[A-Za-z0-9-]{10,})/g,
    positives: [r('xoxb-', '123456789012-1234567890123-abcdefghijklmnop'), r('xoxp-', '1234-5678-abcdefghij'), r('xapp-1-', 'A0123BCDEF-1234567890-abcdef0123')],
    negatives: ['xoxb- is a bot token prefix', r('SLACK_BOT_TOKEN=xoxb-', 'xxx'), r('xoxb-', 'xxxxxxxxxxxx-xxxxxxxxxxxxx-xxxxxxxxxxxxxxxxxxxxxxxx'), r('xoxb-', '123456789012-my-bot-token'), r('xoxb-', 'your-bot-token')],
  },
  {
    kind: 'slack-webhook',
    // With its host, or its path alone (a file path, a log line): T<team>/B<hook>/<24-character token>.
    re: /https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9/_-]+|(?<![A-Za-z0-9])T[A-Z0-9]{8,12}\/B[A-Z0-9]{8,12}\/[A-Za-z0-9]{24}(?![A-Za-z0-9])/g,
    positives: [
      r('https://hooks.slack.com/services/', 'T04K2QZ7L/B05M9XJ3N/q8Lw2ZrT5vNx7YbP3kHd9sFa'),
      r('/tmp/hooks/', 'T04K2QZ7L/B05M9XJ3N/q8Lw2ZrT5vNx7YbP3kHd9sFa', '.json'),
      r('curl -X POST services/', 'T0ABCDEF12/B0GHIJKL34/Zx8Cv7Bn6Mm5Lk4Jh3Gf2Dd1'),
    ],
    negatives: ['https://api.slack.com/apps', 'src/T12345678/B12345678/readme.md', 'T04K2QZ7L/B05M9XJ3N/short'],
  },
  {
    kind: 'stripe-key',
    re: /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b|\bwhsec_[A-Za-z0-9]{24,}\b/g,
    positives: [r('sk_live_', '4eC39HqLyjWDarjtT1zdp7dc'), r('rk_test_', rep('aZ9', 8)), r('whsec_', rep('Qw3', 10))],
    negatives: ['pk_live_ keys are publishable', 'sk_live_ prefix'],
  },
  {
    kind: 'sendgrid-key',
    re: /\bSG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{30,50}\b/g,
    positives: [r('SG.', 'ngeVfQFYQlKU0ufo8x5d1A', '.', 'TwL2iGABf9DHoTf-09kqeF8tAmbihYzrnopKc-1s5cr')],
    negatives: ['SG.com is not a key', 'use SG.Mail to send'],
  },
  {
    kind: 'twilio-key',
    re: /\bSK[0-9a-f]{32}\b/g,
    positives: [r('SK', rep('0a1b2c3d', 4))],
    negatives: ['SKU 12345'],
  },
  {
    kind: 'npm-token',
    re: /\bnpm_[A-Za-z0-9]{36}\b/g,
    positives: [r('npm_', rep('aB1cD2', 6)), r('//registry.npmjs.org/:_authToken=npm_', rep('Zx9', 12))],
    negatives: ['npm_config_cache', 'npm_lifecycle_event'],
  },
  {
    kind: 'pypi-token',
    re: /\bpypi-AgE[A-Za-z0-9_-]{50,}/g,
    positives: [r('pypi-AgEIcHlwaS5vcmc', rep('Ab_-', 16))],
    negatives: ['pypi-server'],
  },
  {
    kind: 'huggingface-token',
    re: /\bhf_[A-Za-z0-9]{30,}\b/g,
    positives: [r('hf_', rep('AbCdEfGhIj', 4)), r('HF_TOKEN=hf_', rep('x1Y2', 9))],
    negatives: ['hf_hub_download', 'hf_transfer'],
  },
  {
    kind: 'digitalocean-token',
    re: /\bdo[opr]_v1_[a-f0-9]{64}\b/g,
    positives: [r('dop_v1_', rep('0123456789abcdef', 4))],
    negatives: ['dop_v1_ prefix'],
  },
  {
    kind: 'heroku-key',
    re: /(?<pre1>\bHEROKU_API_KEY\s*[=:]\s*["']?)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi,
    positives: [r('HEROKU_API_KEY=', '01234567-89ab-cdef-0123-456789abcdef')],
    negatives: ['request id 123e4567-e89b-12d3-a456-426614174000'],
  },
  {
    kind: 'azure-storage-key',
    re: /(?<pre1>\b(?:AccountKey|SharedAccessKey|azure[_-]?storage[_-]?key)\s*[=:]\s*["']?)[A-Za-z0-9+/]{30,}={0,2}/gi,
    positives: [
      r('DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=', rep('Eby8vdM02xNOcqFl', 5), '==;EndpointSuffix=core.windows.net'),
      r('Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=root;SharedAccessKey=', rep('kR3m', 11)),
    ],
    negatives: ['AccountName=devstoreaccount1'],
  },
  {
    kind: 'sentry-dsn',
    re: /(?<pre1>https?:\/\/)[0-9a-f]{32}(?::[0-9a-f]{32})?(?<post>@[a-z0-9.-]*sentry\.io\/)/gi,
    positives: [r('https://', rep('0123456789abcdef', 2), '@o123456.ingest.sentry.io/4505')],
    negatives: ['https://sentry.io/organizations/acme/issues/'],
  },
  {
    kind: 'auth-header',
    // Authorization: Bearer|Basic|Token <value>, in headers, curl -H, httpie and code.
    re: /(?<pre1>\b(?:authorization|proxy-authorization)["']?\s*[:=]\s*["']?(?:bearer|basic|token|digest)\s+)(?!\$|<|\{|\[REDACTED)[A-Za-z0-9._~+/=-]{8,}/gi,
    positives: [
      'curl -H "Authorization: Bearer abcDEF123456ghiJKL" https://api.example.com',
      'Authorization: Basic dXNlcjpwYXNzd29yZA==',
      "headers = {'Authorization': 'Token 9944b09199c62bcf9418ad846dd0e4bb'}",
      'http GET api.example.com Authorization:"Bearer zyx987WVU654"',
    ],
    negatives: ['Authorization: Bearer ${TOKEN}', 'the Authorization header carries a bearer token', 'Authorization: Bearer <token>'],
  },
  {
    kind: 'basic-credentials',
    // `user:password` in base64 wherever it stands: HTTP Basic without its header ("use Basic
    // YWRtaW46…"), Docker's config.json `"auth"`, npm's `_auth`. What it decodes to says it is one
    // (basicCredentials), so any base64-looking word may be read; few are.
    re: /(?<![A-Za-z0-9+/_-])(?:[A-Za-z0-9+/]{4}){2,64}(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?(?![A-Za-z0-9+/=_-])/g,
    accept: basicCredentials,
    positives: [
      'use Basic YWRtaW46aHVudGVyMjI= for the proxy',
      Buffer.from('deploy:Winter2024!').toString('base64'),
      r('{"auths": {"registry.example.com": {"auth": "', Buffer.from('ci-bot:9f8e7d6c5b4a').toString('base64'), '"}}}'),
      r('_auth=', Buffer.from('alice@example.com:s3cretPass').toString('base64')),
      r('Basic認証は ', Buffer.from('admin:opensesame').toString('base64'), ' を送る'),
    ],
    negatives: [
      'aHR0cHM6Ly9leGFtcGxlLmNvbS9hcGk=',
      'eyJhbGciOiJIUzI1NiJ9 is only a header',
      'the sha256 is 47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=',
      'dGltZTogMTI6MzA=',
      'password and something else entirely',
      Buffer.from('key:val').toString('base64'),
    ],
  },
  {
    kind: 'secret',
    // pass, pwd or pw as a parameter of a URL's query (`?user=admin&pass=…`) or a key of a
    // connection string (`User ID=sa;Pwd=…`): a password whatever it holds. Only right after `?`,
    // `&` or `;`: alone, PWD is the working directory (`PWD=/srv/app`), and `bypass=` is no key.
    re: new RegExp(`(?<pre1>[?&;][\\t ]{0,4}(?:pass|pwd|pw)[\\t ]{0,4}=[\\t ]{0,4})${NOT_A_VALUE}(?![~/.])[^\\s&;#'"]{3,256}`, 'gi'),
    positives: [
      'https://host/login?user=admin&pass=sunshine',
      'curl "https://nas.local/api?user=admin&pwd=Hunter22"',
      'Data Source=db;Initial Catalog=app;User ID=sa;Pwd=sunshine',
      'Driver={ODBC Driver 18};Server=db;UID=sa;PWD=Tr0ub4dor;',
    ],
    negatives: ['cd /srv; PWD=/srv/app make', 'https://x.com/?bypass=true', 'https://host/login?user=admin&pass=${PASS}', 'Server=db;Uid=sa;Pwd=%DB_PASSWORD%;', '?page=2&pass=', 'https://host/?q=1&pass=true'],
  },
  {
    kind: 'url-signature',
    // The signature of a signed URL (Azure SAS `sig=`, S3 `X-Amz-Signature=` and its session token,
    // GCS `X-Goog-Signature=`, CloudFront `Signature=`) or an `auth=` parameter: whoever holds the URL
    // holds the access until it expires. Sixteen or more characters, letters and digits (or hex).
    re: /(?<pre1>[?&;](?:sig|signature|x-amz-signature|x-amz-security-token|x-goog-signature|auth)=)(?![$<{%])[A-Za-z0-9%+/=_.~-]{16,4096}(?![A-Za-z0-9%+/=_.~-])/gi,
    accept: (secret) => /\d/.test(secret) && /[A-Za-z]/.test(secret),
    positives: [
      r('https://acct.blob.core.windows.net/c/f.txt?sv=2022-11-02&ss=b&sp=r&se=2026-12-31T00:00:00Z&sig=', 'Kq7Lm2Zx9Vb4Nw8Rt3Yu6Io1Pa5Sd9Fg2Hj0Kq7%3D'),
      r('https://bucket.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Expires=3600&X-Amz-Signature=', '3f9a8c7d6e5b4a3928171615141312ab3f9a8c7d6e5b4a3928171615141312ab'),
      r('https://storage.googleapis.com/b/o?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Signature=', '3f9a8c7d6e5b4a3928171615141312ab3f9a8c7d'),
      r('https://d111.cloudfront.net/a.mp4?Expires=1767225600&Signature=', 'Kq7Lm2Zx9Vb4Nw8Rt3Yu6Io1Pa5Sd9~Fg2Hj0__', '&Key-Pair-Id=K2JCJMDEHXQW5F'),
      r('https://x.example.com/a?auth=', 'Kq7Lm2Zx9Vb4Nw8Rt3Yu6Io'),
    ],
    negatives: ['https://x.com/?sig=abc', 'https://x.com/a?signature=true', 'https://x.com/a?auth=basic', 'https://x.com/a?auth=required_for_admin_only', 'https://x.com/a?sig=${SAS_SIG}', 'the sig= parameter holds the signature'],
  },
  {
    kind: 'url-password',
    // scheme://user:password@host and scheme://:password@host (Redis).
    // The whole password, whatever it holds (an @ too: the host starts after the last @).
    re: /(?<pre1>\b[a-z][a-z0-9+.-]{0,31}:\/\/[^\s:/@]{0,256}:)(?!\/\/)[^\s/]{1,512}(?<post>@[^\s@/]{1,256})/gi,
    positives: ['postgres://admin:hunter22@db.local:5432/app', 'redis://:s3cretPass@cache.internal:6379/0', 'mongodb+srv://bob:pa%24%24w0rd@cluster0.example.net/test', 'https://deploy:ghp-style-pass@git.example.com/repo.git', 'amqp://app:Xq7@Lm9$vR2pT4@mq.internal:5672/'],
    negatives: ['https://example.com/path?q=1', 'ssh://git@host:22/repo', 'git@github.com:org/repo.git', 'postgres://localhost:5432/app', 'postgres://user:password@localhost/db', 'redis://:${REDIS_PASSWORD}@cache:6379', 'postgres://app:$DB_PASS@db/app', 'mysql://root:changeme@localhost/test'],
  },
  {
    kind: 'cli-password',
    re: /(?<pre1>\b(?:mysql(?:dump|admin|import|show|check|pump)?|mariadb(?:-?dump|-?admin)?)\b[^\n]{0,512}?\s-p)(?!\s)(?!\$)[^\s'"]+|(?<pre2>\b(?:sshpass|docker\s+login|podman\s+login|helm\s+registry\s+login|az\s+login|mongo(?:sh|dump|restore|import|export|stat|top|files)?)\b[^\n]{0,512}?\s(?:-p|--password)[\s=]+["']?|\bredis-cli\b[^\n]{0,512}?\s(?:-a|--pass)[\s=]+["']?)(?![$-])[^\s'"]+|(?<pre3>(?:^|\s)--(?:password|passwd|token|api-key|apikey|access-token|auth-token|secret|client-secret|secret-key|private-token)[=\s]+["']?)(?!\$|<|-)[^\s'"]{3,}|(?<pre4>\b(?:curl|wget|http)\b[^\n]{0,512}?\s(?:-u|--user)[\s=]+["']?[^\s:'"]*:)(?![$:])[^\s'"]+/gim,
    positives: [
      'mysql -u root -pS3cretPw! mydb',
      'sshpass -p hunter2 ssh deploy@host',
      'docker login -u me -p dckr_pat_abc123 registry.example.com',
      'psql --password mysecretpw -h db',
      'curl -u admin:t0psecret https://api.example.com',
      'curl -u elastic:Xq7@Lm9$vR2pT4 https://es.internal:9200/_cat/indices',
      'vault login --token s.Qw8Er7Ty6Ui5Op4',
      'deploy-cli --access-token Zx9Cv8Bn7Mm6Ll5Kk4Jj3Hh2',
      'heroku config:set --api-key 1f2e3d4c5b6a79880a1b2c3d4e5f6071',
      'redis-cli -h cache.internal -a Sup3rS3cret ping',
      'az login -u me@example.com -p Winter2024!',
      'mysqladmin -u root -pWinter2024 status',
      'mongosh -u admin -p Winter2024 --authenticationDatabase admin',
    ],
    negatives: ['mysql -u root -p mydb', 'docker run -p 8080:80 nginx', 'docker login -u me --password-stdin', 'ssh -p 2222 host', 'npm install --password-reset-ui', 'pip install -p foo', 'curl -u "$ES_USER:$ES_PASS" https://es:9200', 'curl -u $USER:$TOKEN https://api', 'vault login --token $VAULT_TOKEN', 'cli --token <token>', 'curl -u user:password https://httpbin.org/basic-auth/user/password', 'redis-cli -a $REDIS_PASSWORD ping', 'redis-cli --askpass', 'mongosh -u admin -p --authenticationDatabase admin', 'mongod --port 27017 -p'],
  },
  {
    kind: 'cli-password',
    // A password as a command's argument where no flag names it: htpasswd -b (file, user, then the
    // password; -n: no file), echoed into sudo -S.
    re: /(?<pre1>\bhtpasswd\s+(?:-[A-Za-z]*n[A-Za-z]*b[A-Za-z]*|-[A-Za-z]*b[A-Za-z]*n[A-Za-z]*)\s+["']?[^\s'"]+["']?\s+["']?)(?![$-])[^\s'"]+|(?<pre2>\bhtpasswd\s+-[A-Za-z]*b[A-Za-z]*\s+["']?[^\s'"]+["']?\s+["']?[^\s'"]+["']?\s+["']?)(?![$-])[^\s'"]+|(?<pre3>\b(?:echo|printf)\s+(?:-[ne]+\s+)?["']?)(?![$-])[^\s'"|]+(?<post>["']?\s*\|\s*sudo\b[^\n|]{0,256}?\s-S\b)/g,
    positives: ['htpasswd -b .htpasswd admin Winter2024', 'htpasswd -bc /etc/nginx/.htpasswd deploy hunter22x', 'htpasswd -nb admin opensesame', 'echo Winter2024 | sudo -S apt update', "echo 'hunter22!' | sudo -S -k systemctl restart nginx"],
    negatives: ['htpasswd -c .htpasswd admin', 'htpasswd -b .htpasswd admin $PASSWORD', 'echo hello | sudo tee /etc/motd', 'echo $PASS | sudo -S ls', 'echo done | sort'],
  },
  {
    kind: 'cli-password',
    // Passwords the tools for keys, archives and shares take as arguments: openssl -passin/-passout
    // pass:…, keytool -storepass/-keypass, ssh-keygen -N/-P (a passphrase, quoted with its spaces),
    // zip/unzip -P, 7z -p…, smbclient -U user%password. Empty (-N "") and variables stay.
    re: /(?<pre1>(?:\bopenssl\b[^\n]{0,512}?\s-pass(?:in|out)\s+["']?pass:|\bkeytool\b[^\n]{0,512}?\s-(?:src|dest)?(?:storepass|keypass)\s+|\bssh-keygen\b[^\n]{0,512}?\s-[NP]\s+|\b(?:un)?zip\b[^\n]{0,512}?\s(?:-P|--password)\s+|\b7z[ar]?\b[^\n]{0,512}?\s-p|\bsmbclient\b[^\n]{0,512}?\s(?:-U|--user)[\s=]+["']?[^\s%'"]+%))(?![\s$"'-])[^\s'"]+|(?<pre2>(?:\bkeytool\b[^\n]{0,512}?\s-(?:src|dest)?(?:storepass|keypass)|\bssh-keygen\b[^\n]{0,512}?\s-[NP]|\b(?:un)?zip\b[^\n]{0,512}?\s(?:-P|--password))\s+["'])(?!\$)[^"'\n]{1,256}(?=["'])/g,
    positives: [
      'openssl pkcs12 -export -passout pass:Winter2024x -out a.p12',
      'openssl rsa -passin pass:Winter2024x -in k.pem',
      'keytool -importkeystore -srcstorepass Winter2024x -deststorepass Winter2024y',
      'ssh-keygen -t ed25519 -N "my passphrase 2024" -f id',
      'zip -P Winter2024x out.zip a.txt',
      '7z a -pWinter2024x out.7z a',
      'smbclient //h/share -U bob%Winter2024x',
    ],
    negatives: ['ssh-keygen -t ed25519 -N "" -f id', 'openssl rsa -passin env:KEY_PASS -in k.pem', 'zip -r out.zip src', '7z a -t7z out.7z a', 'keytool -storepass $STOREPASS -list', 'smbclient -L h -U bob', 'the 7z format supports -p for a password'],
  },
  {
    kind: 'cli-password',
    // What more tools take as a password argument, their flags case-sensitive: sqlcmd and bcp -P
    // (-p prints statistics), ldapsearch and its kin -w (-W asks), openssl -k and -pass pass:, rar
    // -p…, gh secret set --body, rabbitmqctl add_user/change_password, net user; and what `echo`
    // pipes into --password-stdin, passwd --stdin or chpasswd (user:password).
    re: /(?<pre1>(?:\b(?:sqlcmd|bcp|osql)\b[^\n]{0,512}?\s-P\s+|\bldap(?:search|add|modify|delete|whoami|passwd|compare|modrdn|exop)\b[^\n]{0,512}?\s-w\s+|\bopenssl\b[^\n]{0,512}?\s(?:-k\s+|-pass\s+["']?pass:)|\b(?:un)?rar\b[^\n]{0,512}?\s-p|\bgh\s+secret\s+set\b[^\n]{0,512}?\s(?:-b|--body)[\s=]+|\brabbitmqctl\s+(?:add_user|change_password)\s+["']?[^\s'"]+["']?\s+|\b[Nn][Ee][Tt]\s+[Uu][Ss][Ee][Rr]\s+["']?[^\s'"/]+["']?\s+)["']?)(?![\s$"'*/<-])[^\s'"]+|(?<pre2>\b(?:echo|printf)\s+(?:-[ne]+\s+)?["']?(?:[\w.@-]{1,64}:)?)(?![$-])[^\s'"|]+(?<post>["']?[\t ]*\|[^\n|]{0,256}?(?:\s--password-stdin\b|\bpasswd\s+--stdin\b|\bchpasswd\b))/g,
    positives: [
      'sqlcmd -S db -U sa -P Winter2024 -Q "select 1"',
      'ldapsearch -x -D cn=admin,dc=example,dc=org -w Winter2024 -b dc=example,dc=org',
      'openssl enc -aes-256-cbc -k Winter2024 -in notes.txt -out notes.enc',
      'openssl enc -d -aes-256-cbc -pass pass:Winter2024 -in notes.enc',
      'rar a -pWinter2024 backup.rar src',
      'gh secret set DB_PASS --body Winter2024',
      'rabbitmqctl add_user deploy Winter2024',
      'net user admin Winter2024 /add',
      'echo Winter2024 | docker login -u me --password-stdin registry.example.com',
      "echo 'deploy:Winter2024' | sudo chpasswd",
      'echo Winter2024 | passwd --stdin deploy',
    ],
    negatives: [
      'sqlcmd -S db -E -Q "select 1"',
      'sqlcmd -S db -p -Q "select 1"',
      'ldapsearch -x -W -D cn=admin,dc=example,dc=org',
      'ldapsearch -x -w $LDAP_PW -D cn=admin',
      'openssl s_client -key client.pem -connect host:443',
      'openssl enc -d -aes-256-cbc -pass env:NOTES_PASS -in notes.enc',
      'rar a -p- backup.rar src',
      'rar a -p backup.rar src',
      'unrar x backup.rar',
      'gh secret set DB_PASS < secret.txt',
      'gh secret set DB_PASS --body "$DB_PASS"',
      'net user admin /delete',
      'net user admin *',
      'echo $TOKEN | docker login --password-stdin',
      'echo hello | wc -l',
      'echo "$USER:$PASS" | chpasswd',
      'rabbitmqctl list_users',
    ],
  },
  {
    kind: 'pgpass-password',
    // ~/.pgpass: host:port:database:user:password, one entry a line, * for any; a colon in the
    // password is written `\:`, so a line with more fields (/etc/shadow's `games:*:20228:0:99999:7:::`) is no entry.
    re: new RegExp(`(?<pre1>^[\\t ]*(?:[A-Za-z0-9*][\\w.*-]{0,253}|\\[[0-9A-Fa-f:]{2,45}\\]):(?:\\d{1,5}|\\*):[^\\s:]{1,64}:[^\\s:/]{1,64}:)${NOT_A_VALUE}(?:[^\\s:\\\\]|\\\\[:\\\\]){4,256}$`, 'gm'),
    accept: (secret) => !/^\d+$/.test(secret),
    positives: ['# ~/.pgpass\ndb.internal:5432:app:deploy:Winter2024', '*:*:*:postgres:hunter22', 'localhost:5432:*:app:opensesame\n10.0.0.5:5432:app:ro:Tr0ub4dor', 'db:5432:app:deploy:Win\\:ter2024'],
    negatives: ['12:30:45:678:9012', 'web:80:tcp:open:true', 'db.internal:5432:app:deploy:${PGPASSWORD}', 'src/app.ts:42:10:error:Unexpected', 'a:b:c:d:e:f', 'localhost:5432:app:deploy', 'games:*:20228:0:99999:7:::'],
  },
  {
    kind: 'netrc-password',
    // ~/.netrc and _netrc: `machine <host> login <user> password <password>`, on one line or several.
    // A login before the password tells an entry from prose ("machine learning password …").
    re: /(?<pre1>\b(?:machine[ \t]+\S+|default)(?:\s+(?:account|port)[ \t]+\S+){0,2}\s+login[ \t]+\S+(?:\s+(?:account|port)[ \t]+\S+){0,2}\s+password[ \t]+)(?![$<])\S+/g,
    positives: ['machine api.example.com login bob password hunter2x', 'machine api.heroku.com\n  login me@example.com\n  password 01234567-89ab-cdef-0123-456789abcdef', 'default login anonymous password guest@example.com'],
    negatives: ['the machine password policy', 'machine learning password strength models', 'machine api.example.com login bob password $NETRC_PASSWORD', 'the machine login screen asks for a password first'],
  },
  ...PROVIDER_RULES,
  {
    kind: 'provider-secret',
    // A provider's name in the variable, then a key, id, secret or token of it, in any
    // syntax: ALGOLIA_ADMIN_KEY=…, bitbucketClientSecret: "…", "mapbox_token" => '…'. Only the
    // context says these values are secrets (a 32-hex value alone is not one), as scanners'
    // keyword rules require.
    re: new RegExp(
      `(?<pre1>(?<![A-Za-z0-9])["'\`]?[A-Za-z0-9_.-]{0,${NAME_MAX}}?(?<provider>${PROVIDER_CONTEXT.join('|')})[A-Za-z0-9_.-]{0,${NAME_MAX}}?(?:key|secret|token|pat|auth|credentials?|pass(?:word)?)s?["'\`\\]]?[\\t ]*(?::=|=>|\\?=|=|:|,)[\\t ]*["'\`]?)${NOT_A_VALUE}[A-Za-z0-9_\\-.=+/~]{10,}(?![A-Za-z0-9_\\-.=+/~])`,
      'gi',
    ),
    kindOf: (g) => `${(g.provider ?? 'provider').toLowerCase()}-secret`,
    accept: (secret) => secret.length >= 16 && /\d/.test(secret) && /[A-Za-z]/.test(secret),
    positives: PROVIDER_CONTEXT.slice(0, 60).map((p, i) => `${p.toUpperCase()}_${['API_KEY', 'SECRET', 'TOKEN', 'CLIENT_SECRET', 'ACCESS_KEY', 'KEY'][i % 6]}=${'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6'.slice(i % 5, 24 + (i % 8))}`),
    negatives: ['ALGOLIA_APP_NAME=storefront', 'slack_channel_id: general', 'slack_channel_id: C0123ABCDEF4567', 'SENTRY_PROJECT_ID=4505123456789', 'okta_client_id: 0oa1b2c3d4e5f6g7h8i9', 'datadog_key_name: prod-api-key-2', 'mapbox_style = "streets-v11"', 'datadog_site: datadoghq.eu', 'stripe_customer_id: cus_test', 'SENTRY_ENVIRONMENT=production'],
  },
  {
    kind: 'secret',
    // A quoted name, then its value in quotes: JSON "api_key": "v", Python {'secret': 'v'},
    // PHP "secret_key" => "v", Java setProperty("SHOPIFY_TOKEN", "v") / put("password", "v"),
    // Go os.Setenv("API_TOKEN", "v"), Ruby ENV["X_TOKEN"] = "v".
    re: new RegExp(`(?<pre1>["'\`](?:${SECRET_NAME})["'\`]\\]?\\s*(?::|=>|,|=)\\s*["'\`])${NOT_A_VALUE}[^"'\`\\n]{3,}(?=["'\`])`, 'gi'),
    accept: tokenLike,
    positives: [
      '{"api_key": "abc123456", "name": "x"}',
      "{'client_secret': 'qwerty-98765'}",
      '{"authToken": "tkn_abc_12345"}',
      "$config = ['secret_key' => 'h7Gk2Lp9Qz4Wx8'];",
      'System.setProperty("PAYMENT_API_TOKEN", "tok_9Kq2Lm7Xw4Pz8Rv1");',
      'props.put("db.password", "Winter2024!");',
      'os.Setenv("GITHUB_TOKEN", "x7Kp2Lm9Qz4Wv8Rt1Yu6");',
      'ENV["DEPLOY_TOKEN"] = "Zq8Wx7Cv6Bn5Mm4"',
    ],
    negatives: ['{"max_tokens": "4096"}', '{"token_type": "bearer"}', '{"password": "string"}', '{"secret_sauce": "caching"}', '{"api_key": "YOUR_API_KEY"}', '{"password": "${DB_PASSWORD}"}', "'secret_key' => env('APP_SECRET')", 'System.setProperty("API_TOKEN", System.getenv("API_TOKEN"));', '{"password": "Password is required."}', '{"password": "Your password"}', '{"password": "Passwords do not match"}', '{"password_hint": "must be at least 8 characters"}', 'errors.push(new Err(`UNEXPECTED_TOKEN`, `Unexpected token in block scalar header`))'],
  },
  {
    kind: 'secret',
    // An unquoted name bound to a value: shell and .env (X=v, export X="v"), Makefile (X ?= v,
    // X := v), Go (x := "v"), Python keyword arguments (api_key="v"), TOML/INI (x = v); YAML at a
    // line start (x: v); inline object literals with a quoted value ({ apiKey: "v" }).
    re: new RegExp(
      `(?<pre1>(?:\\b(?:${SECRET_NAME})\\s*(?::=|\\?=|=(?!=|>))|^[\\t ]*(?:-[\\t ]+)?(?:export[\\t ]+)?(?:${SECRET_NAME})[\\t ]*:|\\b(?:${SECRET_NAME})[\\t ]*:(?=[\\t ]*["'\`]))[\\t ]*(?<q>["'\`]?))${NOT_A_VALUE}(?:[^\\s"'\`,;(){}\\[\\]]{3,}(?=\\k<q>(?:[\\s"'\`,;)}\\]]|$))|${QUOTED_WORDS}(?=\\k<q>(?:[\\s,;)}\\]]|$)))`,
      'gim',
    ),
    accept: tokenLike,
    positives: [
      'export DB_PASSWORD=s3cr3t-value',
      'API_TOKEN="abcd1234efgh"',
      'DB_PASSWORD="correct horse battery staple"',
      '{ password: "the quick brown fox 42" }',
      "export PASSPHRASE='my secret phrase 42'",
      'client_secret: qwerty-98765',
      'DB_PASSWORD=correct-horse-battery',
      'SMTP_PASS=mailpass123',
      'AZURE_DEVOPS_PAT=k7q2lm9zx4vb8nw3rt6yu1io5pa3sd9fg2hj0kq7lm2zx9vb4nw8r',
      'DB_PASS=hunter22',
      'PGPASSWORD=pg_pw_123 psql -h db',
      "const apiKey = 'live_1234abcd'",
      'auth_token = "xyz-98765"',
      '  password: Winter2024!',
      'SECRET_KEY=django-insecure-abc123',
      'paymentSecret := "sk_9Kq2Lm7Xw4Pz8Rv1Yt6"',
      'apiToken := os.Getenv("X") // was: apiToken := "Zq8Wx7Cv6Bn5Mm4"',
      'client = Client(api_key="Kq7Lm2Zx9Vb4Nw8Rt3")',
      'CHAT_TOKEN ?= Lp9Kq2Mx7Zw4Vb8Nt3',
      'const cfg = { apiKey: "Rt3Yu7Io1Pa5Sd9Fg", region: "eu" }',
      '  - DB_PASSWORD=Pg9Kq2Mx7Zw',
    ],
    negatives: [
      'max_tokens: 4096',
      'max_tokens=4096',
      'tokenizer: bert-base-uncased',
      'secret_sauce: caching',
      "credentials: 'include'",
      'token_type: bearer',
      'tokenCount = 3',
      'PWD=/home/u/app',
      'NODE_PATH=/usr/lib/node_modules',
      'SPAT_RATIO=0.25',
      'The secret: avoid premature optimisation',
      'password_min_length: 12',
      'password: string;',
      'const token = getToken();',
      'apiKey: process.env.API_KEY,',
      'TOKEN=$GITHUB_TOKEN',
      'API_KEY=${API_KEY}',
      'api_key = <your-key>',
      'password = None',
      'token = os.environ["TOKEN"]',
      'the token is valid until tomorrow',
      'my secretary booked it',
      'use_tokenizer = True',
      'secret = generate_secret()',
      'password = var.db_password',
      'NPM_TOKEN: ${{ secrets.NPM_TOKEN }}',
      'access_token=ACCESS_TOKEN',
      'api_key: your-api-key-here',
      'DB_PASSWORD: changeme',
      'token = "xxxxxxxxxxxxxxxx"',
      'GITHUB_TOKEN=%GITHUB_TOKEN%',
      'password: "{{ .Values.db.password }}"',
      'if token == expected_token:',
      'secret: public',
      'api_key := cfg.APIKey',
      'env.API_KEY = apiKeyValue;',
      'apiKey: isLiteLLM ? env.KEY : undefined',
      'password = userPasswordInput',
      'client_secret = clientSecretParam',
      'authToken: authTokenRef.current',
      'secret: mySecretValue,',
      'API_KEY = apiKeyFromVault',
      'SLACK_BOT_TOKEN=xoxb-your-bot-token',
    ],
  },
  {
    kind: 'secret',
    // A key by any name (ENCRYPTION_KEY, "key", masterKey, license_key) bound to a value that
    // looks generated: the name alone says little (cache_key, sort_key, primary_key), so the
    // value must — 16+ characters of letters and digits with a generated-looking spread.
    // A value written `base64:…` (Laravel's APP_KEY) keeps its prefix.
    re: /(?<pre1>(?<![A-Za-z0-9])["'`]?[A-Za-z0-9_.-]{0,64}?key["'`\]]?[\t ]*(?::=|=>|\?=|=|:)[\t ]*["'`]?(?:base64:)?)(?![$<%{[])[A-Za-z0-9_\-.=+/]{16,}(?![A-Za-z0-9_\-.=+/])/gi,
    accept: generated,
    positives: ['APP_KEY=base64:Kq7Lm2Zx9Vb4Nw8Rt3Yu6Io1Pa5Sd9Fg2Hj0Kq7Lm2=', 'ENCRYPTION_KEY=q8Lw2ZrT5vNx7YbP3kHd9sFa', '"key": "Zq8Wx7Cv6Bn5Mm4Ll3Kk2Jj1"', 'license_key: AB12-CD34-EF56-GH78-IJ90', 'masterKey := "7fG2kL9pQ4wX8vN3mR6tY1zB"'],
    negatives: ['cache_key = "user_profile_settings_v2"', 'sort_key: created_at_timestamp', 'primary_key = "order_id_and_line_number"', 'KEY_PATH=/etc/ssl/private/server.key', 'public_key: "-----BEGIN PUBLIC KEY-----"', 'keyboard layout: us-international-dead-keys'],
  },
  {
    kind: 'secret',
    // XML/NuGet and .config files: <add key="Password" value="v"/>, <password>v</password>.
    re: new RegExp(`(?<pre1>\\bkey\\s*=\\s*["'](?:${SECRET_NAME}|[A-Za-z0-9_.:-]*(?:ClearTextPassword|Password|ApiKey|Secret|Token))["']\\s+value\\s*=\\s*["'])${NOT_A_VALUE}[^"'\\n]{3,}(?=["'])|(?<pre2><(?<tag>[A-Za-z0-9_.:-]*(?:[Pp]assword|[Ss]ecret|[Tt]oken|[Aa]pi[Kk]ey))>)${NOT_A_VALUE}[^<\\n]{3,}(?=</\\k<tag>>)`, 'g'),
    accept: tokenLike,
    positives: ['<add key="ClearTextPassword" value="Nu9Get-Pw-2024" />', '<add key="Password" value="hunter22" />', '<password>Winter2024!</password>', '<apiKey>Kq7Lm2Zx9Vb4Nw8Rt3</apiKey>'],
    negatives: ['<add key="Username" value="deploy" />', '<password>${DB_PASSWORD}</password>', '<add key="Password" value="%NUGET_PASSWORD%" />', '<passwordPolicy>strict</passwordPolicy>'],
  },
  {
    kind: 'secret',
    // A PIN, four to eight digits bound to its name: "my PIN is 4821", "the PIN for the SIM is
    // 120934", "PIN code: 4821", 暗証番号は 4821, PINコード：4821, and a passcode or a door's,
    // alarm's or safe's code said so ("the passcode is 998877", "the door code is 4821"). Set to
    // one: "I set the PIN to 4821", "the PIN was changed to 4821". A board's pin ("GPIO pin 13",
    // "the reset pin is 4") has fewer digits; a PIN's length ("the PIN is 6 digits") is followed by
    // its unit; what a pin is set to do ("pin the version to 1234") has no setting verb before it.
    re: new RegExp(`(?:(?<pre1>${PIN_LABEL}${PIN_FOR}(?:[\\t ]*[:=：＝][\\t \\u3000]*|[\\t ]+(?:is|was)[\\t ]+(?:now[\\t ]+|still[\\t ]+)?|[\\t \\u3000]*(?:は|が|を|も|って)[\\t \\u3000]*|[\\t ]*[?？][\\t ]+(?:it['’]s[\\t ]+)?|[\\t ]+(?:(?:is|was|has[\\t ]+been|had[\\t ]+been)[\\t ]+)?(?:${SET_PARTICIPLE})[\\t ]+to[\\t ]+))|(?<pre2>\\b(?:${SETTING_VERB})[\\t ]+(?:(?:the|my|our|your|a|new|their)[\\t ]+){0,2}(?:[\\w.-]{1,30}[\\t ]+)?${PIN_LABEL}${PIN_FOR}[\\t ]+to[\\t ]+))\\d{4,8}(?![\\d.,:/-]|[\\t \\u3000]*(?:digits?|characters?|chars?|times?|桁|文字|回))`, 'gi'),
    positives: ['my PIN is 4821', 'the PIN for the SIM card is 120934', 'PIN code: 4821', 'pin = 7730', '暗証番号は 4821', 'キャッシュカードの暗証番号は4821です', 'PINコード：4821', 'the YubiKey PIN? it\'s 123456', 'I set the PIN to 4821', 'changed my SIM PIN to 120934 yesterday', 'the PIN was changed to 4821', 'the passcode is 998877', 'the door code is 4821', 'the alarm code: 1357'],
    negatives: ['the PIN is 6 digits', 'PIN: 4 digits', 'GPIO pin 13', 'the reset pin is 4', 'pin the version to 1234', 'pinned at 2024', '暗証番号は4桁', 'pin: 2024.1', 'PINは 3 回まで', 'spin is 12345', 'set the PIN to 6 digits', 'set pin 13 to 1000', 'the error code is 4821', 'the zip code is 94103', 'the passcode is 6 digits'],
  },
  {
    kind: 'secret',
    // The new password of a change said in Japanese ("パスワードを Winter2024 から Spring2025 に変更した",
    // "パスワード変更: … → …"); the old one is the next rule's. Followed by に or へ it is bound, as
    // after a colon; otherwise it must hold letters and digits.
    re: new RegExp(`(?<pre1>(?:${CJK_PASSWORD})(?:の?(?:変更|更新))?[\\t \\u3000]*(?:を|は|[:：])[\\t \\u3000]*["'\`「]?[^\\s"'\`\\u0080-\\uffff]{4,128}["'\`」]?[\\t \\u3000]*(?:から|→|->)[\\t \\u3000]*(?<q>["'\`]?))${NOT_A_VALUE}[^\\s"'\`\\u0080-\\uffff]{3,127}[^\\s"'\`\\u0080-\\uffff),;\\]}.](?=\\k<q>)`, 'g'),
    accept: (secret, pre, after) => labelledValue(secret, pre, after, /^[\t \u3000]*(?:に|へ)/.test(after), true),
    positives: ['パスワードを Winter2024 から Spring2025 に変更した', 'パスワード変更: Winter2024 → Spring2025', 'Wi-Fiのパスワードは hunter22x から opensesame に変えた'],
    negatives: ['パスワードを 1Password から Bitwarden に移した', 'パスワードは 8文字 から 12文字 に', 'パスワードを bcrypt から argon2id に変えた', 'パスワード更新: 2024-01-01', 'パスワード変更は 3 回まで'],
  },
  {
    kind: 'secret',
    // A value after a label in Japanese, Chinese or Korean (cjkSecret says which values count).
    // In 「」 or 『』 the value runs to the closing bracket, spaces and all.
    re: new RegExp(
      `(?<pre1>${CJK_LABEL_BOUND}[「『])[^」』\\n]{1,128}(?=[」』])` +
        `|(?<pre2>${CJK_LABEL_BOUND}(?<q>["'\`]?))${NOT_A_VALUE}[^\\s"'\`\\u0080-\\uffff]{3,511}[^\\s"'\`\\u0080-\\uffff),;\\]}.](?=\\k<q>)`,
      'gi',
    ),
    accept: cjkSecret,
    positives: [
      'パスワードは Sup3rS3cret!2024 です',
      'パスワード：Sup3rS3cret!2024',
      'パスワード　Sup3rS3cret!2024',
      'DBのパスワード=Tr0ub4dor&3x',
      '管理画面のパスワードを Winter2024! に変えた',
      'パスワードは「correct horse battery」です',
      'パスワードは `hunter22` に設定しました',
      'ステージングのパスワード: admin',
      '"パスワード": "Winter2024!"',
      'APIキー: 3f9a8c7d6e5b4a3928171615141312ab',
      'OpenAIのAPI キーは kq7Lm2Zx9Vb4Nw8Rt3Yu です',
      '秘密鍵は AbCdEf123456GhIjKl7890 です',
      'Botトークン＝Zq8Wx7Cv6Bn5Mm4Ll3',
      '本番DBのpasswordは Pg9Kq2Mx7Zw です',
      'api keyは Rt3Yu7Io1Pa5Sd9Fg2Hj',
      '密码: Zq8Wx7Cv6Bn5',
      '密码是 Tr0ub4dor3x',
      '비밀번호: Sup3rS3cret!',
      '비밀번호는 Tr0ub4dor3x 입니다',
      'パスワードは hogehoge です',
      '管理者のパスワードは admin だよ',
      'Wi-Fiのパスワードを opensesame に変えた',
      'パスワードを hogehoge にしました',
      '비밀번호는 sunshine 입니다',
      'wifiのパスワードはsunshine',
      'Wi-Fiのパスは sunflower77 です',
      'Wi-Fiのパスワード教えるね、sunflower77',
      'APIキーを送ります: kq7Lm2Zx9Vb4Nw8Rt3Yu',
      'ルーターのパス: Tr0ub4dor3x',
      'ステージングのパスワード、Winter2024xにしといて',
      'パスワード→ Winter2024x',
      'APIキーはこれ: 9fK2mQ7xLp4Rt8Zq',
      'リカバリーコードは 8H3K-9QWE-22LX です',
      'パスワード？ hunter22 だよ',
      'wifiのパスワード？ sunshine42',
      'パスワードはsunshineでログインできます',
      'パスワードは marigold、ユーザー名は admin',
      '密码是 sunshine',
      '비밀번호는 bluebird',
    ],
    negatives: [
      'パスワード、トークン、APIキーを保存する',
      'ビルドのパスは src/app です',
      'パスワードを教えるね、あとで',
      'パスワード教えるね、ちょっと待って',
      'Wi-Fiのパスポート番号 AB1234567',
      'Wi-Fiのパスは設定画面で確認',
      'パスワード、SSH2 の鍵、証明書',
      'パスワード → 1Password に移した',
      'パスワード→bcrypt でハッシュ化',
      'APIキーはこれ: 未設定',
      'リカバリーコードは 印刷して保管',
      'パスワードは8文字以上にする',
      'パスワードは 12 文字以上',
      'トークンは JWT 形式で返す',
      'パスワードは bcrypt でハッシュ化する',
      'パスワードは argon2id でハッシュ化',
      'パスワード？ argon2id でハッシュ化',
      'パスワード？ bcrypt で保存',
      'APIキー？ .env にある',
      'パスワードは AES-256-GCM で暗号化して保存',
      'APIキーは環境変数 OPENAI_API_KEY に入れる',
      'APIキーは .env に置く',
      'APIキーは config.yaml に書く',
      'トークンは localStorage に保存しない',
      'トークンを refresh_token2 で更新',
      'パスワードは 1Password で管理',
      'パスワードは bcrypt です',
      'パスワードは null です',
      'トークンは stateless です',
      'トークンは Bearer です',
      'パスワードは Keychain に保存した',
      'パスワードは dangerous だと思う',
      '秘密鍵は ~/.ssh/id_ed25519 にある',
      'パスワード: ${DB_PASSWORD}',
      'トークンを process.env.GITHUB_TOKEN から読む',
      'パスワードリセットのメールを送る',
      'トークンの有効期限は 3600 秒',
      'トークンが expired になった',
      'トークン: string',
      'パスワードを reset-password.ts で検証する',
      'トークン ID: 42',
      'シークレットは Secrets Manager に置く',
      'トークンは Authorization ヘッダーで送る',
      'max_tokensは 4096',
      '비밀번호는 8자 이상',
      '암호화 방식은 AES-256',
      '密码: ${DB_PASSWORD}',
      'パスワードは bcrypt',
      'パスワードは required、トークンは optional',
      'パスワードは Keychain',
    ],
  },
  {
    kind: 'secret',
    // A password named in German, French, Spanish, Portuguese or Russian ("Passwort: …", "le mot de
    // passe est …", "la contraseña es …", "senha: …", "пароль: …"): as after an English label, the
    // value must hold letters and digits, or be quoted.
    re: new RegExp(`(?<pre1>(?:\\b(?:passwort|kennwort|mot de passe|contrase[ñn]a|senha)|п(?<![\\u0400-\\u04FF]п)ароль)[\\t ]*(?:[:：=][\\t ]*|[\\t ]+(?:ist|lautet|war|est|était|es|era|é|была?|было)[\\t ]+|[\\t ]+)(?<q>["'\`«]?))${NOT_A_VALUE}[^\\s"'\`»]{3,511}[^\\s"'\`»),;\\]}.?](?=\\k<q>|»)`, 'gi'),
    accept: (secret, pre, after) => !/\s/.test(secret) && labelledValue(secret, pre, after, /["'`«]$/.test(pre), true),
    positives: ['Passwort: Winter2024', 'das Passwort ist Winter2024!', 'le mot de passe est Winter2024', 'mot de passe : Winter2024', 'la contraseña es Winter2024', 'contraseña: Winter2024', 'senha: Winter2024', 'пароль: Winter2024', 'Kennwort lautet "sonnenschein"'],
    negatives: ['Passwort: vergessen?', 'mot de passe : requis', 'la contraseña es incorrecta', 'senha: 8 caracteres', 'пароль: неверный', 'Passwortmanager2 installiert', 'le mot de passe est haché avec bcrypt'],
  },
  {
    kind: 'secret',
    // A login as a pair in a sentence (pairSecret says which count): the password after the user name.
    re: new RegExp(`(?<pre1>${PAIR_LABEL}(?<q>["'\`]?)[\\w.@+-]{1,64}(?:[\\t ]*/[\\t ]*|:))(?!//)${NOT_A_VALUE}[^\\s"'\`\\u0080-\\uffff]{3,127}[^\\s"'\`\\u0080-\\uffff),;\\]}.?](?=\\k<q>)`, 'gi'),
    accept: pairSecret,
    positives: [
      'the credentials are admin:hunter22',
      'creds for the staging box are deploy:Winter2024',
      'login: deploy / Winter2024',
      'the login is admin/Winter2024!',
      'username/password: admin / opensesame9',
      'ログイン情報は admin / Winter2024 です',
      '認証情報: ci-bot:9f8e7d6c5b4a',
      'the credentials are admin:sunshine.',
      'log in with admin / P@ssw0rd123 and open the dashboard',
      'sign in to staging using deploy:Winter2024',
    ],
    negatives: [
      'the credentials are user:pass',
      'login: username/password',
      'the credentials are stored in Vault',
      'login: auth/callback2',
      'login at 10:30',
      'Login: 10:30:45',
      'the login is root@db.internal:5432',
      'the credentials are gcloud:default',
      'login: git@github.com:org/repo.git',
      'logins: 3/5 failed',
      'ログインは GitHub/OAuth2 で',
      'credentials: include',
      'the credentials are in ~/.aws/credentials',
      'login: admin/settings',
      'the login is alice@example.com:accepted',
      'sign in with google:oauth',
      'log in with email / password',
      'login with SSO/SAML2',
      'log in with GitHub/OAuth2 first',
    ],
  },
  {
    kind: 'secret',
    // A login said as "log in as admin with P@ssw0rd123": after the user name, what only a password
    // looks like (eight or more characters, lowercase and digits with a capital or a symbol, no
    // name with a version: `OAuth2`, `SAML2SSO`); "with password …" is the labelled rule's.
    re: /(?<pre1>\b(?:log(?:ged)?[\t -]?in|sign(?:ed)?[\t -]?in)[\t ]+as[\t ]+[\w.@+-]{1,64}[\t ]+(?:with|using)[\t ]+)[^\s"'`\u0080-\uffff]{7,127}[^\s"'`\u0080-\uffff),;\]}.?]/gi,
    accept: (secret, _pre, after) => /\d/.test(secret) && /[a-z]/.test(secret) && /[A-Z]|[^A-Za-z0-9]/.test(secret) && !NAME_WITH_VERSION.test(secret) && !secret.includes('/') && !FILE_NAME.test(secret) && !SCHEME_NAME.test(secret) && !codeReference(secret, after),
    positives: ['sign in as admin with P@ssw0rd123', 'log in as deploy using Winter2024! then restart'],
    negatives: ['sign in as alice with Google', 'log in as root with OAuth2', 'log in as admin with SAML2SSO', 'log in as test with ~/.ssh/id_ed25519', 'log in as admin with the-new-flow'],
  },
  {
    kind: 'secret',
    // The new password of a change said in a sentence ("changed the password from Winter2024 to
    // Spring2025"); the old one is the prose rule's, after "from". Before it: a match holding a
    // redaction is left as it is.
    re: new RegExp(`(?<pre1>${PROSE_LABEL}${PROSE_FOR}[\\t ]+from[\\t ]+["'\`]?[^\\s"'\`]{4,128}["'\`]?[\\t ]+(?:to|->|→|=>)[\\t ]+(?<q>["'\`]?))${PROSE_VALUE}`, 'gi'),
    accept: proseSecret,
    positives: ['I changed the password from Winter2024 to Spring2025!', 'rotated the api key from Kq7Lm2Zx9Vb4Nw8Rt3 → Zq8Wx7Cv6Bn5Mm4Ll3'],
    negatives: ['moved the password from Vault to 1Password', 'the token from localStorage to a cookie', 'changed the password from the admin panel to fix2024'],
  },
  {
    kind: 'secret',
    // A password set to a value in a sentence, a plain word too ("set the wifi password to
    // sunshine", "changed my password to coffee-shop-42"); without the verb, "to" after a password
    // is where it went ("sent the password to alice"). Before the prose rule, which asks letters and digits.
    re: new RegExp(`(?<pre1>\\b(?:${SETTING_VERB})\\b[^.!?\\n]{0,40}?${PROSE_LABEL}${PROSE_FOR}[\\t ]+to[\\t ]+(?<q>))${PROSE_VALUE}`, 'gi'),
    accept: proseSecret,
    positives: ['set the password to sunshine', 'I changed the wifi password to coffee-shop-42.', 'reset my password to marigold and log in', 'set the password to blue-whale-42 please'],
    negatives: ['set the password to expire.', 'change the password to something else', 'I sent the password to alice', 'set the password to blank', 'updated the password to be longer'],
  },
  {
    kind: 'secret',
    // The same, said in the passive ("the password was changed to marigold", "… has been set to …").
    re: new RegExp(`(?<pre1>${PROSE_LABEL}${PROSE_FOR}[\\t ]+(?:(?:is|was|has|had|have|will|should|must|got|gets|been|be|now|just)[\\t ]+){0,3}(?:${SET_PARTICIPLE})[\\t ]+to[\\t ]+(?<q>))${PROSE_VALUE}`, 'gi'),
    accept: proseSecret,
    positives: ['the password was changed to marigold.', 'the wifi password has been set to coffee-shop-42', 'the db password got rotated to Winter2024x'],
    negatives: ['the password should be set to expire', 'the password was changed to something stronger', 'the password was reset to the default'],
  },
  {
    kind: 'secret',
    // "pass" after a user's name is the password's label, not the verb ("user admin, pass
    // Winter2024", "login deploy pass Winter2024"); proseSecret asks letters and digits of it.
    re: new RegExp(`(?<pre1>\\b(?:user(?:name)?|login|id)[\\t ]*[:=]?[\\t ]*[\\w.@-]{1,64}[,;]?[\\t ]+pass[\\t ]+(?<q>))${PROSE_VALUE}`, 'gi'),
    accept: proseSecret,
    positives: ['user admin, pass Winter2024', 'login: deploy pass Tr0ub4dor3x'],
    negatives: ['user input, pass it to the parser', 'the user object, pass arg2 to it', 'user admin, pass the --force flag'],
  },
  {
    kind: 'secret',
    // A second password said after the first for another place ("the password for staging is
    // Winter2024 and for prod is Summer2025", "…, on the laptop it's …"); the first is the prose
    // rule's. Before it: a match holding a redaction is left as it is.
    re: new RegExp(`(?<pre1>${PROSE_LABEL}${PROSE_FOR}${PROSE_BINDING}["'\`]?[^\\s"'\`]{3,128}["'\`]?[,;]?[\\t ]+(?:and[\\t ]+)?(?:for|on)[\\t ]+(?:the[\\t ]+)?[\\w.-]{1,40}(?:[\\t ]+[\\w.-]{1,40})?,?[\\t ]+(?:is|was|it['’]s|it[\\t ]+is)[\\t ]+(?<q>["'\`]?))${PROSE_VALUE}`, 'gi'),
    accept: proseSecret,
    positives: ['the password for staging is Winter2024 and for prod is Summer2025', 'the wifi password for home is Winter2024x, on the office network it\'s Spring2025x'],
    negatives: ['the password for staging is rotated and for prod is unchanged', 'the token is in Vault and for CI is the same'],
  },
  {
    kind: 'secret',
    // A secret named in an English sentence (proseSecret says which values count). A final `!`
    // goes with it: passwords end so as often as sentences do (Winter2024!), and a mark lost costs nothing.
    re: new RegExp(`(?<pre1>${PROSE_LABEL}${PROSE_FOR}${PROSE_BINDING}(?<q>["'\`]?))${PROSE_VALUE}`, 'gi'),
    accept: proseSecret,
    positives: [
      'The password is hunter22',
      'the password for the staging DB is Winter2024!',
      'my api key is Kq7Lm2Zx9Vb4Nw8Rt3',
      'set the token to Zq8Wx7Cv6Bn5Mm4Ll3Kk2',
      'wifi password: Winter2024x',
      'I changed the root password to Tr0ub4dor3x yesterday',
      'the deploy token was "xq7-Lm2-Zx9"',
      'the admin password is `opensesame`',
      'the wifi password is sunshine',
      'the password is "correct horse battery staple"',
      'my password was bluebird, can you check it',
      'the admin password is now marigold.',
      'the password for the staging DB is opensesame and the user is admin',
      'username: admin password: sunshine',
      'login admin, password: marigold, host db1',
      'log in as admin with password Winter2024',
      'the root password? it\'s hunter22',
      'the wifi password? sunshine42',
      'password? hunter22 I think',
      'the password to the router is sunshine',
      'ssh root@10.0.0.5 (pw Winter2024)',
      'old password Winter2024, new password Spring2025',
      'user: admin pass: Winter2024',
      'ID：admin、PW：sunshine',
      'ID：admin　PW：Winter2024',
      'my sudo pw is sunshine',
      'the secret is Zq8Wx7Cv6Bn5Mm4Ll3',
      'use api key Kq7Lm2Zx9Vb4Nw8Rt3Yu for staging',
      'the VPN shared secret is t7Yq!kP2zz',
      'the client secret is 9fK2mQ7xLp',
      'the license key is QX7R-K2MP-99TZ-L4WB',
      'the recovery code is 8H3K-9QWE-22LX',
    ],
    negatives: [
      'the password is incorrect',
      'the password is at least 12 characters long',
      'the password? it\'s in 1Password',
      'the password, it\'s incorrect',
      'the password? it\'s the same as before',
      'the password? sunshine',
      'what is the password? check 1Password',
      'the token? it expires in 3600 seconds',
      'I sent the password to the team lead yesterday',
      'Reset the password: click the link in the mail',
      'the token is valid for 3600 seconds',
      'the token is a JWT signed with HS256',
      'the api key is stored in Vault',
      'the password is hashed with bcrypt',
      'the password is hashed with argon2id',
      'set the token to process.env.GITHUB_TOKEN',
      'the secret key is in config.yaml',
      'the access token is refreshed every 15 minutes',
      'the password was changed on 2024-03-01',
      'pwd is /home/u/app2',
      'the token is used by oauth2-proxy',
      'the password is: required',
      'the token is JwtV2Auth',
      'the secret is sha256sum',
      'the secret is v2BetaKey',
      'the license key is in the welcome email',
      'the encryption key is AES256',
      'the recovery code is printed on the card',
      'the token: string',
      'token = get_token(user_id=42)',
      'api_key = keys[2]',
      '"text": "Check that your password is correct.\\n3. Move closer to the router"',
      'the password is hashed.',
      'password: "must be at least 8 characters"',
      "password: 'Passwords do not match'",
      'the password field says "must be 12 characters"',
      'the source argument for a token is `args[token.index]`',
      'the password is below:',
      'the password is different, and longer',
      'the password was lost.',
      'the password is overwritten',
      'the password is great',
      'the password is Sunshine',
      'my password is something',
      'pwd is server.',
      'if password is sentinel:',
      'Reset the password: click the link',
      'new password: required.',
      'the password reset flow for user42',
      'the password \'reset\' flow',
      'pass arg2 to the function',
      'tests pass: 42/42',
      '--- PASS: TestParse2 (0.00s)',
      'PASS: TestV2API',
      'the secret is out',
      'secret santa 2024',
      'use the token in the header',
      'the password field in LoginForm2',
      'the pw is wrong',
      'the api key v2 format',
      'moved the password from Vault to 1Password',
      'the token 3 times',
      'kubectl get secret app-tls-2024 -o yaml',
      'kubectl describe secret regcred2',
      'the password sha512crypt hash',
      '<h3 id="token-behavior">Token Behavior</h3>',
    ],
  },
];

/**
 * Kubernetes Secret manifests: every value under `data:` (base64) or `stringData:` of a
 * document whose `kind` is Secret is a secret, whatever its key is called.
 */
export function redactKubernetesSecrets(text: string, onSecret: (value: string) => string): string {
  if (!/^\s*kind:\s*["']?Secret["']?\s*$/m.test(text)) return text;
  const lines = text.split('\n');
  let inDoc = false;
  let block = -1; // indentation of the data:/stringData: key while inside its block
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (/^---/.test(line)) {
      inDoc = false;
      block = -1;
      continue;
    }
    // The document is a Secret if it says so anywhere in it: look ahead to its end.
    if (!inDoc) {
      let j = i;
      while (j < lines.length && !/^---/.test(lines[j] as string)) {
        if (/^\s*kind:\s*["']?Secret["']?\s*$/.test(lines[j] as string)) inDoc = true;
        j++;
      }
      if (!inDoc) {
        i = j - 1;
        continue;
      }
    }
    const indent = line.length - line.trimStart().length;
    if (block >= 0 && line.trim().length > 0 && indent <= block) block = -1;
    const head = /^(\s*)(?:data|stringData):\s*$/.exec(line);
    if (head) {
      block = (head[1] as string).length;
      continue;
    }
    if (block < 0) continue;
    const kv = /^(\s+[A-Za-z0-9_.-]+:\s*["']?)([^"'\s#][^"'#]*?)(["']?\s*)$/.exec(line);
    if (kv && !isPlaceholder(kv[2] as string)) lines[i] = `${kv[1]}${onSecret(kv[2] as string)}${kv[3]}`;
  }
  return lines.join('\n');
}

/** Text that must survive every rule (look-alikes of no particular kind). */
/**
 * The passes that are code rather than a rule of the table, each with a version: a new one, or
 * one that changes what it takes, is another entry here, so that memories stored before it are
 * read again (app/session/scrub-check.ts fingerprints the table and these).
 */
export const REDACTION_PASSES = ['kubernetes-secrets 1', 'cookies 1'];

/**
 * Cookies are credentials: a session cookie logs in whoever holds it. In a `Cookie:` header (a
 * request dump, `curl -H 'cookie: …'` as a browser's "Copy as cURL" writes it) and in `curl -b` /
 * `--cookie`, every value that looks generated (16+ characters, letters and digits) is replaced;
 * in `Set-Cookie:` the first pair is the cookie, the rest its attributes (`Path=/; HttpOnly`),
 * which stay. Names stay (`session=`), and so do short values (`theme=dark`) and references.
 * One pass over each header's line: linear in the text.
 */
const COOKIE_HEAD = /\b(set-)?cookie["']?[\t ]*:[\t ]*|(?<=^|[\t ])(?:-b|--cookie)(?:[\t ]+|=)(?=["']?[^\s'"=;]{1,128}=)/gim;
const COOKIE_PAIR = /(^|;[\t ]*)([^\s=;,'"]{1,128}=)("?)([^\s;,'"]*)/g;

export function redactCookies(text: string, onSecret: (value: string) => string): string {
  if (!/cookie|-b[\t ]/i.test(text)) return text;
  let out = '';
  let last = 0;
  for (const m of text.matchAll(COOKIE_HEAD)) {
    let from = m.index + m[0].length;
    if (m.index < last) continue;
    // The header's value runs to the end of its line or to the quote that closes it.
    const lineEnd = text.indexOf('\n', from);
    const stop = lineEnd < 0 ? text.length : lineEnd;
    const quote = text[from] === '"' || text[from] === "'" ? text[from] : undefined;
    if (quote) from++;
    const close = quote ? text.indexOf(quote, from) : -1;
    const to = close >= 0 && close < stop ? close : stop;
    let n = 0;
    const value = text.slice(from, to).replace(COOKIE_PAIR, (pair: string, lead: string, name: string, q: string, v: string) => {
      n++;
      if (m[1] !== undefined && n > 1) return pair;
      if (v.length < 16 || !/\d/.test(v) || !/[A-Za-z]/.test(v) || isPlaceholder(v) || v.includes('[REDACTED:')) return pair;
      return `${lead}${name}${q}${onSecret(v)}`;
    });
    out += text.slice(last, from) + value;
    last = to;
  }
  return out + text.slice(last);
}

export const GENERAL_NEGATIVES: string[] = [
  // Path segments of ordinary URLs: commit ids, slugs, object names.
  'https://github.com/acme/api/blob/9f8e7d6c5b4a39281706f5e4d3c2b1a098765432/src/token.ts',
  'https://docs.example.com/v2/reference/api-keys/rotate-4f3a9b2c1d8e7f6a',
  'https://storage.googleapis.com/bucket-a1b2c3/objects/Xk9fL2mQ8rT4vW7yZ1aB3cD5eF',
  'see https://example.com/download/a8F3kL9mN2pQ5rS8tU1vW4xY7zB0cD3e/file.zip',
  'commit 3f786850e387550fdab836ed7e6dc881de23001b fixed it',
  'sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  'request id 123e4567-e89b-12d3-a456-426614174000',
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'integrity sha512-Q3j5mJ0m7v1w0qYJ8m0Vf6xXl4Wb2q3w9hS0c1o5N2e8eS1aB9C0dE3fG4hI5jK6lM7nO8pQ9rS0tU1vW2xY3zA==',
  '認証トークンの有効期限',
  'the model has 4096 max tokens and a tokenizer',
  'import { createHash } from "node:crypto"',
  'git push --force-with-lease origin main',
  'SELECT password_hash FROM users WHERE id = $1',
];
