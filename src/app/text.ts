/** Cutting text for display, shared by every front end. */

/** The start of a text with a visible " […]" where it was cut (whitespace kept). */
export function excerpt(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max).join('').trimEnd()} […]`;
}
