/**
 * Where the configuration lives, without reading it: the Stop hook needs only this (its
 * queue sits beside the config file), so it never loads the TOML parser.
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The checkout this code runs from (dist/src/config/paths.js → three folders up). */
export function packageRoot(): string {
  return resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
}

/** `--config`, else MEMORY_CONFIG, else <checkout>/config.toml; `explicit` says whether one was named. */
export function configFileFor(configPath: string | undefined, env: NodeJS.ProcessEnv, cwd: string): { file: string; explicit: boolean } {
  const named = configPath ?? (env.MEMORY_CONFIG ? env.MEMORY_CONFIG : undefined);
  return named ? { file: resolve(cwd, named), explicit: true } : { file: join(packageRoot(), 'config.toml'), explicit: false };
}

/**
 * Per-checkout working files that are not memories (the capture queue, the worker's lock):
 * `.cache/` beside the config file, git-ignored, known without parsing the config.
 */
export function workDirFor(baseDir: string): string {
  return join(baseDir, '.cache');
}
