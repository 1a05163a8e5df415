/**
 * Where Codex keeps its rollouts: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`
 * (`CODEX_HOME` defaults to ~/.codex). node:fs only: the Stop hook and `notify` use it.
 */
import { closeSync, existsSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export function codexHome(env: NodeJS.ProcessEnv, home = homedir()): string {
  return env.CODEX_HOME && env.CODEX_HOME.length > 0 ? env.CODEX_HOME : join(home, '.codex');
}

function dirsDesc(dir: string, re: RegExp): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((n) => re.test(n))
    .sort()
    .reverse()
    .map((n) => join(dir, n));
}

/** Day folders, newest first. */
function dayDirs(home: string): string[] {
  const out: string[] = [];
  for (const y of dirsDesc(join(home, 'sessions'), /^\d{4}$/)) for (const m of dirsDesc(y, /^\d{2}$/)) out.push(...dirsDesc(m, /^\d{2}$/));
  return out;
}

const ROLLOUT = /^rollout-.*\.jsonl$/;

/** Every rollout, newest first. */
export function listRollouts(home: string): string[] {
  const out: string[] = [];
  for (const d of dayDirs(home)) out.push(...dirsDesc(d, ROLLOUT).filter((p) => statSync(p).isFile()));
  return out;
}

/** The rollout of a session (thread) id: its file name ends with the id. Newest days first. */
export function findRollout(home: string, sessionId: string): string | undefined {
  if (!/^[A-Za-z0-9-]{8,}$/.test(sessionId)) return undefined;
  const suffix = `-${sessionId}.jsonl`;
  for (const d of dayDirs(home)) {
    const hit = readdirSync(d).find((n) => n.startsWith('rollout-') && n.endsWith(suffix));
    if (hit) return join(d, hit);
  }
  return undefined;
}

/** The session's id and folder from the first line (`session_meta`), reading at most 64 KiB. */
export function rolloutMeta(path: string): { id?: string; cwd?: string } {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(64 * 1024);
    const n = readSync(fd, buf, 0, buf.length, 0);
    const text = buf.subarray(0, n).toString('utf8');
    const first = text.slice(0, text.indexOf('\n') < 0 ? n : text.indexOf('\n'));
    // The first line may be longer than 64 KiB (base instructions): read the fields by pattern.
    if (!/"type"\s*:\s*"session_meta"/.test(first)) return {};
    const id = /"id"\s*:\s*"([^"]+)"/.exec(first)?.[1];
    const cwd = /"cwd"\s*:\s*"((?:[^"\\]|\\.)*)"/.exec(first)?.[1];
    return { ...(id ? { id } : {}), ...(cwd ? { cwd: JSON.parse(`"${cwd}"`) as string } : {}) };
  } finally {
    closeSync(fd);
  }
}
