/**
 * `memory recall`: the UserPromptSubmit hook (Claude Code and Codex). Reads the prompt
 * from the hook input and prints the memories clearly relevant to it as
 * `hookSpecificOutput.additionalContext`, or nothing. Keyword search over the cache as it
 * is (no catching up, no model): it runs before every answer. Measured in bench/RESULTS.md.
 */
import type { Command } from 'commander';
import { projectFor } from '../../capture/project.js';
import { isExcluded } from '../../privacy/exclude.js';
import { formatRecall, recall } from '../../search/recall.js';
import { openCacheAsIs } from '../../store/cache.js';
import { printJson } from '../context.js';
import type { HookRunner } from '../hook-runner.js';

/** The hook's stdout: exactly the fields Claude Code and Codex accept for UserPromptSubmit. */
export function recallOutput(additionalContext: string): string | undefined {
  if (!additionalContext) return undefined;
  return JSON.stringify({ hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext } });
}

export function registerRecall(program: Command, hook: HookRunner): void {
  program
    .command('recall')
    .description('UserPromptSubmit hook: the memories clearly relevant to the prompt on stdin (hook JSON), as additionalContext; nothing when none clears the [recall] floor')
    .option('--prompt <text>', 'recall for this text instead of the hook input (to try it by hand)')
    .option('--cwd <dir>', 'the session\'s working folder (default: hook input, else the current folder)')
    .option('--json', 'print the recalled memories and their coverage as JSON (for a terminal)')
    .action((flags: { prompt?: string; cwd?: string; json?: boolean }) =>
      hook(async (ctx, input) => {
        const cfg = ctx.config.recall;
        const prompt = flags.prompt ?? input.prompt ?? '';
        if (!cfg.enabled && !flags.prompt) return 0;
        if (Array.from(prompt.trim()).length < cfg.min_prompt_chars) {
          if (flags.json) printJson(ctx.io, { recalled: [] });
          return 0;
        }
        const cwd = flags.cwd ?? input.cwd ?? ctx.io.cwd;
        const project = projectFor(cwd, ctx.config.general.project);
        const excluded = ctx.config.privacy.exclude_projects;
        // Nothing from memory enters a session of an excluded project either.
        if (isExcluded(excluded, project, cwd)) return 0;
        const store = openCacheAsIs(ctx.cacheOptions());
        if (!store) return 0; // no cache yet: session start builds it
        try {
          const hits = recall(store, {
            prompt,
            project,
            ...(input.session_id ? { sessionId: input.session_id } : {}),
            maxItems: cfg.max_items,
            minCoverage: cfg.min_coverage,
            minRareWords: cfg.min_rare_words,
            ...(excluded.length > 0 ? { hide: (row) => isExcluded(excluded, row.project ?? undefined, row.cwd ?? undefined) } : {}),
          });
          if (flags.json) {
            printJson(ctx.io, { recalled: hits.map((h) => ({ id: h.row.id, coverage: Number(h.coverage.toFixed(3)), rare_words: Number(h.rareWords.toFixed(2)), matched: h.matched, timestamp: h.row.timestamp, machine: h.row.machine, project: h.row.project, question: h.row.question })) });
            return 0;
          }
          const out = recallOutput(formatRecall(hits, cfg.max_chars));
          if (out) ctx.io.stdout.write(`${out}\n`);
        } finally {
          store.close();
        }
        return 0;
      }),
    );
}
