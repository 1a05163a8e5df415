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
import { appendFileSync, closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { workDirFor } from '../../config/paths.js';

const SESSION_FILE_DAYS = 3;

export interface SessionGiven {
  given: ReadonlySet<string>;
  /** The session this one was forked from, when its record was started from that session's just now. */
  inherited?: string;
  /** Records `ids` as given, beside what was (`restart`: instead of it — the context was compacted or cleared). */
  add: (ids: string[], restart?: boolean) => void;
}

const fileOf = (dir: string, sessionId: string) => join(dir, `${sessionId.replace(/[^A-Za-z0-9._-]/g, '_')}.ids`);
/** A record's ids, one a line (throws when there is none). */
const readIds = (path: string) => readFileSync(path, 'utf8').split('\n').filter((id) => id.length > 0);

/**
 * The ids this session was given, and a way to add to them. No session id: nothing is kept.
 *
 * A forked session (Codex's `fork`, Claude Code's `--fork-session`: a new id, the same history)
 * holds what the session it came from was given: its record takes in that session's. Codex names
 * the parent in the rollout's first line, there at the fork's start. Claude Code's fork has no
 * transcript yet when it starts (`forked`: its SessionStart says `fork`): a mark is left, and the
 * session's next hook finds the parent by the prompts its transcript copied.
 */
export function sessionGiven(baseDir: string, sessionId: string | undefined, transcriptPath?: string, opts: { forked?: boolean } = {}): SessionGiven {
  if (!sessionId) return { given: new Set(), add: () => {} };
  const dir = join(workDirFor(baseDir), 'given');
  const path = fileOf(dir, sessionId);
  const mark = `${path.slice(0, -'.ids'.length)}.fork`;
  let given: string[] = [];
  try {
    given = readIds(path);
  } catch {
    /* the session's first */
  }
  let inherited: string | undefined;
  // Only a fork's start, or a fork whose parent is not known yet, looks: no other hook reads a transcript.
  if (transcriptPath && (opts.forked === true || existsSync(mark))) {
    const named = forkedFrom(transcriptPath);
    const copied = named === undefined ? parentByCopiedPrompt(transcriptPath) : undefined;
    const parent = named ?? copied?.parent;
    if (parent && parent !== sessionId) {
      try {
        const theirs = readIds(fileOf(dir, parent));
        const more = theirs.filter((id) => !given.includes(id));
        if (more.length > 0) {
          given = [...given, ...more];
          appendFileSync(path, more.map((id) => `${id}\n`).join(''));
          inherited = parent;
        }
      } catch {
        /* the parent was given nothing, or its record is gone */
      }
      rmSync(mark, { force: true });
    } else if (copied?.looked) {
      // Its transcript holds its first prompt and no transcript beside it does: no later hook would find more.
      rmSync(mark, { force: true });
    } else if (opts.forked === true && !existsSync(mark)) {
      try {
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        writeFileSync(mark, `${transcriptPath}\n`);
      } catch {
        /* a full disk: the fork may be given its parent's memories again */
      }
    }
  }
  const known = new Set(given);
  return {
    given: known,
    ...(inherited ? { inherited } : {}),
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
 * The session a transcript was forked from, read in its first 64 KiB: Codex writes it in the
 * rollout's first line (`session_meta`, `forked_from_id`), Claude Code on each entry it copied
 * (`forkedFrom: { sessionId }`). Undefined for any other transcript, or one not there.
 */
function forkedFrom(transcriptPath: string): string | undefined {
  let text: string;
  try {
    text = readHead(transcriptPath, 64 * 1024);
  } catch {
    return undefined;
  }
  const id = /"forked_from_id"\s*:\s*"([^"]+)"/.exec(text)?.[1] ?? /"forkedFrom"\s*:\s*\{[^{}]*?"sessionId"\s*:\s*"([^"]+)"/.exec(text)?.[1];
  return id && /^[A-Za-z0-9._-]{1,128}$/.test(id) ? id : undefined;
}

/**
 * The Claude Code session a fork came from: the one of the transcripts beside it (newest first,
 * at most 20) that holds the fork's first prompt, which the fork copied with its id (`uuid`). That
 * prompt is the parent's first too, so each is read in its first MiB only: a hook never reads more
 * than 20 MiB for it, and only once per fork (`looked`: the fork's transcript holds its first
 * prompt, so the transcripts beside it were searched, and a later hook would find no more).
 */
function parentByCopiedPrompt(transcriptPath: string): { parent?: string; looked: boolean } {
  let uuid: string | undefined;
  try {
    const head = readHead(transcriptPath, 256 * 1024);
    for (const line of head.split('\n')) {
      if (!line.includes('"type":"user"')) continue;
      uuid = /"uuid"\s*:\s*"([0-9a-fA-F-]{8,64})"/.exec(line)?.[1];
      if (uuid) break;
    }
    if (!uuid) return { looked: false }; // not written yet
    const folder = dirname(transcriptPath);
    const own = basename(transcriptPath);
    const others = readdirSync(folder)
      .filter((f) => f.endsWith('.jsonl') && f !== own)
      .map((f) => ({ f, at: statSync(join(folder, f)).mtimeMs }))
      .sort((a, b) => b.at - a.at)
      .slice(0, 20);
    const needle = `"uuid":"${uuid}"`;
    for (const { f } of others) if (readHead(join(folder, f), 1024 * 1024).includes(needle)) return { parent: f.slice(0, -'.jsonl'.length), looked: true };
    return { looked: true };
  } catch {
    return { looked: false }; // a transcript not there yet, or unreadable
  }
}

/** The first `max` bytes of a file, as text. */
function readHead(path: string, max: number): string {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(Math.min(max, statSync(path).size));
    return buf.subarray(0, readSync(fd, buf, 0, buf.length, 0)).toString('utf8');
  } finally {
    closeSync(fd);
  }
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
