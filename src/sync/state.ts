/**
 * Sync health of one clone, kept in its .git folder (per clone, never committed): who this
 * clone is, when it last pulled, pushed and committed, the last error and since when sync
 * has been failing, and which notices the user was already given.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface SyncError {
  at: string;
  op: 'pull' | 'push' | 'commit' | 'settle';
  status: string;
  message: string;
}

export interface SyncState {
  /** Random id of this clone: commits carry it, so a clone can tell another one writes under its name. */
  clone_id: string;
  last_pull?: string;
  last_push?: string;
  last_commit?: string;
  /**
   * The last commit of memories (export/): what the capture batches count from. A commit of the
   * shared settings alone (init's first) starts no batch, so a new home's first capture goes at once.
   */
  last_export_commit?: string;
  last_error?: SyncError;
  /** First failure after the last success: how long sync has been broken. */
  failing_since?: string;
  /** Other clones seen committing under this machine's name. */
  shared_name_clones?: string[];
  /** Notices already shown at session start (told once). */
  told?: string[];
  /**
   * Captures waiting (in the queue, outside the work tree) because the person's own git work
   * was in progress: since when and why. Cleared once they are committed.
   */
  deferred?: { since: string; why: string };
  /** Checkouts of the old layout whose memories moved into this home (app/upgrade/upgrade.ts). */
  moved?: MoveNote[];
  /** Clocks that disagree, as the last pull's commit times show (git.ts clockGap). */
  clock?: { at: string; ours: 'ahead' | 'behind'; other: string; gap_ms: number };
  /** Lines that stopped parsing, set aside into a rejects file (app/sync/repair.ts): told once each. */
  set_aside?: SetAsideNote[];
}

export interface SetAsideNote {
  at: string;
  /** Memory files (repository paths) that held them. */
  files: string[];
  lines: number;
  /** Memories whose last good version was put back in their place. */
  restored: number;
}

/** What moved where (the upgrade's report, kept to tell it once at session start). */
export interface MoveNote {
  from: string;
  to: string;
  files: number;
  lines: number;
  fromRemote: number;
  queued: number;
  checkoutCommits: number;
  branch?: string;
  remoteDetail?: string;
}

export function syncStatePath(gitDir: string): string {
  return join(gitDir, 'memory-engine-sync.json');
}

export function readSyncState(gitDir: string): SyncState {
  const path = syncStatePath(gitDir);
  const read = (): SyncState | undefined => {
    try {
      const s = JSON.parse(readFileSync(path, 'utf8')) as SyncState;
      return typeof s.clone_id === 'string' && s.clone_id.length > 0 ? s : undefined;
    } catch {
      return undefined;
    }
  };
  const existed = existsSync(path);
  const found = existed ? read() : undefined;
  if (found) return found;
  const fresh: SyncState = { clone_id: randomBytes(4).toString('hex') };
  if (existed) {
    // Damaged: start afresh, keeping nothing but a new identity.
    writeSyncState(gitDir, fresh);
    return fresh;
  }
  // First use: two hooks starting together must not mint two identities (each would see the
  // other's commits as "another clone writing as this machine"). The file appears whole or
  // not at all, and only the first to link it wins; the other reads the winner's.
  const tmp = `${path}.new-${process.pid}-${randomBytes(3).toString('hex')}`;
  writeFileSync(tmp, `${JSON.stringify(fresh, null, 2)}\n`);
  try {
    linkSync(tmp, path);
    return fresh;
  } catch {
    return read() ?? fresh;
  } finally {
    rmSync(tmp, { force: true });
  }
}

export function writeSyncState(gitDir: string, state: SyncState): void {
  const path = syncStatePath(gitDir);
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, `${JSON.stringify(state, null, 2)}\n`);
  renameSync(tmp, path);
}

export function updateSyncState(gitDir: string, change: (s: SyncState) => void): SyncState {
  const s = readSyncState(gitDir);
  change(s);
  writeSyncState(gitDir, s);
  return s;
}

/**
 * Record the outcome of one pull, push or commit. A success clears the error of its own kind
 * (a commit that works again clears "commit failed", a push a push's), and the failure clock
 * once no error is left; another kind's error stays until that kind succeeds.
 */
export function recordOutcome(s: SyncState, op: SyncError['op'], ok: boolean, at: Date, status: string, message = ''): void {
  const iso = at.toISOString();
  if (ok) {
    if (op === 'pull') s.last_pull = iso;
    if (op === 'push') s.last_push = iso;
    if (s.last_error && s.last_error.op === op) delete s.last_error;
    if (!s.last_error) delete s.failing_since;
    return;
  }
  s.last_error = { at: iso, op, status, message: message.slice(0, 500) };
  s.failing_since ??= iso;
}

export const BROKEN_AFTER_MS = 24 * 3600_000;

/** Sync has been failing for more than a day (what session start tells the user). */
export function brokenFor(s: SyncState, now: Date): number | undefined {
  if (!s.failing_since || !s.last_error) return undefined;
  const ms = now.getTime() - Date.parse(s.failing_since);
  return ms > BROKEN_AFTER_MS ? ms : undefined;
}
