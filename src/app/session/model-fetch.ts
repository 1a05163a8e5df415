/**
 * The first run fetches the model by itself: a session start that finds no embedding model
 * starts `memory model pull --background` (detached: the session does not wait for ~120 MB) and
 * says so once; keyword search works meanwhile. A fetch that failed is told with the host it
 * tried and what else works (a mirror, a folder), at most once a day, and tried again a day on.
 * The state lives in `.cache/model-fetch.json` beside the config.
 */
import { realpathSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDir, workDirFor, writeKeepingMode } from '../../config/paths.js';
import { modelAlternatives, modelHost, modelIdOf, modelIsCached, type EmbedderConfig } from '../../embed/embedder.js';
import { firstTodayFor } from './told.js';
import type { Runtime } from '../runtime.js';

export interface FetchState {
  status: 'running' | 'failed';
  at: string;
  host: string;
  pid?: number;
  error?: string;
}

export function fetchStatePath(baseDir: string): string {
  return join(workDirFor(baseDir), 'model-fetch.json');
}

export function readFetchState(baseDir: string): FetchState | undefined {
  try {
    return JSON.parse(readFileSync(fetchStatePath(baseDir), 'utf8')) as FetchState;
  } catch {
    return undefined;
  }
}

export function writeFetchState(baseDir: string, state: FetchState | undefined): void {
  if (!state) {
    rmSync(fetchStatePath(baseDir), { force: true });
    return;
  }
  ensurePrivateDir(workDirFor(baseDir));
  writeKeepingMode(fetchStatePath(baseDir), `${JSON.stringify(state)}\n`);
}

export function alive(pid: number | undefined): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const DAY_MS = 86_400_000;

/**
 * At session start: nothing when the model is here; else start (or keep) the background fetch,
 * and return what to tell the person, if anything today.
 */
export async function ensureModel(rt: Runtime, spawnFetch: (() => Promise<number | undefined>) | undefined): Promise<string | undefined> {
  const cfg: EmbedderConfig = rt.embedderConfig();
  if (modelIsCached(cfg)) return undefined;
  const id = modelIdOf(cfg.model);
  const workDir = workDirFor(rt.config.baseDir);
  const now = rt.now();
  if (!cfg.allowRemote) {
    return firstTodayFor(workDir, 'model-off', now) ? `memory: the embedding model ${id} is not on this machine: memories are found by keywords only${modelAlternatives(cfg)}.` : undefined;
  }
  const state = readFetchState(rt.config.baseDir);
  if (state?.status === 'running' && alive(state.pid) && now.getTime() - Date.parse(state.at) < DAY_MS) return undefined;
  const failedRecently = state?.status === 'failed' && now.getTime() - Date.parse(state.at) < DAY_MS;
  if (failedRecently) {
    return firstTodayFor(workDir, 'model-failed', now) ? `memory: the embedding model ${id} could not be downloaded from ${state.host} (${state.error ?? 'no answer'}): memories are found by keywords only${modelAlternatives(cfg)}.` : undefined;
  }
  const pid = await spawnFetch?.();
  writeFetchState(rt.config.baseDir, { status: 'running', at: now.toISOString(), host: modelHost(cfg), ...(pid ? { pid } : {}) });
  return `memory: downloading the embedding model ${id} from ${modelHost(cfg)} in the background (first use only, about 120 MB); meanwhile memories are found by keywords.`;
}

/** `memory [--config F] <args>`, detached from this process, in `cwd`; its pid. */
async function spawnDetached(configFile: string | undefined, env: NodeJS.ProcessEnv, args: string[], cwd?: string): Promise<number | undefined> {
  const { spawn } = await import('node:child_process');
  const { tmpdir } = await import('node:os');
  const child = spawn(process.execPath, [realpathSync(process.argv[1] as string), ...(configFile ? ['--config', configFile] : []), ...args], { detached: true, stdio: 'ignore', cwd: cwd ?? tmpdir(), env });
  child.on('error', () => undefined);
  child.unref();
  return child.pid;
}

/** `memory renames` for a checkout, detached (session start: the rename map brought up to HEAD). */
export function spawnRenames(configFile: string | undefined, env: NodeJS.ProcessEnv): (top: string) => Promise<number | undefined> {
  return (top) => spawnDetached(configFile, env, ['renames', '--cwd', top], top);
}

/** `memory scrub --dry-run --background`, detached (session start: memories captured under earlier redaction rules checked). */
export function spawnScrubCheck(configFile: string | undefined, env: NodeJS.ProcessEnv): () => Promise<number | undefined> {
  return () => spawnDetached(configFile, env, ['scrub', '--dry-run', '--background']);
}

/** `memory model pull --background` as a detached process of this same command line. */
export function spawnModelFetch(configFile: string | undefined, env: NodeJS.ProcessEnv): () => Promise<number | undefined> {
  return () => spawnDetached(configFile, env, ['model', 'pull', '--background']);
}
