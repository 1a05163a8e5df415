/**
 * `memory recall`: the UserPromptSubmit hook (Claude Code and Codex). main.ts runs it on a
 * light path (recall-hook.ts); this registration gives it its help text and a full-CLI
 * route that does the same thing.
 */
import type { Command } from 'commander';
import type { HookRunner } from '../hook-runner.js';
import { runRecall } from '../recall-hook.js';

export function registerRecall(program: Command, hook: HookRunner): void {
  program
    .command('recall')
    .description('UserPromptSubmit hook: the memories clearly relevant to the prompt on stdin (hook JSON), as hookSpecificOutput.additionalContext; nothing when none clears the [recall] floor')
    .option('--prompt <text>', 'recall for this text instead of the hook input (to try it by hand)')
    .option('--cwd <dir>', 'the session\'s working folder (default: hook input, else the current folder)')
    .option('--json', 'print the recalled memories, their coverage and rare words as JSON')
    .action((flags: { prompt?: string; cwd?: string; json?: boolean }) =>
      hook(async (ctx, input) => {
        await runRecall(ctx.config, ctx.io, { input, ...flags });
        return 0;
      }),
    );
}
