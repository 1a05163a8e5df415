import type { Command } from 'commander';
import { loadEmbedder, modelIsCached } from '../../embed/embedder.js';
import { UserError } from '../../errors.js';
import { type Context } from '../../app/context.js';
import { printJson } from '../render.js';
import type { Runner } from '../program.js';

export function registerModel(program: Command, run: Runner): void {
  const model = program.command('model').description('the embedding model');
  model
    .command('pull')
    .description('download the configured model into the model cache now (even with [embedding] allow_remote = false), and check it loads')
    .option('--json', 'print {"model","dim","cache"} as JSON')
    .action((flags: { json?: boolean }) => run((ctx) => pull(ctx, flags.json === true)));
}

async function pull(ctx: Context, json: boolean): Promise<number> {
  const cfg = { ...ctx.embedderConfig(), allowRemote: true };
  // A download announces itself with its progress (context.ts); a cached model is only checked.
  if (!json && modelIsCached(cfg)) ctx.io.stderr.write(`memory: checking that ${cfg.model} loads…\n`);
  let embedder;
  try {
    embedder = await loadEmbedder(cfg);
  } catch (err) {
    throw new UserError(err instanceof Error ? err.message : String(err), 'check the network and [embedding] model, then try again');
  }
  if (json) printJson(ctx.io, { model: embedder.model, dim: embedder.dim, cache: cfg.cacheDir });
  else ctx.io.stdout.write(`Model ${embedder.model} is ready: ${embedder.dim}-dimensional vectors, cached in ${cfg.cacheDir}.\n`);
  return 0;
}
