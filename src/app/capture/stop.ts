/**
 * The Stop/SessionEnd hook's whole job, kept light (no config parser, no SQLite, no git,
 * no model): find the transcript, record it as pending work, make sure exactly one worker
 * runs, return.
 */
import { existsSync, mkdirSync, realpathSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { acquireLock, handOverLock } from '../../export/lock.js';
import { enqueue, queueDirFor, workerLockFor } from './queue.js';

export interface SessionEndRequest {
  transcript?: string;
  sessionId?: string;
  /** The session's folder (hook input or --cwd): overrides the transcript's own cwd. */
  cwd?: string;
  /** Only to find the newest transcript when none is named (the folder a person runs the command in): never the project. */
  locateIn?: string;
  push: boolean;
}

/**
 * Which transcript to read: the given one, else the newest of the cwd's project folder
 * (`projectsDir` is asked only then: the hook does not parse the config for it otherwise).
 */
export async function resolveTranscript(projectsDir: () => string | Promise<string>, req: Pick<SessionEndRequest, 'transcript' | 'cwd' | 'locateIn'>): Promise<{ path?: string; problem?: string }> {
  if (req.transcript) {
    if (!existsSync(req.transcript)) return { problem: `transcript ${req.transcript} does not exist` };
    if (!statSync(req.transcript).isFile()) return { problem: `transcript ${req.transcript} is not a file` };
    return { path: req.transcript };
  }
  const folder = req.cwd ?? req.locateIn;
  if (!folder) return { problem: 'no transcript given (hook input has no transcript_path, and no --transcript)' };
  const { encodeProjectDir, listTranscripts } = await import('../../agents/claude-code/transcripts.js');
  const dir = join(await projectsDir(), encodeProjectDir(folder));
  const newest = listTranscripts(dir)[0];
  if (!newest) return { problem: `no transcript found for ${folder} (looked in ${dir})` };
  return { path: newest.path };
}

/**
 * Start the worker unless one runs. The hook takes the worker lock itself (atomic create)
 * and hands it to the child it spawns, so eight Stops at once start one worker, not eight.
 * `spawnWorker` returns the child's pid, or undefined when it could not start.
 */
export async function startWorkerOnce(baseDir: string, spawnWorker: () => Promise<number | undefined> | number | undefined): Promise<boolean> {
  const lock = workerLockFor(baseDir);
  mkdirSync(dirname(lock), { recursive: true });
  let release: (() => void) | undefined;
  try {
    release = acquireLock(lock, { timeoutMs: 0, purpose: 'the capture worker' });
  } catch {
    return false; // a live worker holds it: it will see the queue entry
  }
  let pid: number | undefined;
  try {
    pid = await spawnWorker();
  } finally {
    if (pid === undefined) release();
  }
  if (pid === undefined) return false;
  handOverLock(lock, pid);
  return true;
}

/**
 * Queue the transcript and start the worker. The entry is written first: a worker about
 * to exit re-reads the queue after releasing its lock, so an entry is never stranded.
 */
export async function recordStop(
  where: { baseDir: string; projectsDir: () => string | Promise<string> },
  req: SessionEndRequest & { flush: boolean },
  deps: { now: () => Date; spawnWorker: () => Promise<number | undefined> | number | undefined },
): Promise<{ queued?: string; problem?: string; started: boolean }> {
  const t = await resolveTranscript(where.projectsDir, req);
  if (!t.path) return { ...(t.problem ? { problem: t.problem } : {}), started: false };
  enqueue(queueDirFor(where.baseDir), {
    transcript: t.path,
    ...(req.sessionId ? { session_id: req.sessionId } : {}),
    ...(req.cwd ? { cwd: req.cwd } : {}),
    push: req.push,
    flush: req.flush,
    at: deps.now().toISOString(),
  });
  return { queued: t.path, started: await startWorkerOnce(where.baseDir, deps.spawnWorker) };
}

/** The detached worker: `memory [--config F] session-end --worker`; returns its pid. */
export async function spawnWorker(configFile: string | undefined, env: NodeJS.ProcessEnv, onError: (message: string) => void): Promise<number | undefined> {
  // Loaded only when a worker is started: most Stops find one running.
  const { spawn } = await import('node:child_process');
  const args = [realpathSync(process.argv[1] as string), ...(configFile ? ['--config', configFile] : []), 'session-end', '--worker'];
  const child = spawn(process.execPath, args, { detached: true, stdio: 'ignore', cwd: tmpdir(), env });
  child.on('error', (err) => onError(`cannot start the capture worker: ${err.message}`));
  child.unref();
  return child.pid;
}
