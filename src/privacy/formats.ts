/**
 * The person's own secret formats (`[privacy] secret_formats`): an internal token no public
 * rule knows (`acme_live_*`, `CORP-????-????`), redacted everywhere redaction runs, as
 * `[REDACTED:custom]`. Pure.
 *
 * A format is literal text with two wildcards, not a regular expression: `*` is a run of
 * token characters (letters, digits and `_-.+/=~`, up to 512) and `?` is one of them. A
 * regular expression typed by hand can take exponential time on one long line (`(a+)+`), and
 * redaction runs on every turn; a format compiles to an expression with one bounded run at
 * most, so it takes time in proportion to the text.
 */

const TOKEN_CHAR = 'A-Za-z0-9_\\-.+/=~';
/** Characters a format must spell out besides its wildcards: fewer would match ordinary words. */
const LITERAL_MIN = 3;

/** What is wrong with a format, in words for the settings' error; undefined when it is usable. */
export function formatProblem(format: string): string | undefined {
  const literal = format.replace(/[*?]/g, '');
  if (/\s/.test(format)) return `"${format}" holds a space: a secret format is one token (letters, digits, _-.+/=~, with * and ?)`;
  if (literal.length < LITERAL_MIN) return `"${format}" spells out ${literal.length} character(s): write at least ${LITERAL_MIN} besides * and ? (a prefix such as acme_live_*), or it would match ordinary words`;
  if ((format.match(/\*/g) ?? []).length > 1) return `"${format}" has more than one *: one * per format (each more multiplies the time a long line takes)`;
  return undefined;
}

/** The formats as expressions, compiled once per run (settings validated them: formatProblem). */
export function compileFormats(formats: readonly string[]): RegExp[] {
  return formats.filter((f) => formatProblem(f) === undefined).map(compileFormat);
}

function compileFormat(format: string): RegExp {
  let re = '';
  for (const c of format) {
    // A run that ends on a letter, digit, _ or = (base64's padding): a sentence's full stop stays.
    if (c === '*') re += `[${TOKEN_CHAR}]{0,511}[A-Za-z0-9_=]`;
    else if (c === '?') re += `[${TOKEN_CHAR}]`;
    else re += c.replace(/[.+^${}()|[\]\\/-]/g, '\\$&');
  }
  // Not inside a longer word (`token=acme_live_…` is found; `notacme_live_…` is not).
  return new RegExp(`(?<![A-Za-z0-9_])${re}(?![A-Za-z0-9_])`, 'g');
}
