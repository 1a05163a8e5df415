#!/usr/bin/env node
/**
 * Entry point of `memory`. The Stop/SessionEnd hook runs after every turn of every
 * session, so its path imports only what it needs (config, the queue, a spawn): measured
 * in bench/RESULTS.md against node's own start-up. Everything else loads the full command
 * line (program.ts).
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { IO } from './context.js';

/** `session-end` as a hook: not `--foreground`, not the worker, not help. */
export function isStopHookCall(argv: string[]): boolean {
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === '-c' || a === '--config') i++;
    else if (a.startsWith('--config=') || a === '--debug') continue;
    else rest.push(a);
  }
  return rest[0] === 'session-end' && !rest.some((a) => ['--foreground', '--worker', '--help', '-h'].includes(a));
}

export async function main(argv: string[], io: IO): Promise<number> {
  if (isStopHookCall(argv)) return (await import('./stop-hook.js')).stopHook(argv, io);
  return (await import('./program.js')).main(argv, io);
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
  const code = await main(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
    now: () => new Date(),
  });
  process.exitCode = code;
}
