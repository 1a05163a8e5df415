/**
 * The memories a session was given, by any route: the session start's injection, per-prompt
 * recall, recall by file. The agent keeps what it was given in its context, so a memory is given
 * once per session; a prompt that asks for a listing ("what did we do last time") is answered
 * whatever was given. After a compaction (a SessionStart whose source is `compact`) or a clear,
 * the context no longer holds them: the record starts again from what that start injects. A
 * resumed session holds its earlier context: its start injects only what the record lacks.
 *
 * A small file per session in the working folder (fs only: the hooks' light path), one id a line,
 * appended, so two hooks of one session writing at once lose nothing; sessions over for
 * SESSION_FILE_DAYS are tidied away.
 */
import { appendFileSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { workDirFor } from '../../config/paths.js';

const SESSION_FILE_DAYS = 3;

export interface SessionGiven {
  given: ReadonlySet<string>;
  /** Records `ids` as given, beside what was (`restart`: instead of it — the context was compacted or cleared). */
  add: (ids: string[], restart?: boolean) => void;
}

/** The ids this session was given, and a way to add to them. No session id: nothing is kept. */
export function sessionGiven(baseDir: string, sessionId: string | undefined): SessionGiven {
  if (!sessionId) return { given: new Set(), add: () => {} };
  const dir = join(workDirFor(baseDir), 'given');
  const path = join(dir, `${sessionId.replace(/[^A-Za-z0-9._-]/g, '_')}.ids`);
  let given: string[] = [];
  try {
    given = readFileSync(path, 'utf8').split('\n').filter((id) => id.length > 0);
  } catch {
    /* the session's first */
  }
  const known = new Set(given);
  return {
    given: known,
    add: (ids, restart = false) => {
      const fresh = [...new Set(ids)].filter((id) => restart || !known.has(id));
      if (fresh.length === 0 && !restart) return;
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      // One id a line, appended: two hooks of a session at once (parallel tool calls) lose none.
      const lines = fresh.map((id) => `${id}\n`).join('');
      if (restart) writeFileSync(path, lines);
      else appendFileSync(path, lines);
      if (given.length === 0) tidySessions(dir, path);
    },
  };
}

/**
 * A session's first memories given (its file `written` just now): the folder is tidied of
 * sessions over for SESSION_FILE_DAYS, at most once a day (`.tidied` says when; every file of the
 * folder is looked at then). By the file system's clock, the file just written being "now", so a
 * wrong clock here never removes a live session; a `.tidied` from the future does not stop it.
 * The mark is dated by that clock too, and never tidied away itself.
 */
export function tidySessions(dir: string, written: string): void {
  const now = statSync(written).mtimeMs;
  const mark = join(dir, '.tidied');
  try {
    const since = now - statSync(mark).mtimeMs;
    if (since >= 0 && since < 86_400_000) return;
  } catch {
    /* never tidied */
  }
  writeFileSync(mark, `${new Date(now).toISOString()}\n`);
  utimesSync(mark, now / 1000, now / 1000);
  for (const f of readdirSync(dir)) {
    if (f === '.tidied') continue;
    try {
      if (now - statSync(join(dir, f)).mtimeMs > SESSION_FILE_DAYS * 86_400_000) rmSync(join(dir, f));
    } catch {
      /* gone meanwhile */
    }
  }
  // Where recall by file alone kept them before every route shared the record.
  rmSync(join(dir, '..', 'file-recall'), { recursive: true, force: true });
}
