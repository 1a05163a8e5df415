/**
 * Where the configuration lives, without reading it: the Stop hook needs only this (its
 * queue sits beside the config file), so it never loads the TOML parser.
 */
import { chmodSync, mkdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMemoryHome, isToolFolder, memoryHomeFor, pendingLegacy } from '../home/place.js';

/** The folder this code runs from, a checkout or the installed package (dist/src/config/paths.js → three folders up). */
export function packageRoot(): string {
  return resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
}

export interface ConfigPlace {
  /**
   * The shared layer of the configuration (`config.toml`; it may not exist yet). Its folder holds
   * the machine's own layer, `config.local.toml`, and the working folder `.cache/`.
   */
  file: string;
  /** A configuration was named (`--config`, MEMORY_CONFIG) and is used as it is. */
  explicit: boolean;
  /** What was named, when it was the machine's layer (`config.local.toml`) rather than the configuration's `config.toml`. */
  named?: string;
  /** The memory home this config belongs to: its folder is the memory repository (created on first use). */
  home?: string;
  /** A checkout of the tool whose memories (today's layout, issue 25) still wait to move into the home. */
  legacy?: string;
}

/** This machine's own layer of a configuration, beside its `config.toml`: never committed. */
export const LOCAL_CONFIG_NAME = 'config.local.toml';

/** The machine's layer of the configuration whose shared layer is `file`. */
export function localLayerOf(file: string): string {
  return join(dirname(file), LOCAL_CONFIG_NAME);
}

/**
 * `--config`, else MEMORY_CONFIG, else the memory home's `config.toml` (MEMORY_HOME, else the
 * per-user data folder). A name always means a whole configuration: naming its
 * `config.local.toml` means the configuration of that folder (its `config.toml` under it), as
 * hooks installed by an earlier version did — read alone, the shared settings (exclusions,
 * [inject]) never reached them. A config file inside a checkout of the tool — the layout before
 * the memory home, or a contributor's clone — means the memory home: memories are never
 * committed on a branch of the tool's repository; that checkout's memories move into the home.
 */
export function configFileFor(configPath: string | undefined, env: NodeJS.ProcessEnv, cwd: string): ConfigPlace {
  const given = configPath ?? (env.MEMORY_CONFIG ? env.MEMORY_CONFIG : undefined);
  const named = given ? resolve(cwd, given) : undefined;
  const file = named && basename(named) === LOCAL_CONFIG_NAME ? join(dirname(named), 'config.toml') : named;
  const home = memoryHomeFor(env, cwd);
  if (file && named && !isToolFolder(dirname(file))) {
    const dir = dirname(file);
    return { file, explicit: true, ...(named !== file ? { named } : {}), ...(isMemoryHome(dir) || dir === home ? { home: dir } : {}) };
  }
  const checkout = file ? dirname(file) : packageRoot();
  return { file: join(home, 'config.toml'), explicit: false, home, ...(pendingLegacy(checkout, home) ? { legacy: checkout } : {}) };
}

/**
 * Per-checkout working files that are not memories (the capture queue, the worker's lock):
 * `.cache/` beside the config file, git-ignored, known without parsing the config.
 */
export function workDirFor(baseDir: string): string {
  return join(baseDir, '.cache');
}

/** Files we create that hold conversations, tokens or settings: readable by this user only. */
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Replace a file atomically (temp file, rename) keeping its permissions: settings files that
 * hold API keys are often 0600, and a temp file written with the umask's default would
 * loosen them. A new file is 0600.
 */
export function writeKeepingMode(path: string, text: string): void {
  let mode = PRIVATE_FILE_MODE;
  try {
    mode = statSync(path).mode & 0o7777;
  } catch {
    /* new file */
  }
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, text, { mode });
  chmodSync(tmp, mode); // the umask applies to `mode` on create
  renameSync(tmp, path);
}

/**
 * A folder of ours that holds such files (`.cache/`, the queue): created `0700`, and
 * tightened if an earlier version left it readable by others (on a shared host the umask's
 * default lets every user read the cache and the queue).
 */
/**
 * The folder of the cache (and its log): our own `.cache/` is made private, tightened if an
 * earlier version left it open; a folder the person chose for `db_path` is made 0700 only
 * when we create it, never changed.
 */
export function ensureCacheDir(dir: string): void {
  if (basename(dir) === '.cache') ensurePrivateDir(dir);
  else mkdirSync(dir, { recursive: true, mode: 0o700 });
}

export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  try {
    if ((statSync(dir).mode & 0o077) !== 0) chmodSync(dir, 0o700);
  } catch {
    /* not ours to change (another owner): leave it */
  }
}
