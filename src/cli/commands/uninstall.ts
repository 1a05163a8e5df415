/** `memory uninstall --claude-code | --codex`: remove exactly what install added. */
import type { Command } from 'commander';
import { runSetup, type SetupFlags } from '../agent-setup.js';
import type { Runner } from '../runner.js';

export function registerUninstall(program: Command, run: Runner): void {
  program
    .command('uninstall')
    .description('remove exactly what install added (memories are kept)')
    .option('--claude-code', 'Claude Code')
    .option('--codex', 'Codex')
    .option('--dry-run', 'show what would change, change nothing')
    .action((flags: SetupFlags) => run((ctx) => runSetup(ctx, flags, 'uninstall')));
}
