/**
 * The shape of one redaction rule, shared by the general rules (rules.ts) and the provider
 * rules (providers.ts): a module of its own, so neither imports the other for it.
 */
export interface SecretRule {
  kind: string;
  /** Global regular expression. Groups `pre1`…`pre4` (before) and `post` (after) are kept around the secret. */
  re: RegExp;
  /** Text that must be redacted by this rule (a `[REDACTED:kind]` appears, the secret part goes). */
  positives: string[];
  /** Look-alikes that must survive the whole rule set untouched. */
  negatives: string[];
  /**
   * Whether a matched value is a secret after all (`pre`: the text kept before it, e.g. the
   * name it is assigned to; `after`: a few characters that follow the match). Absent: every
   * match that is not a placeholder is.
   */
  accept?: (secret: string, pre: string, after: string) => boolean;
  /** The kind of one match, when the rule covers several (a provider named in the match). */
  kindOf?: (groups: Record<string, string | undefined>) => string;
}
