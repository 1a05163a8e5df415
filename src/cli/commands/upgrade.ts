/**
 * `memory upgrade [--from CHECKOUT]`: move the memories of the layout before the memory home
 * (committed in a checkout of the tool) into the home, now, and sync. The first writer after
 * an update of the tool does the same by itself for the checkout it runs from; this is the
 * one command for a checkout elsewhere (after `npm install -g memory-engine`, say).
 */
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { runtimeOf, type Context } from '../../app/context.js';
import { describeMove } from '../../app/upgrade/moved.js';
import { runUpgrade } from '../../app/upgrade/upgrade-run.js';
import { UserError } from '../../errors.js';
import { hasLegacyMemories, isToolFolder, readMovedMarker } from '../../home/place.js';
import { printJson } from '../render.js';
import type { Runner } from '../runner.js';
import { localDay } from '../../days.js';

export function registerUpgrade(program: Command, run: Runner): void {
  program
    .command('upgrade')
    .description("move the memories of an older memory-engine checkout (committed in its export/) into the memory home, and sync")
    .option('--from <checkout>', 'the checkout of the tool that holds them (default: the one this command runs from)')
    .option('--json', 'print the outcome as JSON')
    // With --from, the checkout's own config.toml is named: the home then takes over its
    // machine name, shared settings and memory remote, exactly as the automatic upgrade does.
    .action((flags: { from?: string; json?: boolean }) => run((ctx) => upgrade(ctx, flags), flags.from ? { config: join(resolve(flags.from), 'config.toml') } : undefined));
}

async function upgrade(ctx: Context, flags: { from?: string; json?: boolean }): Promise<number> {
  if (!ctx.config.home) {
    throw new UserError(`the configuration ${ctx.config.sources[0] ?? ''} names its own export folder (${ctx.config.general.export_dir}), not a memory home: there is nothing to move it into`, 'run memory upgrade without --config / MEMORY_CONFIG');
  }
  if (flags.from) {
    const from = resolve(ctx.io.cwd, flags.from);
    if (!isToolFolder(from)) throw new UserError(`${from} is not a checkout of memory-engine (no package.json of it there)`, 'name the folder you cloned memory-engine into, the one that holds export/ and config.toml');
    if (!hasLegacyMemories(from)) throw new UserError(`${from}/export holds no memory files: nothing to move`);
    ctx.config.legacy ??= from; // moved before: said below
  }
  const legacy = ctx.config.legacy;
  const report = await runUpgrade(runtimeOf(ctx, { quiet: true }));
  if (flags.json) {
    printJson(ctx.io, { home: ctx.config.home, moved: report ?? null });
    return 0;
  }
  if (report) ctx.io.stdout.write(`${describeMove(report).replace(/^memory: /, '')}\n`);
  else {
    const marker = legacy ? readMovedMarker(legacy) : undefined;
    ctx.io.stdout.write(marker ? `nothing to move: the memories of ${legacy} already moved into ${marker.home} (${localDay(marker.at)})\n` : `nothing to move: memories live in the memory home ${ctx.config.home}\n`);
  }
  return 0;
}
