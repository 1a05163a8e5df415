/**
 * What a person's machine would publish to a team, and what it must hold back. Pure: records
 * and decisions in, a verdict out.
 *
 * A memory goes only when both keys turn — the team's team.toml accepts its repository and the
 * person shares that project — after waiting `review_delay_h` in the outbox (from when it first
 * entered it: memories of a project shared today wait a full window too). A memory in which
 * anything was redacted, or that a stricter secret detector flags at all (today's rules, and a
 * long token that looks generated, which the personal rules leave alone when no name says
 * "secret"), is held: never redacted-and-sent, because a push to a team cannot be taken back
 * from its clones. Held memories wait for the person's `release`; withheld ones never go.
 */
import { redactionKinds, redactSecrets } from '../privacy/redact.js';
import { entropy } from '../privacy/rules.js';
import type { MemoryRecord } from '../types.js';

export { latestDecisions, type Decision } from './decisions.js';

/** Why a memory is held, in words that never repeat the secret; undefined when it may go. */
export function heldReason(r: Pick<MemoryRecord, 'question' | 'answer' | 'cwd' | 'git_branch' | 'files' | 'extra'>, own: readonly RegExp[] = []): string | undefined {
  if (r.extra?.private_removed === true) return 'a <private> span was removed from it';
  const kinds = redactionKinds({ question: r.question, answer: r.answer, cwd: r.cwd ?? null, git_branch: r.git_branch ?? null, files: r.files ?? null });
  if (Object.keys(kinds).length > 0) return `it was redacted (${Object.entries(kinds).map(([k, n]) => `${k} ×${n}`).join(', ')})`;
  const text = `${r.question}\n${r.answer}`;
  const now = redactSecrets(text, own);
  const fired = Object.keys(now.counts);
  if (fired.length > 0) return `a secret detector fires on it (${fired.join(', ')})`;
  if (generatedToken(text)) return 'it holds a long token that looks generated (a key, a token, a password?)';
  return undefined;
}

const TOKEN = /[A-Za-z0-9+/_=-]{24,}/g;

/**
 * A token that looks generated: 24+ characters of letters and digits mixed, about 4 bits a
 * character — the shape of an unknown provider's key. Left alone: hex (hashes, commit ids),
 * UUIDs, words and paths (a lowercase identifier with separators), base64 of many lines.
 */
export function generatedToken(text: string): boolean {
  for (const m of text.matchAll(TOKEN)) {
    const t = m[0];
    if (/^[0-9a-f]+$/i.test(t)) continue; // a hash, a commit id
    if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(t)) continue;
    if (/^[a-z][a-z0-9]*(?:[_/.-][a-z0-9]+)+$/.test(t)) continue; // snake-case words, a path
    if (/^[A-Za-z]+$/.test(t)) continue; // one long word
    const digits = t.replace(/\D/g, '').length;
    const upper = t.replace(/[^A-Z]/g, '').length;
    const lower = t.replace(/[^a-z]/g, '').length;
    const classes = [digits > 0, upper > 0, lower > 0].filter(Boolean).length;
    if (classes >= 2 && digits >= 2 && entropy(t) >= 4) return true;
  }
  return false;
}

/**
 * The record a team receives: the turn, its time, the repository-relative files, the model's
 * vector, and its author — never the working folder, an absolute path, the person's own project
 * name for it, or any field this version does not know (a later one may carry what must not go).
 */
export function teamRecord(r: MemoryRecord, opts: { author: string; project: string; repo: string; model?: string }): MemoryRecord {
  const relative = (f: string) => !f.startsWith('/') && !/^[A-Za-z]:[\\/]/.test(f) && !f.startsWith('~');
  const blobs = Array.isArray(r.extra?.file_blobs) ? (r.extra.file_blobs as Array<{ path?: unknown; blob?: unknown }>) : [];
  // A recorded file becomes the path inside its repository (file_blobs knows it); one outside it is not sent.
  const inRepo = Array.isArray(r.extra?.repo_files) ? (r.extra.repo_files as unknown[]).filter((p): p is string => typeof p === 'string' && relative(p)) : [];
  const files = blobs.length > 0 || inRepo.length > 0 ? [...blobs.map((b) => b.path).filter((p): p is string => typeof p === 'string' && relative(p)), ...inRepo] : (r.files ?? []).filter(relative);
  const out: MemoryRecord = {
    v: 1,
    id: r.id,
    machine: r.machine,
    timestamp: r.timestamp,
    question: r.question,
    answer: r.answer,
    project: opts.project,
    ...(r.updated_at ? { updated_at: r.updated_at } : {}),
    ...(r.session_id ? { session_id: r.session_id } : {}),
    ...(r.git_branch ? { git_branch: r.git_branch } : {}),
    ...(files.length > 0 ? { files: [...new Set(files)] } : {}),
    ...(r.source ? { source: r.source } : {}),
    extra: {
      author: opts.author,
      repo: opts.repo,
      ...(typeof r.extra?.head_commit === 'string' ? { head_commit: r.extra.head_commit } : {}),
      ...(blobs.length > 0 ? { file_blobs: blobs.filter((b) => typeof b.path === 'string' && relative(b.path)).map((b) => ({ file: b.path, path: b.path, blob: b.blob ?? null })) } : {}),
    },
  };
  if (r.embedding && r.model && (!opts.model || opts.model === r.model)) {
    out.embedding = r.embedding;
    out.model = r.model;
    if (r.dim !== undefined) out.dim = r.dim;
  }
  return out;
}
