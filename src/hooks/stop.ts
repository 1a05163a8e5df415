/**
 * The Stop/SessionEnd hook's whole job, kept light (no SQLite, no git, no model): find the
 * transcript, record it as pending work, make sure the one worker runs, return.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { encodeProjectDir, listTranscripts } from '../capture/project.js';
import type { Config } from '../config/schema.js';
import { processAlive } from '../export/lock.js';
import { enqueue, queueDirFor, workerLockFor } from './queue.js';

export interface SessionEndRequest {
  transcript?: string;
  sessionId?: string;
  cwd?: string;
  push: boolean;
}

/** Which transcript to read: the given one, else the newest of the cwd's project folder. */
export function resolveTranscript(config: Pick<Config, 'general'>, req: Pick<SessionEndRequest, 'transcript' | 'cwd'>): { path?: string; problem?: string } {
  if (req.transcript) {
    if (!existsSync(req.transcript)) return { problem: `transcript ${req.transcript} does not exist` };
    if (!statSync(req.transcript).isFile()) return { problem: `transcript ${req.transcript} is not a file` };
    return { path: req.transcript };
  }
  if (!req.cwd) return { problem: 'no transcript given (hook input has no transcript_path, and no --transcript)' };
  const dir = join(config.general.claude_projects_dir, encodeProjectDir(req.cwd));
  const newest = listTranscripts(dir)[0];
  if (!newest) return { problem: `no transcript found for ${req.cwd} (looked in ${dir})` };
  return { path: newest.path };
}

/** Whether a worker holds the worker lock right now (a dead owner's lock does not count). */
export function workerRunning(dbPath: string): boolean {
  try {
    const owner = JSON.parse(readFileSync(workerLockFor(dbPath), 'utf8')) as { pid?: number };
    return typeof owner.pid === 'number' && processAlive(owner.pid);
  } catch {
    return false;
  }
}

/**
 * Queue the transcript and start the worker unless one is running. The entry is written
 * first: a worker about to exit re-reads the queue after releasing its lock, so an entry
 * is never stranded between the two.
 */
export function recordStop(
  config: Pick<Config, 'general'>,
  req: SessionEndRequest & { flush: boolean },
  deps: { now: () => Date; startWorker: () => void },
): { queued?: string; problem?: string; started: boolean } {
  const t = resolveTranscript(config, req);
  if (!t.path) return { ...(t.problem ? { problem: t.problem } : {}), started: false };
  enqueue(queueDirFor(config.general.db_path), {
    transcript: t.path,
    ...(req.sessionId ? { session_id: req.sessionId } : {}),
    ...(req.cwd ? { cwd: req.cwd } : {}),
    push: req.push,
    flush: req.flush,
    at: deps.now().toISOString(),
  });
  if (workerRunning(config.general.db_path)) return { queued: t.path, started: false };
  deps.startWorker();
  return { queued: t.path, started: true };
}
