/** `memory session-start`: the SessionStart hook (Claude Code and Codex). */
import type { Command } from 'commander';
import { sessionStartOutput } from '../../app/inject.js';
import { queueDirFor, readQueue } from '../../app/queue.js';
import { runSessionStart } from '../../app/session-start.js';
import { spawnModelFetch } from '../../app/model-fetch.js';
import { runtimeOf } from '../../app/context.js';
import type { HookRunner } from '../hook-runner.js';

export function registerSessionStart(program: Command, hook: HookRunner): void {
  program
    .command('session-start')
    .description('SessionStart hook: commit pending captures, git pull and push, incremental cache update (no model); with --inject, recent memories of this project for the agent')
    .option('--inject', 'print {"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":…}}')
    .option('--no-pull', 'do not git pull / push')
    .option('--cwd <dir>', 'the session\'s working folder (default: hook input, else the current folder)')
    .action((flags: { inject?: boolean; pull: boolean; cwd?: string }) =>
      hook(async (ctx, input) => {
        const rt = runtimeOf(ctx);
        const configFile = ctx.config.sources.find((s) => !s.startsWith('env:'));
        const report = await runSessionStart(rt, { cwd: flags.cwd ?? input.cwd ?? ctx.io.cwd, inject: flags.inject === true, pull: flags.pull, spawnModelFetch: spawnModelFetch(configFile, ctx.io.env) });
        const out = sessionStartOutput(flags.inject ? report.context : '', report.notices);
        if (out) ctx.io.stdout.write(`${out}\n`);
        // Work a Stop queued while no worker could run (a crash, a reboot) is picked up now.
        if (readQueue(queueDirFor(ctx.config.baseDir)).length > 0) await rt.startWorker?.();
        return 0;
      }, { tellInAgent: true }),
    );
}
