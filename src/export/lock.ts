/**
 * Cross-process lock file (O_EXCL create). A lock whose owner process is gone (crash,
 * SIGKILL) is taken over, so a killed hook never blocks memory for good.
 */
import { closeSync, linkSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { UserError } from '../errors.js';

export interface LockOptions {
  /** Give up after this long (ms). */
  timeoutMs?: number;
  /** A lock older than this is stale even if its pid is alive (pid reuse). */
  staleMs?: number;
  /** Who is waiting, for the error message. */
  purpose?: string;
}

interface Owner {
  pid: number;
  host: string;
  since: string;
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));
export function sleepSync(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

function readOwner(path: string): Owner | undefined {
  try {
    const o = JSON.parse(readFileSync(path, 'utf8')) as Owner;
    return typeof o.pid === 'number' ? o : undefined;
  } catch {
    return undefined;
  }
}

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function isStale(path: string, staleMs: number): boolean {
  let mtime: number;
  try {
    mtime = statSync(path).mtimeMs;
  } catch {
    return false; // gone already: the next create attempt decides
  }
  const owner = readOwner(path);
  // A half-written lock file (owner died between create and write) is stale after a moment.
  if (!owner) return Date.now() - mtime > 2000;
  if (owner.host === hostname() && !processAlive(owner.pid)) return true;
  return Date.now() - mtime > staleMs;
}

/** Move a stale lock aside; put it back if someone else had already replaced it. */
function takeOver(path: string, staleMs: number): void {
  const aside = `${path}.stale-${process.pid}-${Date.now()}`;
  try {
    renameSync(path, aside);
  } catch {
    return;
  }
  if (!isStale(aside, staleMs)) {
    // We raced with another taker that already holds a fresh lock: give it back.
    try {
      linkSync(aside, path);
    } catch {
      /* someone else holds the path now; the fresh owner keeps its lock */
    }
  }
  try {
    unlinkSync(aside);
  } catch {
    /* already gone */
  }
}

export type Release = () => void;

export function acquireLock(path: string, opts: LockOptions = {}): Release {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const staleMs = opts.staleMs ?? 60 * 60_000;
  const deadline = Date.now() + timeoutMs;
  let wait = 5;
  for (;;) {
    try {
      const fd = openSync(path, 'wx');
      try {
        writeSync(fd, JSON.stringify({ pid: process.pid, host: hostname(), since: new Date().toISOString() }));
      } finally {
        closeSync(fd);
      }
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const owner = readOwner(path);
        if (owner && owner.pid === process.pid) {
          try {
            unlinkSync(path);
          } catch {
            /* already gone */
          }
        }
      };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST') throw err;
    }
    if (isStale(path, staleMs)) {
      takeOver(path, staleMs);
      continue;
    }
    if (Date.now() >= deadline) {
      const owner = readOwner(path);
      throw new UserError(
        `${opts.purpose ?? 'memory'} is busy: lock ${path} is held${owner ? ` by process ${owner.pid} on ${owner.host} since ${owner.since}` : ''}`,
        'wait for that process to finish; if it is gone, delete the lock file',
      );
    }
    sleepSync(wait);
    wait = Math.min(wait * 2, 200);
  }
}

/**
 * Give a lock we hold to another process (a worker we just spawned): from now on it is
 * that process's, and a dead one's is taken over like any stale lock.
 */
export function handOverLock(path: string, pid: number): void {
  const tmp = `${path}.handover-${process.pid}`;
  writeFileSync(tmp, JSON.stringify({ pid, host: hostname(), since: new Date().toISOString() }));
  renameSync(tmp, path);
}

/** A lock handed over to this process, if it was; its release removes it. */
export function adoptLock(path: string): Release | undefined {
  const owner = readOwner(path);
  if (!owner || owner.pid !== process.pid || owner.host !== hostname()) return undefined;
  return () => {
    if (readOwner(path)?.pid === process.pid) {
      try {
        unlinkSync(path);
      } catch {
        /* already gone */
      }
    }
  };
}

export function withLock<T>(path: string, opts: LockOptions, fn: () => T): T {
  const release = acquireLock(path, opts);
  try {
    return fn();
  } finally {
    release();
  }
}

export async function withLockAsync<T>(path: string, opts: LockOptions, fn: () => Promise<T>): Promise<T> {
  const release = acquireLock(path, opts);
  try {
    return await fn();
  } finally {
    release();
  }
}
