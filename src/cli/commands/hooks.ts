/**
 * session-start and session-end: the Claude Code hooks. Whatever happens they exit 0 and
 * keep stdout for the hook protocol; diagnostics go to stderr and the log file.
 */
import { Option, type Command } from 'commander';
import { errorMessage } from '../../errors.js';
import { parseHookInput, readStdin, type HookInput } from '../../hooks/input.js';
import { sessionStartOutput } from '../../hooks/inject.js';
import { queueDirFor, readQueue } from '../../hooks/queue.js';
import { runSessionEnd } from '../../hooks/session-end.js';
import { runWorker } from '../../hooks/worker.js';
import { runSessionStart } from '../../hooks/session-start.js';
import { makeContext, printJson, type Context, type IO } from '../context.js';
import { runtimeOf } from '../hook-runtime.js';
import type { Runner } from '../program.js';

/** Runs a hook body; any failure becomes one stderr line and exit 0. */
export type HookRunner = (body: (ctx: Context, input: HookInput) => Promise<number>) => Promise<void>;

export function makeHookRunner(io: IO, globals: () => { config?: string }, setExit: (code: number) => void): HookRunner {
  return async (body) => {
    let input: HookInput = {};
    try {
      const parsed = parseHookInput(await readStdin(io.stdin as NodeJS.ReadStream));
      input = parsed.input;
      if (parsed.problem) io.stderr.write(`memory: ${parsed.problem}\n`);
      const ctx = await makeContext(globals(), io);
      setExit(await body(ctx, input));
    } catch (err) {
      io.stderr.write(`memory: ${errorMessage(err).split('\n').join(' ')}\n`);
      setExit(0);
    }
  };
}

interface EndFlags {
  transcript?: string;
  session?: string;
  cwd?: string;
  push: boolean;
  worker?: boolean;
  foreground?: boolean;
  json?: boolean;
}

export function registerHooks(program: Command, hook: HookRunner, run: Runner): void {
  program
    .command('session-start')
    .description('SessionStart hook: commit pending captures, git pull and push, incremental cache update (no model); with --inject, recent memories of this project for the agent')
    .option('--inject', 'print {"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":…}}')
    .option('--no-pull', 'do not git pull / push')
    .option('--cwd <dir>', 'the session\'s working folder (default: hook input, else the current folder)')
    .action((flags: { inject?: boolean; pull: boolean; cwd?: string }) =>
      hook(async (ctx, input) => {
        const rt = runtimeOf(ctx);
        const report = await runSessionStart(rt, { cwd: flags.cwd ?? input.cwd ?? ctx.io.cwd, inject: flags.inject === true, pull: flags.pull });
        const out = sessionStartOutput(flags.inject ? report.context : '', report.notices);
        if (out) ctx.io.stdout.write(`${out}\n`);
        // Work a Stop queued while no worker could run (a crash, a reboot) is picked up now.
        if (readQueue(queueDirFor(ctx.config.baseDir)).length > 0) await rt.startWorker?.();
        return 0;
      }),
    );

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
