/**
 * `memory file-recall`: the tool hook (Claude Code's PostToolUse on its file tools, Codex's on
 * apply_patch and its shell). main.ts runs it on a light path (file-recall-hook.ts); this registration gives
 * it its help text and a full-CLI route that does the same thing.
 */
import type { Command } from 'commander';
import type { HookRunner } from '../hook-runner.js';
import { runFileRecall } from '../file-recall-hook.js';

export function registerFileRecall(program: Command, hook: HookRunner): void {
  program
    .command('file-recall')
    .description('tool hook (PostToolUse): the earlier sessions on the file the agent read or edited, or a shell command named (hook JSON on stdin), as hookSpecificOutput.additionalContext; each memory once per session')
    .action(() =>
      hook(async (ctx, input) => {
        await runFileRecall(ctx.config, ctx.io, input);
        return 0;
      }),
    );
}
