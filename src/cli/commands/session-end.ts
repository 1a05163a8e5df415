/**
 * `memory session-end`: the Stop/SessionEnd hook's slow half (the background worker) and a
 * foreground capture for a terminal. The hook itself is main.ts's fast path (stop-hook.ts).
 */
import { Option, type Command } from 'commander';
import { runSessionEnd } from '../../app/capture/session-end.js';
import { runWorker } from '../../app/capture/worker.js';
import { type Context } from '../../app/context.js';
import { printJson } from '../render.js';
import { runtimeOf } from '../../app/context.js';
import type { HookRunner } from '../hook-runner.js';
import type { Runner } from '../runner.js';

interface EndFlags {
  transcript?: string;
  session?: string;
  cwd?: string;
  push: boolean;
  worker?: boolean;
  foreground?: boolean;
  json?: boolean;
}

export function registerSessionEnd(program: Command, hook: HookRunner, run: Runner): void {
  program
    .command('session-end')
    .description('Stop/SessionEnd hook: queues the transcript and returns at once; one background worker captures, and commits and pushes in batches (at once after SessionEnd or with --transcript)')
    .option('--transcript <path>', 'transcript to capture (default: hook input, else the newest of the current project)')
    .option('--session <id>', 'session id (default: hook input)')
    .option('--cwd <dir>', 'the session\'s working folder (default: hook input)')
    .option('--no-push', 'commit but do not push')
    .option('--foreground', 'capture, commit and push in this process and report it (for a terminal, not for hooks)')
    .option('--json', 'with --foreground: print the report as JSON')
    .addOption(new Option('--worker', 'internal: the background worker').hideHelp())
    .action((flags: EndFlags) => {
      if (flags.foreground) return run(async (ctx) => sessionEndForeground(ctx, flags));
      // Only the worker gets here: the hook itself is main.ts's fast path (stop-hook.ts).
      return hook(async (ctx) => {
        const rt = runtimeOf(ctx, { quiet: true });
        await runWorker(rt, { sleep: (ms) => new Promise((r) => setTimeout(r, ms)) });
        return 0;
      });
    });
}

async function sessionEndForeground(ctx: Context, flags: EndFlags): Promise<number> {
  const rt = runtimeOf(ctx, { echoInfo: !flags.json });
  const run = await runSessionEnd(rt, {
    ...(flags.transcript ? { transcript: flags.transcript } : {}),
    ...(flags.session ? { sessionId: flags.session } : {}),
    ...(flags.cwd ? { cwd: flags.cwd } : {}),
    // The folder the command runs in only helps find a transcript; it never names the project:
    // the transcript's own cwd does (or --cwd).
    locateIn: ctx.io.cwd,
    push: flags.push,
  });
  if (!run) return 1;
  if (flags.json) printJson(ctx.io, { ...run.capture, sync: run.sync ?? null });
  return 0;
}
