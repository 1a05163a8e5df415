/** `memory install --claude-code | --codex`: hooks, the memory-recall skill and the MCP server. */
import type { Command } from 'commander';
import { runSetup, type SetupFlags } from '../agent-setup.js';
import type { Runner } from '../runner.js';

export function registerInstall(program: Command, run: Runner): void {
  program
    .command('install')
    .description('set up an agent: hooks (capture, recall at session start and on every prompt), the memory-recall skill and the MCP server; files are backed up first')
    .option('--claude-code', 'Claude Code (respects CLAUDE_CONFIG_DIR)')
    .option('--codex', 'Codex (respects CODEX_HOME)')
    .option('--dry-run', 'show what would change, change nothing')
    .action((flags: SetupFlags) => run((ctx) => runSetup(ctx, flags, 'install')));
}
