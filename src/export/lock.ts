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
  /** The owner process's start time (Linux: ticks after boot, /proc/<pid>/stat): a reused pid has another. */
  start?: string;
}

/** When process `pid` started, where the system says (Linux); undefined elsewhere. */
export function processStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 22, counted after the command name, which may itself hold spaces and parentheses.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

function ownerRecord(pid: number): string {
  const start = processStart(pid);
  return JSON.stringify({ pid, host: hostname(), since: new Date().toISOString(), ...(start ? { start } : {}) });
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));
export function sleepSync(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

/** Who holds a lock file and since when, if anyone. */
export function lockOwner(path: string): { pid: number; host: string; since: string } | undefined {
  return readOwner(path);
}

function readOwner(path: string): Owner | undefined {
  try {
    const o = JSON.parse(readFileSync(path, 'utf8')) as Owner;
    return typeof o.pid === 'number' ? o : undefined;
  } catch {
    return undefined;
  }
}

/** A file named for a process (`…-<pid>`) that is not this one and no longer runs: one it left behind, dying. */
export function leftByDeadProcess(pid: number): boolean {
  return Number.isInteger(pid) && pid > 0 && pid !== process.pid && !processAlive(pid);
}

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  // A process that has exited but is not reaped yet (a zombie, for as long as its parent
  // has not waited for it) still answers signal 0: it is gone all the same.
  return !isZombie(pid);
}

/** Linux: the state letter of /proc/<pid>/stat (after the parenthesised name) is Z or X. Elsewhere: never known, false. */
export function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state === 'Z' || state === 'X';
  } catch {
    return false;
  }
}

/**
 * Files seen without an owner record, by path and inode, with when this process first saw
 * them (a monotonic clock: file times and `Date.now()` need not agree — under faketime, or
 * when the clock is set — so one is never compared with the other).
 */
const unowned = new Map<string, number>();

/** Whether a file this process keeps seeing without an owner record has been so for `ms`. */
function unownedFor(path: string, ino: number, ms: number): boolean {
  const key = `${path}\0${ino}`;
  const first = unowned.get(key);
  if (first === undefined) {
    unowned.set(key, performance.now());
    return false;
  }
  return performance.now() - first > ms;
}

function isStale(path: string, staleMs: number): boolean {
  let st: { mtimeMs: number; ino: number };
  try {
    st = statSync(path);
  } catch {
    return false; // gone already: the next create attempt decides
  }
  const owner = readOwner(path);
  // A half-written lock file (owner died between create and write) is stale after a moment.
  if (!owner) return unownedFor(path, st.ino, 2000);
  const mtime = st.mtimeMs;
  if (owner.host === hostname()) {
    if (!processAlive(owner.pid)) return true;
    // Alive: the same process, unless its pid was reused (another start time). Liveness,
    // not age: a long push by a live owner is not taken over.
    const start = processStart(owner.pid);
    if (owner.start && start) return owner.start !== start;
  }
  return Date.now() - mtime > staleMs;
}

/**
 * Remove a stale lock so that a fresh create can be tried. Only one process at a time takes
 * a lock over: the takeover itself is guarded by `<lock>.takeover` (O_EXCL, held for a few
 * file operations; one whose taker is gone is removed). Under it the lock is judged
 * again and removed only if it is still the very file judged stale (same content): a
 * rename-aside race, in which a second taker moved a fresh lock away and two processes both
 * held it, cannot happen. A guard is stale when its taker is gone.
 */
function takeOver(path: string, staleMs: number): void {
  const guard = `${path}.takeover`;
  let fd: number;
  try {
    fd = openSync(guard, 'wx');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return;
    // Another process is taking over: the next try sees its outcome. A guard whose taker is
    // gone (or that never got its record, for two seconds) is removed.
    try {
      const taker = readOwner(guard);
      const gone = taker ? taker.host === hostname() && !processAlive(taker.pid) : unownedFor(guard, statSync(guard).ino, 2000);
      if (gone) unlinkSync(guard);
    } catch {
      /* gone already */
    }
    return;
  }
  try {
    writeSync(fd, ownerRecord(process.pid));
    let judged: string;
    try {
      judged = readFileSync(path, 'utf8');
    } catch {
      return; // gone: the next create decides
    }
    if (!isStale(path, staleMs)) return;
    const aside = `${path}.stale-${process.pid}-${Date.now()}`;
    try {
      renameSync(path, aside);
    } catch {
      return;
    }
    // Still the file judged stale: a live owner never loses its lock to us. A stale owner's
    // file is only ever replaced by a taker, and takers hold the guard: so it is.
    if (readFileSync(aside, 'utf8') !== judged) {
      try {
        linkSync(aside, path);
      } catch {
        /* the path is taken again; the fresh owner keeps it */
      }
    }
    try {
      unlinkSync(aside);
    } catch {
      /* already gone */
    }
  } finally {
    closeSync(fd);
    try {
      unlinkSync(guard);
    } catch {
      /* already gone */
    }
  }
}

export type Release = () => void;

/** One try: the lock, or undefined while a live owner holds it. */
function tryAcquire(path: string, staleMs: number): Release | undefined {
  for (let i = 0; i < 3; i++) {
    try {
      const fd = openSync(path, 'wx');
      try {
        writeSync(fd, ownerRecord(process.pid));
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
    if (!isStale(path, staleMs)) return undefined;
    takeOver(path, staleMs);
  }
  return undefined;
}

function busy(path: string, purpose: string | undefined): UserError {
  const owner = readOwner(path);
  return new UserError(
    `${purpose ?? 'memory'} is busy: lock ${path} is held${owner ? ` by process ${owner.pid} on ${owner.host} since ${owner.since}` : ''}`,
    'wait for that process to finish; if it is gone, delete the lock file',
  );
}

/** Tries until the lock is ours (the return value) or the time is up (throws); yields how long to wait before the next try. */
function* attempts(path: string, opts: LockOptions): Generator<number, Release> {
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  const staleMs = opts.staleMs ?? 60 * 60_000;
  for (let wait = 5; ; wait = Math.min(wait * 2, 200)) {
    const release = tryAcquire(path, staleMs);
    if (release) return release;
    if (Date.now() >= deadline) throw busy(path, opts.purpose);
    yield wait;
  }
}

export function acquireLock(path: string, opts: LockOptions = {}): Release {
  const it = attempts(path, opts);
  for (let step = it.next(); ; step = it.next()) {
    if (step.done) return step.value;
    sleepSync(step.value);
  }
}

/** The same, waiting without blocking the event loop (the viewer and the MCP server serve meanwhile). */
export async function acquireLockAsync(path: string, opts: LockOptions = {}): Promise<Release> {
  const it = attempts(path, opts);
  for (let step = it.next(); ; step = it.next()) {
    if (step.done) return step.value;
    await new Promise((r) => setTimeout(r, step.value));
  }
}

/**
 * Give a lock we hold to another process (a worker we just spawned): from now on it is
 * that process's, and a dead one's is taken over like any stale lock.
 */
export function handOverLock(path: string, pid: number): void {
  const tmp = `${path}.handover-${process.pid}`;
  writeFileSync(tmp, ownerRecord(pid));
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
  const release = await acquireLockAsync(path, opts);
  try {
    return await fn();
  } finally {
    release();
  }
}
