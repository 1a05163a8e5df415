/**
 * session-start and session-end: the Claude Code hooks. Whatever happens they exit 0 and
 * keep stdout for the hook protocol; diagnostics go to stderr and the log file.
 */
import { spawn } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Option, type Command } from 'commander';
import { errorMessage } from '../../errors.js';
import { parseHookInput, readStdin, type HookInput } from '../../hooks/input.js';
import { sessionStartOutput } from '../../hooks/inject.js';
import { resolveTranscript, runSessionEnd } from '../../hooks/session-end.js';
import { runSessionStart } from '../../hooks/session-start.js';
import { makeContext, printJson, type Context, type IO } from '../context.js';
import { runtimeOf } from '../hook-runtime.js';
import type { Runner } from '../main.js';

/** Runs a hook body; any failure becomes one stderr line and exit 0. */
export type HookRunner = (body: (ctx: Context, input: HookInput) => Promise<number>) => Promise<void>;

export function makeHookRunner(io: IO, globals: () => { config?: string }, setExit: (code: number) => void): HookRunner {
  return async (body) => {
    let input: HookInput = {};
    try {
      const parsed = parseHookInput(await readStdin(io.stdin as NodeJS.ReadStream));
      input = parsed.input;
      if (parsed.problem) io.stderr.write(`memory: ${parsed.problem}\n`);
      const ctx = makeContext(globals(), io);
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
    .description('SessionStart hook: git pull, incremental cache update (no model), and with --inject print recent memories of this project for the agent')
    .option('--inject', 'print {"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":…}}')
    .option('--no-pull', 'do not git pull / push')
    .option('--cwd <dir>', 'the session\'s working folder (default: hook input, else the current folder)')
    .action((flags: { inject?: boolean; pull: boolean; cwd?: string }) =>
      hook(async (ctx, input) => {
        const rt = runtimeOf(ctx);
        const report = await runSessionStart(rt, { cwd: flags.cwd ?? input.cwd ?? ctx.io.cwd, inject: flags.inject === true, pull: flags.pull });
        if (flags.inject && report.context) ctx.io.stdout.write(`${sessionStartOutput(report.context)}\n`);
        return 0;
      }),
    );

  program
    .command('session-end')
    .description('Stop/SessionEnd hook: returns at once; a background worker captures the transcript, appends, commits and pushes')
    .option('--transcript <path>', 'transcript to capture (default: hook input, else the newest of the current project)')
    .option('--session <id>', 'session id (default: hook input)')
    .option('--cwd <dir>', 'the session\'s working folder (default: hook input, else the current folder)')
    .option('--no-push', 'commit but do not push')
    .option('--foreground', 'do the work in this process and report it (for a terminal, not for hooks)')
    .option('--json', 'with --foreground: print the report as JSON')
    .addOption(new Option('--worker', 'internal: the detached worker').hideHelp())
    .action((flags: EndFlags) => {
      if (flags.foreground) return run(async (ctx) => sessionEndForeground(ctx, flags));
      return hook(async (ctx, input) => sessionEndHook(ctx, input, flags));
    });
}

function request(ctx: Context, input: HookInput, flags: EndFlags) {
  const transcript = flags.transcript ?? input.transcript_path;
  const sessionId = flags.session ?? input.session_id;
  const cwd = flags.cwd ?? input.cwd ?? ctx.io.cwd;
  return { ...(transcript ? { transcript } : {}), ...(sessionId ? { sessionId } : {}), cwd, push: flags.push };
}

async function sessionEndHook(ctx: Context, input: HookInput, flags: EndFlags): Promise<number> {
  const rt = runtimeOf(ctx, { quiet: flags.worker === true });
  const req = request(ctx, input, flags);
  if (flags.worker) {
    await runSessionEnd(rt, req);
    return 0;
  }
  // The hook itself only checks its input and hands the work to a detached process:
  // Stop fires after every turn and must never make the user wait.
  const t = resolveTranscript(rt, req);
  if (!t.path) {
    rt.log.warn(`session-end: ${t.problem ?? 'no transcript'}`);
    return 0;
  }
  const args = [
    realpathSync(process.argv[1] as string),
    ...(ctx.config.sources[0] && !ctx.config.sources[0].startsWith('env:') ? ['--config', ctx.config.sources[0]] : []),
    'session-end', '--worker', '--transcript', t.path, '--cwd', req.cwd,
    ...(req.sessionId ? ['--session', req.sessionId] : []),
    ...(req.push ? [] : ['--no-push']),
  ];
  const child = spawn(process.execPath, args, { detached: true, stdio: 'ignore', cwd: tmpdir(), env: ctx.io.env });
  child.on('error', (err) => rt.log.warn(`cannot start the session-end worker: ${err.message}`));
  child.unref();
  return 0;
}

async function sessionEndForeground(ctx: Context, flags: EndFlags): Promise<number> {
  const rt = runtimeOf(ctx, { echoInfo: !flags.json });
  const run = await runSessionEnd(rt, request(ctx, {}, flags));
  if (!run) return 1;
  if (flags.json) printJson(ctx.io, { ...run.capture, sync: run.sync ?? null });
  return 0;
}
