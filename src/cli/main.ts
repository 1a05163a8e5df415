#!/usr/bin/env node
/**
 * Entry point of `memory`. The Stop/SessionEnd hook runs after every turn of every
 * session, so its path imports only what it needs (config, the queue, a spawn): measured
 * in bench/RESULTS.md against node's own start-up. Everything else loads the full command
 * line (program.ts).
 */
import module from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { IO } from '../app/context.js';
import { CLAUDE_PLUGIN_ID, NODE_MAJOR_NEEDED } from '../agents/plugin.js';

// node:fs through require: importing it as an ES module makes Node build its ES facade, which
// loads fs/promises and the streams, ~3 ms of every hook (bench/RESULTS.md).
const load = module.createRequire(import.meta.url);
const { existsSync, readFileSync, realpathSync } = load('node:fs') as typeof import('node:fs');

/** `session-end` as a hook (not `--foreground`, not the worker, not help), or Codex's `codex-notify`. */
export function isStopHookCall(argv: string[]): boolean {
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === '-c' || a === '--config') i++;
    else if (a.startsWith('--config=') || a === '--debug') continue;
    else rest.push(a);
  }
  if (rest[0] === 'codex-notify') return !rest.some((a) => ['--help', '-h'].includes(a));
  return rest[0] === 'session-end' && !rest.some((a) => ['--foreground', '--worker', '--help', '-h'].includes(a));
}

/**
 * The capture worker starts a moment after the Stop that spawned it: Stops come in bursts
 * (several sessions, a session start, a search), the agent is idle after a Stop anyway, and
 * the worker's start-up (SQLite, git, the model) would otherwise take CPU from the hooks
 * the user waits for. Measured in bench/RESULTS.md.
 */
export const WORKER_START_DELAY_MS = 1000;

/** `recall` (not help): the UserPromptSubmit hook's light path. */
export function isRecallCall(argv: string[]): boolean {
  const rest = argv.filter((a, i) => !(a === '-c' || a === '--config' || argv[i - 1] === '-c' || argv[i - 1] === '--config' || a.startsWith('--config=') || a === '--debug'));
  return rest[0] === 'recall' && !rest.some((a) => a === '--help' || a === '-h');
}

/** `file-recall` (not help): the tool hook's light path. */
export function isFileRecallCall(argv: string[]): boolean {
  const rest = argv.filter((a, i) => !(a === '-c' || a === '--config' || argv[i - 1] === '-c' || argv[i - 1] === '--config' || a.startsWith('--config=') || a === '--debug'));
  return rest[0] === 'file-recall' && !rest.some((a) => a === '--help' || a === '-h');
}

/** The Stop, recall and file-recall hooks: the calls main sends down a light path. */
function isLightHookCall(argv: string[]): boolean {
  return isStopHookCall(argv) || isRecallCall(argv) || isFileRecallCall(argv);
}

/** `session-start` as a hook (not help). */
function isSessionStartCall(argv: string[]): boolean {
  return argv.includes('session-start') && !argv.some((a) => a === '--help' || a === '-h');
}

/**
 * A Claude Code hook that `memory install --claude-code` registered, while the memory-engine
 * plugin is enabled too: the plugin's hooks serve the same events, so this one steps aside
 * (one capture, one injection per event). Read from settings.json, no parser loaded.
 */
export function pluginServes(argv: string[], env: NodeJS.ProcessEnv): boolean {
  if (env.MEMORY_ENGINE_PLUGIN) return false; // this is the plugin
  if (!env.CLAUDE_PROJECT_DIR && env.CLAUDECODE !== '1') return false; // not run by Claude Code
  if (!(isLightHookCall(argv) || isSessionStartCall(argv)) || argv.includes('--agent')) return false;
  try {
    const dir = env.CLAUDE_CONFIG_DIR || join(env.HOME || homedir(), '.claude');
    const settings = JSON.parse(readFileSync(join(dir, 'settings.json'), 'utf8')) as { enabledPlugins?: Record<string, unknown> };
    return settings.enabledPlugins?.[CLAUDE_PLUGIN_ID] === true;
  } catch {
    return false;
  }
}



/**
 * An older Node.js (a hook registered with a node that was since downgraded, a scheduler's
 * PATH): say so instead of crashing — inside the agent at session start, once a day.
 */
async function olderNode(argv: string[], io: IO): Promise<number> {
  const message = `memory-engine needs Node.js ${NODE_MAJOR_NEEDED} or newer; this is ${process.version} (${process.execPath})`;
  const hint = 'install Node.js 22+ and run `memory install --claude-code` / `--codex` again with it (the hooks name the node they run)';
  if (isSessionStartCall(argv)) {
    const [{ configFileFor, workDirFor }, { firstTodayFor }, { dirname }] = await Promise.all([import('../config/paths.js'), import('../app/session/told.js'), import('node:path')]);
    const place = configFileFor(undefined, io.env, io.cwd);
    if (firstTodayFor(workDirFor(dirname(place.file)), 'node-too-old', io.now())) io.stdout.write(`${JSON.stringify({ systemMessage: `memory: memory is off — ${message}: ${hint}` })}\n`);
    return 0;
  }
  io.stderr.write(`memory: ${message}\nhint: ${hint}\n`);
  return isLightHookCall(argv) ? 0 : 1;
}

/**
 * A light hook's module: its bundle (`<name>.bundle.cjs`, the module and everything it imports in
 * one CommonJS file, made by plugin/bundle.mjs at `npm run build` and at the plugin's set-up) when
 * there is one, else the module itself. One file costs Node far less to load than the ~75 it is
 * made of, and as CommonJS it takes Node's built-in modules without their ES facades, on a path
 * that runs on every prompt and every file the agent touches (bench/RESULTS.md).
 */
export async function lightHook<T>(name: string): Promise<T> {
  const bundle = fileURLToPath(new URL(`./${name}.bundle.cjs`, import.meta.url));
  if (existsSync(bundle)) {
    try {
      return load(bundle) as T;
    } catch (err) {
      // A bundle that does not load (damaged, half copied): the modules serve, and it is said.
      process.stderr.write(`memory: ${name}.bundle.cjs does not load (${err instanceof Error ? err.message.split('\n')[0] : String(err)}); running its modules\n`);
    }
  }
  return (await import(`./${name}.js`)) as T;
}

/**
 * A light hook's end. When it gave up reading an agent's stdin that stayed open and silent, the
 * read still waits in Node's thread pool, and Node does not end a process before its pool's
 * threads are done (not even on process.exit): the process becomes a shell that ends with the
 * hook's code. The flag is app/input.ts's `STDIN_WAITS`, read without loading that module; that
 * read is only made where process.execve is there.
 */
function endsHook(code: number): number {
  if ((globalThis as Record<symbol, unknown>)[Symbol.for('memory-engine.stdin-read-waits')] === true) process.execve?.('/bin/sh', ['sh', '-c', `exit ${code}`]);
  return code;
}

export async function main(argv: string[], io: IO): Promise<number> {
  // V8's compiled code of the modules loaded from here on (every command's and hook's), kept by
  // Node in the temp folder and reused by the next process: the hooks start one on every prompt
  // and every file the agent touches. Whether `memory` or the plugins' launcher called.
  module.enableCompileCache?.();
  if (Number(process.versions.node.split('.')[0]) < NODE_MAJOR_NEEDED) return olderNode(argv, io);
  if (pluginServes(argv, io.env)) return 0;
  if (isStopHookCall(argv)) return endsHook(await (await lightHook<typeof import('./stop-hook.js')>('stop-hook')).stopHook(argv, io));
  if (isRecallCall(argv)) return endsHook(await (await lightHook<typeof import('./recall-hook.js')>('recall-hook')).recallHook(argv, io));
  if (isFileRecallCall(argv)) return endsHook(await (await lightHook<typeof import('./file-recall-hook.js')>('file-recall-hook')).fileRecallHook(argv, io));
  if (argv.includes('session-end') && argv.includes('--worker')) await new Promise((r) => setTimeout(r, WORKER_START_DELAY_MS));
  return (await import('./program.js')).main(argv, io);
}

/** Output piped into `head` (or any reader that stops early) ends the command quietly. */
const quietOnClose = new WeakSet<NodeJS.WritableStream>();
function endsQuietly<T extends NodeJS.WritableStream>(stream: T): T {
  if (quietOnClose.has(stream)) return stream;
  quietOnClose.add(stream);
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
  return stream;
}

/**
 * This process's IO, for this entry point and the plugin's launcher (plugin/run.mjs). Getters:
 * creating process.stdin/stdout/stderr streams costs milliseconds that a light hook, which may
 * never write, does not spend.
 */
export function processIO(): IO {
  return {
    get stdout() {
      return endsQuietly(process.stdout);
    },
    get stderr() {
      return endsQuietly(process.stderr);
    },
    get stdin() {
      return process.stdin;
    },
    stdinFd: 0,
    stdoutFd: 1,
    env: process.env,
    cwd: process.cwd(),
    now: () => new Date(),
  };
}

function isEntryPoint(): boolean {
  if (!process.argv[1]) return false;
  try {
    return realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isEntryPoint()) {
  const argv = process.argv.slice(2);
  // Commands may write to process.stdout themselves (commander's help): its streams end quietly
  // from the start. A light hook makes neither stream unless it writes to it (processIO).
  if (!isLightHookCall(argv)) for (const stream of [process.stdout, process.stderr]) endsQuietly(stream);
  process.exitCode = await main(argv, processIO());
}
