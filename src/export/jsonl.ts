/**
 * JSONL format v1: encode and decode one line. Pure: no I/O.
 *
 * Embeddings are base64 of little-endian float32 (lossless, ~2.5x smaller than a decimal
 * array and far faster to parse); number arrays (the seed format) are accepted on read.
 */
import { isTombstone, type ExportEntry, type MemoryRecord, type SkipReason, type Tombstone } from '../types.js';

export const FORMAT_VERSION = 1;

/** Fields with a meaning in v1, in the order they are written. */
const KNOWN = [
  'v', 'id', 'deleted', 'session_id', 'project', 'machine', 'timestamp', 'updated_at', 'question', 'answer',
  'cwd', 'git_branch', 'files', 'source', 'model', 'dim', 'embedding',
] as const;
const KNOWN_SET = new Set<string>(KNOWN);

export type Decoded = { ok: true; entry: ExportEntry } | { ok: false; reason: SkipReason; message: string };

export function encodeEmbedding(v: Float32Array): string {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
}

export function decodeEmbedding(value: unknown): Float32Array | undefined {
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'base64');
    if (bytes.length === 0 || bytes.length % 4 !== 0) return undefined;
    const out = new Float32Array(bytes.length / 4);
    new Uint8Array(out.buffer).set(bytes);
    return out.every(Number.isFinite) ? out : undefined;
  }
  if (Array.isArray(value) && value.length > 0 && value.every((x) => typeof x === 'number' && Number.isFinite(x))) {
    return Float32Array.from(value as number[]);
  }
  return undefined;
}

/**
 * An ISO-8601 time with a four-digit year. Extended years (`+275760-09-13…`) parse as valid
 * dates but no clock writes them: such a time would win last-write-wins and rank first for ever.
 */
function isIsoTime(v: unknown): v is string {
  return typeof v === 'string' && /^\d{4}-\d{2}-\d{2}/.test(v) && !Number.isNaN(Date.parse(v));
}

const optionalString = (o: Record<string, unknown>, k: string): string | undefined => {
  const v = o[k];
  return typeof v === 'string' ? v : undefined;
};

function bad(reason: SkipReason, message: string): Decoded {
  return { ok: false, reason, message };
}

/**
 * How far ahead of the reader's clock a time may lie before it is taken for a wrong clock
 * (skew between machines). A record dated later is still a memory, read and kept like any
 * other: it orders as if written when this machine first read it (orderTime), its versions
 * and tombstones take effect by their own times, and a version that replaces it is dated after
 * it (supersedingTime). The machines are told (sync-run.ts, noticeClocks).
 */
export const MAX_CLOCK_SKEW_MS = 24 * 3600_000;

/** Where a memory goes in time order here: its own time, or `nowMs` when that lies beyond the skew bound. */
export function orderTime(timestamp: string, nowMs: number = Date.now()): number {
  const t = Date.parse(timestamp);
  return t > nowMs + MAX_CLOCK_SKEW_MS ? nowMs : t;
}

/** Decode one parsed JSON value into a record or tombstone, or say why it is unusable. */
export function decodeObject(obj: unknown): Decoded {
  return decodeShape(obj);
}

function decodeShape(obj: unknown): Decoded {
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) return bad('invalid-record', 'not a JSON object');
  const o = obj as Record<string, unknown>;
  if (o.v !== FORMAT_VERSION) {
    return typeof o.v === 'number' && o.v > FORMAT_VERSION
      ? bad('unknown-version', `format version ${String(o.v)} is newer than this memory-engine understands (${FORMAT_VERSION}); upgrade to read it`)
      : bad('invalid-record', `"v" must be ${FORMAT_VERSION}`);
  }
  if (typeof o.id !== 'string' || o.id.length === 0) return bad('invalid-record', '"id" must be a non-empty string');
  if (typeof o.machine !== 'string' || o.machine.length === 0) return bad('invalid-record', '"machine" must be a non-empty string');
  const extra: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (!KNOWN_SET.has(k)) extra[k] = v;
  const hasExtra = Object.keys(extra).length > 0;

  if (o.deleted === true) {
    if (!isIsoTime(o.updated_at)) return bad('invalid-record', 'tombstone needs an ISO "updated_at"');
    const t: Tombstone = { v: 1, id: o.id, deleted: true, updated_at: o.updated_at, machine: o.machine };
    if (isIsoTime(o.timestamp)) t.timestamp = o.timestamp;
    if (hasExtra) t.extra = extra;
    return { ok: true, entry: t };
  }
  if (!isIsoTime(o.timestamp)) return bad('invalid-record', '"timestamp" must be an ISO-8601 time');
  if (typeof o.question !== 'string') return bad('invalid-record', '"question" must be a string');
  if (typeof o.answer !== 'string') return bad('invalid-record', '"answer" must be a string');
  if (o.updated_at !== undefined && !isIsoTime(o.updated_at)) return bad('invalid-record', '"updated_at" must be an ISO-8601 time');
  for (const k of ['session_id', 'project', 'cwd', 'git_branch', 'source', 'model'] as const) {
    if (o[k] !== undefined && o[k] !== null && typeof o[k] !== 'string') return bad('invalid-record', `"${k}" must be a string`);
  }
  if (o.files !== undefined && !(Array.isArray(o.files) && o.files.every((f) => typeof f === 'string'))) {
    return bad('invalid-record', '"files" must be an array of strings');
  }
  if (o.dim !== undefined && !(Number.isInteger(o.dim) && (o.dim as number) > 0)) return bad('invalid-record', '"dim" must be a positive integer');

  const r: MemoryRecord = {
    v: 1,
    id: o.id,
    machine: o.machine,
    timestamp: o.timestamp,
    question: o.question,
    answer: o.answer,
  };
  const s = (k: string) => optionalString(o, k);
  if (s('session_id') !== undefined) r.session_id = s('session_id');
  if (s('project') !== undefined) r.project = s('project');
  if (typeof o.updated_at === 'string') r.updated_at = o.updated_at;
  if (s('cwd') !== undefined) r.cwd = s('cwd');
  if (s('git_branch') !== undefined) r.git_branch = s('git_branch');
  if (Array.isArray(o.files)) r.files = o.files as string[];
  if (s('source') !== undefined) r.source = s('source');
  if (s('model') !== undefined) r.model = s('model');
  if (o.embedding !== undefined && o.embedding !== null) {
    const e = decodeEmbedding(o.embedding);
    // A damaged vector costs only the vector: the memory stays, pending re-embedding.
    if (e && (o.dim === undefined || e.length === o.dim)) {
      r.embedding = e;
      r.dim = e.length;
    }
  }
  if (r.embedding === undefined && typeof o.dim === 'number' && o.embedding === undefined) r.dim = o.dim;
  if (hasExtra) r.extra = extra;
  return { ok: true, entry: r };
}

export function decodeLine(line: string): Decoded {
  let obj: unknown;
  try {
    obj = JSON.parse(line);
  } catch (err) {
    return bad('invalid-json', err instanceof Error ? err.message : 'invalid JSON');
  }
  return decodeObject(obj);
}

/** One line, no trailing newline. Field order is fixed so rewrites are byte-for-byte deterministic. */
export function encodeEntry(e: ExportEntry): string {
  const out: Record<string, unknown> = {};
  if (isTombstone(e)) {
    out.v = 1;
    out.id = e.id;
    out.deleted = true;
    out.machine = e.machine;
    if (e.timestamp !== undefined) out.timestamp = e.timestamp;
    out.updated_at = e.updated_at;
  } else {
    for (const k of KNOWN) {
      if (k === 'deleted') continue;
      if (k === 'embedding') {
        if (e.embedding) out.embedding = encodeEmbedding(e.embedding);
        continue;
      }
      if (k === 'dim') {
        const dim = e.embedding ? e.embedding.length : e.dim;
        if (dim !== undefined) out.dim = dim;
        continue;
      }
      const v = (e as unknown as Record<string, unknown>)[k];
      if (v !== undefined) out[k] = v;
    }
  }
  if (e.extra) for (const [k, v] of Object.entries(e.extra)) if (!(k in out)) out[k] = v;
  return JSON.stringify(out);
}

/** Last-write-wins key: greatest updated_at (else timestamp), then greater machine. */
export function versionTime(e: ExportEntry): number {
  const t = Date.parse(e.updated_at ?? (isTombstone(e) ? '' : e.timestamp));
  return Number.isNaN(t) ? 0 : t;
}

/**
 * updated_at for a version that must replace one written at `versionMs`: now, or one
 * millisecond later than the old version when this machine's clock is behind it. Without
 * `nowMs` (re-embedding: same content) it is always the old version + 1 ms, so a real edit
 * made meanwhile on another machine still wins.
 */
export function supersedingTime(versionMs: number, nowMs?: number): string {
  return new Date(Math.max(nowMs ?? 0, versionMs + 1)).toISOString();
}

/**
 * true when `challenger` (read later) beats `current`. Ties on time and machine go to the
 * later line, so a challenger with equal keys wins.
 */
export function beats(challenger: ExportEntry, current: ExportEntry): boolean {
  const a = versionTime(challenger);
  const b = versionTime(current);
  if (a !== b) return a > b;
  if (challenger.machine !== current.machine) return challenger.machine > current.machine;
  return true;
}

/** Fold entries (in reading order) to one winner per id; tombstones included. */
export function resolveEntries(entries: Iterable<ExportEntry>): Map<string, ExportEntry> {
  const winners = new Map<string, ExportEntry>();
  for (const e of entries) {
    const cur = winners.get(e.id);
    if (!cur || beats(e, cur)) winners.set(e.id, e);
  }
  return winners;
}

/** Live memories only: winners that are not tombstones. */
export function liveRecords(entries: Iterable<ExportEntry>): MemoryRecord[] {
  const out: MemoryRecord[] = [];
  for (const e of resolveEntries(entries).values()) if (!isTombstone(e)) out.push(e);
  return out;
}

/** `export/<YYYY-MM>_<machine>.jsonl`: the month of the record's timestamp, in UTC. */
export function monthOf(iso: string): string {
  const d = new Date(iso);
  return `${d.getUTCFullYear().toString().padStart(4, '0')}-${(d.getUTCMonth() + 1).toString().padStart(2, '0')}`;
}

export function monthFileName(month: string, machine: string): string {
  return `${month}_${machine}.jsonl`;
}

const MONTH_FILE = /^(\d{4}-\d{2})_([A-Za-z0-9._-]+)\.jsonl$/;
export function parseMonthFileName(name: string): { month: string; machine: string } | undefined {
  const m = MONTH_FILE.exec(name);
  return m ? { month: m[1] as string, machine: m[2] as string } : undefined;
}

export const ID_IN_LINE = /"id":"((?:[^"\\]|\\.)*)"/;

/**
 * The id of a line that is a whole JSON object, else undefined: a line whose id survives a
 * hand edit that broke its JSON (`"answer":"` → `"answer":`) is not a memory any more, so it
 * neither keeps that memory present nor counts as one removed.
 */
export function idOfWholeLine(line: string): string | undefined {
  const m = ID_IN_LINE.exec(line);
  if (!m?.[1]) return undefined;
  try {
    const o = JSON.parse(line) as unknown;
    return typeof o === 'object' && o !== null && typeof (o as { id?: unknown }).id === 'string' ? (o as { id: string }).id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The one rule for what a memory file holds: whole lines. A last line without its newline is a
 * whole record that only lacks its newline when it parses; anything else there is half a
 * record (a full disk, a writer killed mid-line), which is never appended to, committed or
 * restored — it is kept verbatim in the month's rejects file. Appends, commits and restores of
 * shrunk files all ask this (export/files.ts, sync/memory-files.ts).
 */
export function isWholeRecord(line: string): boolean {
  try {
    const v = JSON.parse(line) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v);
  } catch {
    return false;
  }
}

/** A memory file's text as whole lines, and the torn last line apart (see isWholeRecord). */
export function wholeLinesOf(text: string): { lines: string[]; torn?: string } {
  const parts = text.split('\n');
  const last = parts.pop() ?? '';
  const lines = parts.filter((l) => l.length > 0);
  if (last.length === 0) return { lines };
  return isWholeRecord(last) ? { lines: [...lines, last] } : { lines, torn: last };
}

/**
 * Lines of `added` that are a line of `removed` with only its id changed (a hand edit): ids are
 * derived from the session and the prompt, so such a line is no new memory — kept, it became a
 * second copy of the memory on every machine. Set aside like a line that no longer parses.
 */
export function idEdits(removed: readonly string[], added: readonly string[]): Set<string> {
  const out = new Set<string>();
  if (removed.length === 0 || added.length === 0) return out;
  const withoutId = (line: string): { id: string; rest: string } | undefined => {
    try {
      const o = JSON.parse(line) as Record<string, unknown>;
      if (typeof o !== 'object' || o === null || typeof o.id !== 'string') return undefined;
      const { id, ...rest } = o;
      return { id: id as string, rest: JSON.stringify(rest) };
    } catch {
      return undefined;
    }
  };
  const before = new Map<string, Set<string>>();
  for (const l of removed) {
    const r = withoutId(l);
    if (r) before.set(r.rest, (before.get(r.rest) ?? new Set()).add(r.id));
  }
  for (const l of added) {
    const a = withoutId(l);
    const ids = a ? before.get(a.rest) : undefined;
    if (a && ids && !ids.has(a.id)) out.add(l);
  }
  return out;
}
