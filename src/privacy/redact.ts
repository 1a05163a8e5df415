/**
 * Remove what must never be pushed to a git remote: `<private>` spans and secrets (the
 * rules and their examples: rules.ts). Pure. Applied to every stored field before anything
 * is written to JSONL.
 */
import type { MemoryRecord } from '../types.js';
import { isPlaceholder, redactCookies, redactKubernetesSecrets, SECRET_RULES } from './rules.js';

export interface RedactResult {
  text: string;
  /** Kind → how many replacements. */
  counts: Record<string, number>;
  /** The secret strings themselves (for `scrub`'s history-rewrite file); never written to JSONL. */
  found: string[];
}

/** `<private>…</private>`, also with attributes (`<private reason="…">`); an unclosed tag runs to the end. */
const PRIVATE_RE = /<private(?:\s[^>]*)?>[\s\S]*?(?:<\/private\s*>|$(?![\s\S]))/gi;

const tag = (kind: string) => `[REDACTED:${kind}]`;

export function removePrivate(text: string): string {
  return text.replace(PRIVATE_RE, '');
}

/** How much of the text after a match a rule's `accept` reads: "… to sunshine please", "… を hoge にしました". */
const AFTER_CHARS = 12;

/**
 * Today's rules, and first the person's own formats (`own`: privacy/formats.ts compileFormats
 * of `[privacy] secret_formats`), whose whole match is the secret.
 */
export function redactSecrets(text: string, own: readonly RegExp[] = []): RedactResult {
  const counts: Record<string, number> = {};
  const found: string[] = [];
  let out = text;
  for (const re of own) {
    out = out.replace(re, (match) => {
      counts.custom = (counts.custom ?? 0) + 1;
      found.push(match);
      return tag('custom');
    });
  }
  for (const rule of SECRET_RULES) {
    out = out.replace(rule.re, (...args: unknown[]) => {
      const match = args[0] as string;
      const last = args[args.length - 1];
      const named = typeof last === 'object' && last !== null;
      const groups = (named ? last : {}) as Record<string, string | undefined>;
      const offset = args[args.length - (named ? 3 : 2)] as number;
      const whole = args[args.length - (named ? 2 : 1)] as string;
      const pre = groups.pre1 ?? groups.pre2 ?? groups.pre3 ?? groups.pre4 ?? '';
      const post = groups.post ?? '';
      const secret = match.slice(pre.length, match.length - post.length);
      // Already redacted by an earlier rule (a DSN's key looks like a URL user): leave it.
      if (match.includes('[REDACTED:') || secret.trim().length === 0) return match;
      // Placeholders and references stay byte for byte: `${TOKEN}`, `ghp_xxxx…`, AWS's example.
      if (isPlaceholder(secret)) return match;
      if (rule.accept && !rule.accept(secret, pre, whole.slice(offset + match.length, offset + match.length + AFTER_CHARS))) return match;
      const kind = rule.kindOf ? rule.kindOf(groups) : rule.kind;
      counts[kind] = (counts[kind] ?? 0) + 1;
      found.push(secret);
      return `${pre}${tag(kind)}${post}`;
    });
  }
  out = redactKubernetesSecrets(out, (value) => {
    if (value.includes('[REDACTED:')) return value;
    counts['kubernetes-secret'] = (counts['kubernetes-secret'] ?? 0) + 1;
    found.push(value);
    return tag('kubernetes-secret');
  });
  out = redactCookies(out, (value) => {
    counts.cookie = (counts.cookie ?? 0) + 1;
    found.push(value);
    return tag('cookie');
  });
  return { text: out, counts, found };
}

/** `<private>` removal always; secret redaction when `[privacy] redact` is on. */
export function cleanText(text: string, redact: boolean, own: readonly RegExp[] = []): RedactResult {
  const privateSpans = text.match(PRIVATE_RE) ?? [];
  const noPrivate = removePrivate(text).trim();
  const res = redact ? redactSecrets(noPrivate, own) : { text: noPrivate, counts: {}, found: [] };
  if (privateSpans.length > 0) {
    res.counts.private = privateSpans.length;
    res.found.push(...privateSpans);
  }
  return res;
}

/** Every field that reaches git, as one comparable value: what scrub calls "changed" (the same fields cleanRecordFields cleans). */
export function storedFieldsKey(r: MemoryRecord): string {
  return JSON.stringify([r.question, r.answer, r.project, r.cwd, r.git_branch, r.files, r.extra?.tools, r.extra?.file_blobs, r.extra?.repo_files, r.extra?.repo]);
}

/**
 * Apply `clean` to every stored field besides question and answer: a token in a folder
 * name, a branch name or a file path would otherwise be repeated in every memory of the
 * session. Capture and scrub share it, so both cover the same fields.
 */
export function cleanRecordFields(r: MemoryRecord, clean: (s: string) => string): MemoryRecord {
  if (r.project !== undefined) r.project = clean(r.project);
  if (r.cwd !== undefined) r.cwd = clean(r.cwd);
  if (r.git_branch !== undefined) r.git_branch = clean(r.git_branch);
  if (r.files) r.files = r.files.map(clean);
  const tools = r.extra?.tools;
  if (r.extra && Array.isArray(tools)) r.extra = { ...r.extra, tools: tools.map((t) => (typeof t === 'string' ? clean(t) : t)) };
  // File states name the same files (and a repository): cleaned alike, so scrub reaches them too.
  const blobs = r.extra?.file_blobs;
  if (r.extra && Array.isArray(blobs)) {
    r.extra = {
      ...r.extra,
      file_blobs: blobs.map((b) => {
        const o = b as { file?: unknown; path?: unknown };
        return o && typeof o === 'object' ? { ...o, ...(typeof o.file === 'string' ? { file: clean(o.file) } : {}), ...(typeof o.path === 'string' ? { path: clean(o.path) } : {}) } : b;
      }),
    };
  }
  const inRepo = r.extra?.repo_files;
  if (r.extra && Array.isArray(inRepo)) r.extra = { ...r.extra, repo_files: inRepo.map((p) => (typeof p === 'string' ? clean(p) : p)) };
  if (r.extra && typeof r.extra.repo === 'string') r.extra = { ...r.extra, repo: clean(r.extra.repo) };
  return r;
}

const TAG_RE = /\[REDACTED:([a-z0-9-]+)\]/g;

/** The redactions a record's text fields hold, by kind. */
export function redactionKinds(r: { question: string; answer: string; cwd?: string | null; git_branch?: string | null; files?: string[] | string | null }): Record<string, number> {
  const files = Array.isArray(r.files) ? r.files.join('\n') : (r.files ?? '');
  const out: Record<string, number> = {};
  for (const s of [r.question, r.answer, r.cwd ?? '', r.git_branch ?? '', files]) {
    for (const m of s.matchAll(TAG_RE)) out[m[1] as string] = (out[m[1] as string] ?? 0) + 1;
  }
  return out;
}
