/** `memory monthly-merge`: fold closed months into one archive file each. */
import type { Command } from 'commander';
import { runMonthlyMerge } from '../../app/sync/merge-run.js';
import { printJson } from '../render.js';
import { runtimeOf } from '../../app/context.js';
import type { Runner } from '../runner.js';

export function registerMonthlyMerge(program: Command, run: Runner): void {
  program
    .command('monthly-merge')
    .description('fold every machine\'s files of each closed month into export/archive/YYYY-MM.jsonl (deterministic), commit and push')
    .option('--dry-run', 'show what would change, change nothing')
    .option('--no-push', 'commit but do not push')
    .option('--json', 'print the report as JSON')
    .action((flags: { dryRun?: boolean; push: boolean; json?: boolean }) =>
      run(async (ctx) => {
        const report = await runMonthlyMerge(runtimeOf(ctx, { echoInfo: !flags.json }), { dryRun: flags.dryRun === true, push: flags.push });
        if (flags.json) printJson(ctx.io, report);
        else if (report.months.length === 0) ctx.io.stdout.write('Nothing to merge: no per-machine files of closed months.\n');
        else {
          for (const m of report.months) {
            ctx.io.stdout.write(
              `${flags.dryRun ? 'would fold' : 'folded'} ${m.month}: ${m.inputs.length} files → ${m.archive} (${m.records} memories, ${m.tombstones} tombstones${m.dropped ? `, ${m.dropped} unusable lines dropped` : ''})\n`,
            );
          }
          if (report.sync) ctx.io.stdout.write(`${report.sync.committed ? 'Committed' : 'Nothing to commit'}${report.sync.push ? ` (push: ${report.sync.push})` : ''}.\n`);
        }
        return report.error ? 1 : 0;
      }),
    );
}


