/** Domain types shared across modules. No behaviour lives here. */

/** One live memory: a verbatim question/answer turn of an agent session (JSONL format v1). */
export interface MemoryRecord {
  v: 1;
  id: string;
  session_id?: string;
  project?: string;
  machine: string;
  /** ISO-8601 UTC time of the prompt; decides the month file and the time decay. */
  timestamp: string;
  /** ISO-8601 UTC time this version was written; last-write-wins key. */
  updated_at?: string;
  question: string;
  answer: string;
  cwd?: string;
  git_branch?: string;
  files?: string[];
  source?: string;
  model?: string;
  dim?: number;
  /** Unit-length float32 vector, or absent while the record is pending. */
  embedding?: Float32Array;
  /** Fields this version does not know, kept so a rewrite loses nothing. */
  extra?: Record<string, unknown>;
}

/** `{"v":1,"id":…,"deleted":true,…}`: forgets a memory on every machine. */
export interface Tombstone {
  v: 1;
  id: string;
  deleted: true;
  updated_at: string;
  machine: string;
  timestamp?: string;
  extra?: Record<string, unknown>;
}

export type ExportEntry = MemoryRecord | Tombstone;

export function isTombstone(e: ExportEntry): e is Tombstone {
  return (e as Tombstone).deleted === true;
}

/** Why a JSONL line was skipped. */
export type SkipReason = 'invalid-json' | 'invalid-utf8' | 'invalid-record' | 'oversize' | 'torn-tail' | 'unknown-version';

export interface SearchFilters {
  project?: string;
  machine?: string;
  /** Inclusive lower bound, epoch ms. */
  sinceMs?: number;
  /** Exclusive upper bound, epoch ms. */
  untilMs?: number;
  /** Which agent: claude-code (also memories from before sources were recorded), codex, note. */
  source?: string;
  /**
   * Leave out this session's memories (the session in progress: the agent already has its
   * turns). Applied in the keyword query, before any limit; vector KNN does not know it.
   */
  notSession?: string;
  /**
   * Only the memories that recorded this file of this repository (the file index: `memory search
   * --file`), or one of its earlier names before it was renamed away (changes/renames.ts); with
   * `folder`, any file under the folder `path` (ending in `/`), and with `names` what was there
   * under other names (a name with `folder` every file under it), each for its time.
   */
  file?: { repo: string; path: string; folder?: boolean; names?: ReadonlyArray<{ path: string; afterMs?: number; beforeMs?: number; folder?: boolean }> };
}

export type SearchMode = 'hybrid' | 'keyword' | 'vector';

export interface SearchHit {
  id: string;
  score: number;
  timestamp: string;
  machine: string;
  project: string | null;
  /** Which agent the memory came from: claude-code, codex, note. */
  source: string | null;
  question: string;
  answer: string;
  /**
   * Recorded files whose content differs now, or that are gone, in this machine's checkout
   * of the memory's repository ([] when none). Absent when that cannot be known.
   */
  changed_files?: string[];
  /** One line naming them: "src/sse.ts changed since this memory" (absent when none changed). */
  files_note?: string;
  /**
   * With a file filter: the earlier name the memory recorded the file by (src/checkout.ts, for
   * `--file src/pay/checkout.ts` after the rename), or the file under an earlier name of the
   * folder asked for. Absent when it recorded the name asked.
   */
  recorded_as?: string;
  /** A team memory's author (its handle) — someone else's notes, or one's own from another machine. */
  author?: string;
  /** The team a team memory comes from. */
  team?: string;
}
