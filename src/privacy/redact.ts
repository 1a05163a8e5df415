/**
 * Remove what must never be pushed to a git remote: `<private>` spans and secrets.
 * Pure. Applied to question and answer before anything is written to JSONL.
 */

export interface RedactResult {
  text: string;
  /** Kind → how many replacements. */
  counts: Record<string, number>;
  /** The secret strings themselves (for `scrub`'s history-rewrite file); never written to JSONL. */
  found: string[];
}

const PRIVATE_RE = /<private>[\s\S]*?(?:<\/private>|$(?![\s\S]))/gi;

interface Rule {
  kind: string;
  re: RegExp;
  /** Replacement; `$1`… refer to groups that are kept. */
  replace: (kind: string) => string;
}

const tag = (kind: string) => `[REDACTED:${kind}]`;
const whole = (kind: string) => tag(kind);

// Values that name a type or a placeholder, not a secret: `password: string`, `token = None`.
const NOT_A_VALUE =
  '(?!(?:string|number|boolean|null|undefined|none|true|false|str|int|bytes|any|object|optional|required|\\*+|x+|\\.\\.\\.|<[^>]*>|\\$\\{[^}]*\\}|\\$[A-Z_]+|\\[REDACTED)\\b)(?!(?:process\\.env|os\\.environ|env\\.|config\\.|self\\.|this\\.|settings\\.))';
const SECRET_NAME = '[A-Za-z0-9_.-]*(?:secret|token|passw(?:or)?d|passwd|pwd|api[_-]?key|apikey|access[_-]?key|private[_-]?key|client[_-]?secret|auth[_-]?key|credentials?)[A-Za-z0-9_.-]*';

const RULES: Rule[] = [
  { kind: 'private-key', re: /-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY-----[\s\S]*?(?:-----END \1PRIVATE KEY-----|$(?![\s\S]))/g, replace: whole },
  { kind: 'jwt', re: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, replace: whole },
  { kind: 'anthropic-key', re: /\bsk-ant-[A-Za-z0-9_-]{20,}/g, replace: whole },
  { kind: 'openai-key', re: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g, replace: whole },
  { kind: 'github-token', re: /\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b/g, replace: whole },
  { kind: 'aws-access-key', re: /\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b/g, replace: whole },
  { kind: 'slack-token', re: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, replace: whole },
  { kind: 'slack-webhook', re: /https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9/_-]+/g, replace: whole },
  { kind: 'stripe-key', re: /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b/g, replace: whole },
  { kind: 'google-api-key', re: /\bAIza[0-9A-Za-z_-]{35}\b/g, replace: whole },
  // scheme://user:password@host — keep the user and host, drop the password.
  { kind: 'password', re: /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@]+):([^\s@/]+)@/gi, replace: (k) => `$1:${tag(k)}@` },
  // "api_key": "value"  /  'client_secret': 'value'
  {
    kind: 'secret',
    re: new RegExp(`(["'](?:${SECRET_NAME})["']\\s*:\\s*)(["'])${NOT_A_VALUE}(?!\\2)[^"'\\n]{4,}\\2`, 'gi'),
    replace: (k) => `$1$2${tag(k)}$2`,
  },
  // API_KEY=value, password: value, export GITHUB_TOKEN="value"
  {
    kind: 'secret',
    re: new RegExp(`\\b(${SECRET_NAME}\\s*[=:]\\s*)(["']?)${NOT_A_VALUE}([^\\s"'\`,;(){}\\[\\]]{4,})\\2(?=[\\s"'\`,;)}\\]]|$)`, 'gi'),
    replace: (k) => `$1$2${tag(k)}$2`,
  },
];

export function removePrivate(text: string): string {
  return text.replace(PRIVATE_RE, '');
}

export function redactSecrets(text: string): RedactResult {
  const counts: Record<string, number> = {};
  const found: string[] = [];
  let out = text;
  for (const rule of RULES) {
    out = out.replace(rule.re, (...args: unknown[]) => {
      const match = args[0] as string;
      if (match.includes('[REDACTED:')) return match;
      counts[rule.kind] = (counts[rule.kind] ?? 0) + 1;
      const groups = args.slice(1, -2) as Array<string | undefined>;
      const replaced = rule.replace(rule.kind).replace(/\$(\d)/g, (_, n: string) => groups[Number(n) - 1] ?? '');
      // What disappeared is the secret: the match minus the parts kept around it.
      const kept = groups.filter((g): g is string => typeof g === 'string' && g.length > 0 && replaced.includes(g));
      let secret = match;
      for (const k of kept) secret = secret.replace(k, '');
      found.push(secret.replace(/^["']|["']$/g, ''));
      return replaced;
    });
  }
  return { text: out, counts, found };
}

/** `<private>` removal always; secret redaction when `[privacy] redact` is on. */
export function cleanText(text: string, redact: boolean): RedactResult {
  const privateSpans = text.match(PRIVATE_RE) ?? [];
  const noPrivate = removePrivate(text).trim();
  const res = redact ? redactSecrets(noPrivate) : { text: noPrivate, counts: {}, found: [] };
  if (privateSpans.length > 0) {
    res.counts.private = privateSpans.length;
    res.found.push(...privateSpans);
  }
  return res;
}
