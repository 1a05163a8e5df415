/**
 * Where memories live, known without git or the TOML parser (the Stop hook asks this after
 * every turn): a memory home per user, apart from the tool. Its folder is a git repository
 * that holds memory data only — `export/`, the settings every machine shares
 * (`config.toml`), `.gitattributes` and `.gitignore` — never the tool's source, so no
 * `git push` from a checkout of the tool can carry a memory (issue 25).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * The branch of every memory home we create or join: fixed, so the person's
 * `init.defaultBranch` never splits one memory into a `master` and a `main` that each see
 * only their own machine. Not `main`: a memory remote of the old layout already has a
 * `main` that holds the tool's history, and the upgrade pushes beside it.
 */
export const MEMORY_BRANCH = 'memories';

/** What a memory repository may hold besides the export folder: the shared settings. */
export const SETTINGS_FILES = ['config.toml', '.gitattributes', '.gitignore'] as const;

/**
 * `MEMORY_HOME`, else the platform's per-user data folder: `~/.local/share/memory-engine`
 * (`$XDG_DATA_HOME`), `~/Library/Application Support/memory-engine`, `%APPDATA%\memory-engine`.
 */
export function memoryHomeFor(env: NodeJS.ProcessEnv, cwd = process.cwd()): string {
  if (env.MEMORY_HOME) return resolve(cwd, expandHome(env.MEMORY_HOME, env));
  const home = env.HOME || env.USERPROFILE || homedir();
  if (process.platform === 'win32') return join(env.APPDATA || join(home, 'AppData', 'Roaming'), 'memory-engine');
  if (process.platform === 'darwin') return join(home, 'Library', 'Application Support', 'memory-engine');
  return join(env.XDG_DATA_HOME || join(home, '.local', 'share'), 'memory-engine');
}

function expandHome(p: string, env: NodeJS.ProcessEnv): string {
  const home = env.HOME || env.USERPROFILE || homedir();
  if (p === '~') return home;
  return p.startsWith('~/') ? join(home, p.slice(2)) : p;
}

/** Left in a memory repository's .git folder when we create, adopt or judge it: a config file at its top belongs to a home. */
export function homeMarkerPath(gitDir: string): string {
  return join(gitDir, 'memory-engine-repository');
}

export function isMemoryHome(dir: string): boolean {
  return existsSync(homeMarkerPath(join(dir, '.git')));
}

/**
 * A memory home folder that is a git repository we did not make and holds more than memory
 * data at its top (`src/`, `package.json`…): a project named as the memory home. Read without
 * git, for the Stop hook, which writes nothing there then (loadConfig refuses it by what git
 * tracks; the session start tells).
 */
export function looksLikeProject(home: string): boolean {
  if (!existsSync(join(home, '.git')) || existsSync(homeMarkerPath(join(home, '.git')))) return false;
  const ours = new Set(['.git', 'export', '.cache', 'config.local.toml', ...SETTINGS_FILES]);
  try {
    return readdirSync(home).some((n) => !ours.has(n));
  } catch {
    return false;
  }
}

/** A folder holding this tool itself (a clone of it, or the installed package). */
export function isToolFolder(dir: string): boolean {
  try {
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown };
    return pkg.name === 'memory-engine';
  } catch {
    return false;
  }
}

/** Memory files in a tool checkout's `export/`: the layout before the memory home. */
export function hasLegacyMemories(dir: string): boolean {
  const exportDir = join(dir, 'export');
  const jsonl = (d: string) => {
    try {
      return readdirSync(d).some((n) => n.endsWith('.jsonl'));
    } catch {
      return false;
    }
  };
  return jsonl(exportDir) || jsonl(join(exportDir, 'archive'));
}

/** Left in a checkout whose memories were moved: where they went. In `.cache/`, ignored by git in every version. */
export function movedMarkerPath(checkout: string): string {
  return join(checkout, '.cache', 'memory-home.json');
}

export interface MovedMarker {
  home: string;
  at: string;
  memories: number;
  files: number;
  /** The checkout's memory files when they moved (path → size): lines it received since make it pending again. */
  sizes?: Record<string, number>;
  /** The old memory remote could not be read: what it holds was not moved; tried again after this time. */
  remote_unread?: { detail: string; retry_after: string };
}

export function readMovedMarker(checkout: string): MovedMarker | undefined {
  try {
    const m = JSON.parse(readFileSync(movedMarkerPath(checkout), 'utf8')) as MovedMarker;
    return typeof m.home === 'string' ? m : undefined;
  } catch {
    return undefined;
  }
}

/** The sizes of a checkout's memory files (`export/…jsonl`, `export/archive/…jsonl`), read without git. */
export function legacyFileSizes(checkout: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [dir, prefix] of [[join(checkout, 'export'), ''], [join(checkout, 'export', 'archive'), 'archive/']] as const) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const n of names.sort()) {
      if (!n.endsWith('.jsonl')) continue;
      try {
        out[`${prefix}${n}`] = statSync(join(dir, n)).size;
      } catch {
        /* gone meanwhile */
      }
    }
  }
  return out;
}

/**
 * A tool checkout whose memories still wait to move into `home`: it has memory files, and no
 * marker says they all went there — compared, not trusted: lines the checkout received since
 * (an agent's old hooks, a scheduler still running it) make it pending again, and so does an
 * old memory remote that could not be read, once its retry time has come. Moving again is
 * harmless: lines are united, never doubled.
 */
export function pendingLegacy(checkout: string, home: string, now: number = Date.now()): boolean {
  if (!isToolFolder(checkout) || !hasLegacyMemories(checkout)) return false;
  const marker = readMovedMarker(checkout);
  if (!marker || resolve(marker.home) !== resolve(home) || !existsSync(join(home, '.git'))) return true;
  if (marker.remote_unread && now >= Date.parse(marker.remote_unread.retry_after)) return true;
  if (!marker.sizes) return true; // an older version's marker: nothing to compare with
  const sizes = legacyFileSizes(checkout);
  const keys = Object.keys(sizes);
  return keys.length !== Object.keys(marker.sizes).length || keys.some((k) => marker.sizes?.[k] !== sizes[k]);
}
