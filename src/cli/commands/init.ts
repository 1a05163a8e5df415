/** `memory init --remote URL [--yes]`: name the memory remote. */
import type { Command } from 'commander';
import { runInit } from '../../app/sync/init.js';
import { type Context } from '../../app/context.js';
import { printJson } from '../render.js';
import { runtimeOf } from '../../app/context.js';
import type { Runner } from '../runner.js';
import { machineLabel } from '../../project/label.js';

export function registerInit(program: Command, run: Runner): void {
  program
    .command('init')
    .description('name the private git repository your memories go to (recorded in config.local.toml and as its own git remote), join it and push')
    .requiredOption('--remote <url>', 'URL of a private git repository (empty, or one another machine of yours initialized)')
    .option('--yes', 'allow the repository this checkout was cloned from (everyone who can read it reads your memories)')
    .option('--json', 'print the outcome as JSON')
    .action((flags: { remote: string; yes?: boolean; json?: boolean }) => run((ctx) => init(ctx, flags)));
}

async function init(ctx: Context, flags: { remote: string; yes?: boolean; json?: boolean }): Promise<number> {
  const r = await runInit(runtimeOf(ctx, { quiet: true }), { url: flags.remote, yes: flags.yes === true });
  const ok = r.push === undefined || r.push === 'pushed' || r.push === 'up-to-date';
  if (flags.json) {
    printJson(ctx.io, r);
    return ok ? 0 : 1;
  }
  const lines = [
    `memory remote  ${r.remote} → ${r.url}${r.previous ? ` (was ${r.previous})` : ''}, recorded in config.local.toml`,
    `machine        ${machineLabel(r.machine)}`,
    ...(r.pull ? [`pull           ${r.pull}`] : []),
    `push           ${r.push ?? 'nothing to push'}`,
  ];
  ctx.io.stdout.write(`${lines.join('\n')}\n`);
  if (!ok) ctx.io.stderr.write(`memory: the first push did not go through (${r.push}); commits are kept and pushed by the next sync (see memory status)\n`);
  return ok ? 0 : 1;
}
