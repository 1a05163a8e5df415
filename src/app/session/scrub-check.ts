/**
 * Memories stored before today's redaction rules: what those rules would redact in them. The
 * rules grow between versions (privacy/rules.ts), and another machine may still run an older
 * version; what was exported stays as it was until `memory scrub`. So every memory in the
 * cache is read once against today's rules: at session start, the few that came since the
 * last one; after an upgrade, a new cache or a new version of the rules, all of them, in the
 * background (`memory scrub --dry-run --background`). What was found is told to the person
 * at most once a day until it is scrubbed, here or on another machine.
 *
 * The state is in the cache (meta `scrub_check`): a rebuilt cache reads everything again, and
 * so does a secret format the person adds (`[privacy] secret_formats`).
 */
import { sha1 } from '../../later.js';
import { GENERAL_NEGATIVES, REDACTION_PASSES, SECRET_RULES } from '../../privacy/rules.js';
import { scrubbedVersion } from '../../maintain/scrub.js';
import type { RedactResult } from '../../privacy/redact.js';
import { compileFormats } from '../../privacy/formats.js';
import type { Store } from '../../store/store.js';
import { alive } from './model-fetch.js';

export interface ScrubCheck {
  /** The rules it reads with (Rules.fingerprint). */
  rules: string;
  /** Every live memory up to this rowid has been read. */
  after: number;
  /** Memories found that today's rules would change: these ids, and `more` beyond them. */
  ids: string[];
  more: number;
  /** A background check reading the rest. */
  running?: { pid?: number; at: string };
}

/** Ids kept to read again at each session start (a scrub elsewhere is seen): a few milliseconds. */
const KEPT = 20;
/** Memories read within session start; more are read in the background. */
export const IN_SESSION_START = 200;
const KEY = 'scrub_check';
const DAY_MS = 86_400_000;

/**
 * Today's rules as one reading applies them: the person's formats compiled, and a fingerprint
 * of the rules as data (patterns, flags, examples, the versions of the passes written as code)
 * with those formats — another version of the rules, or a format added, is another value.
 */
export interface Rules {
  own: readonly RegExp[];
  fingerprint: string;
}

export function rulesOf(formats: readonly string[]): Rules {
  const fingerprint = sha1()
    .update(JSON.stringify([SECRET_RULES.map((r) => [r.kind, r.re.source, r.re.flags, r.positives, r.negatives]), GENERAL_NEGATIVES, REDACTION_PASSES, formats]))
    .digest('hex')
    .slice(0, 16);
  return { own: compileFormats(formats), fingerprint };
}

/** The check as this cache holds it; a fresh one when none was made with today's rules. */
export function readScrubCheck(store: Store, rules: Rules): ScrubCheck {
  const fp = rules.fingerprint;
  try {
    const c = JSON.parse(store.meta(KEY) ?? 'null') as ScrubCheck | null;
    if (c && c.rules === fp && Number.isInteger(c.after) && Array.isArray(c.ids)) return { ...c, more: c.more ?? 0 };
  } catch {
    /* damaged: read everything again */
  }
  return { rules: fp, after: 0, ids: [], more: 0 };
}

export function writeScrubCheck(store: Store, c: ScrubCheck): void {
  store.setMeta(KEY, JSON.stringify(c));
}

/**
 * Read the live memories after the check's place, to the end, noting those today's rules would
 * change (and into `kinds`, when given, what the rules found in them).
 */
export function readOn(store: Store, c: ScrubCheck, rules: Rules, kinds?: string[]): void {
  for (;;) {
    const rows = store.liveRows(c.after, 500);
    if (rows.length === 0) return;
    for (const row of rows) {
      const s = scrubbedVersion(row, true, rules.own);
      if (s) {
        kinds?.push(...kindsOf(s.results));
        if (c.ids.length < KEPT) c.ids.push(row.id);
        else c.more++;
      }
      c.after = row.rowid;
    }
  }
}

/** A whole reading, as `memory scrub` makes it: `ids` what it found (none after a real scrub). */
export function recordScrub(store: Store, rules: Rules, ids: string[]): void {
  writeScrubCheck(store, { rules: rules.fingerprint, after: store.lastRowid(), ids: ids.slice(0, KEPT), more: Math.max(0, ids.length - KEPT) });
}

/** The kinds today's rules find in a memory still stored as it was, or undefined when it is clean (or gone). */
function kindsIn(store: Store, id: string, rules: Rules): string[] | undefined {
  const row = store.byId(id);
  if (!row || row.deleted !== 0) return undefined;
  const s = scrubbedVersion(row, true, rules.own);
  return s ? kindsOf(s.results) : undefined;
}

function kindsOf(results: RedactResult[]): string[] {
  return results.flatMap((r) => Object.keys(r.counts));
}

export function describeFound(count: number, kinds: string[]): string {
  const what = kinds.length > 0 ? ` (${[...new Set(kinds)].sort().join(', ')})` : '';
  return `memory: ${count} ${count === 1 ? 'memory' : 'memories'} in the memory repository ${count === 1 ? 'holds' : 'hold'} what today's redaction rules remove${what}, stored before those rules (by an earlier version, or before a secret format was added) — \`memory scrub\` writes redacted versions (\`memory scrub --dry-run\` counts them; git history keeps the old text until it is rewritten: README, Privacy).`;
}

/**
 * At session start: the memories found before read again (scrubbed elsewhere since?), those
 * that came since the last start read now, or — many of them — whether to start the
 * background check; and what to tell, if anything (the caller tells it at most once a day).
 */
export function scrubCheckAtStart(store: Store, rules: Rules, now: Date): { start: boolean; found?: number; notice?: string } {
  const c = readScrubCheck(store, rules);
  const was = JSON.stringify(c);
  if (c.running && alive(c.running.pid) && now.getTime() - Date.parse(c.running.at) < DAY_MS) return { start: false };
  delete c.running;
  const kinds: string[] = [];
  const still = c.ids.filter((id) => {
    const k = kindsIn(store, id, rules);
    if (k) kinds.push(...k);
    return k !== undefined;
  });
  // Every one kept was scrubbed: those counted beyond them may have been too; read all again.
  if (still.length === 0 && c.more > 0) Object.assign(c, { after: 0, more: 0 });
  c.ids = [...still];
  let start = false;
  if (store.liveCountAfter(c.after, IN_SESSION_START + 1) > IN_SESSION_START) start = true;
  else readOn(store, c, rules, kinds);
  if (JSON.stringify(c) !== was || store.meta(KEY) === undefined) writeScrubCheck(store, c);
  const found = c.ids.length + c.more;
  return { start, ...(found > 0 ? { found, notice: describeFound(found, kinds) } : {}) };
}
