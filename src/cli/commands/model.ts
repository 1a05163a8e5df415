import type { Command } from 'commander';
import { loadEmbedder, modelHost, modelIsCached } from '../../embed/embedder.js';
import { writeFetchState } from '../../app/session/model-fetch.js';
import { UserError } from '../../errors.js';
import { type Context } from '../../app/context.js';
import { printJson } from '../render.js';
import type { Runner } from '../runner.js';

export function registerModel(program: Command, run: Runner): void {
  const model = program.command('model').description('the embedding model');
  model
    .command('pull')
    .description('download the configured model into the model cache now (even with [embedding] allow_remote = false), and check it loads')
    .option('--json', 'print {"model","dim","cache"} as JSON')
    .option('--background', 'as a session start runs it: quietly, the outcome kept for the next session start to tell')
    .action((flags: { json?: boolean; background?: boolean }) => run((ctx) => (flags.background ? pullInBackground(ctx) : pull(ctx, flags.json === true))));
}

/** The detached fetch a session start began (app/session/model-fetch.ts): its outcome goes to the state file. */
async function pullInBackground(ctx: Context): Promise<number> {
  const cfg = { ...ctx.embedderConfig(), onLoad: undefined };
  delete cfg.onLoad;
  try {
    await loadEmbedder(cfg);
    writeFetchState(ctx.config.baseDir, undefined);
    return 0;
  } catch (err) {
    const why = (err instanceof Error ? err.message : String(err)).replace(/^cannot load embedding model \S+: /, '').split(' (tried ')[0] ?? '';
    writeFetchState(ctx.config.baseDir, { status: 'failed', at: ctx.io.now().toISOString(), host: modelHost(cfg), error: why });
    return 1;
  }
}

async function pull(ctx: Context, json: boolean): Promise<number> {
  const cfg = { ...ctx.embedderConfig(), allowRemote: true };
  // A download announces itself with its progress (context.ts); a cached model is only checked.
  if (!json && modelIsCached(cfg)) ctx.io.stderr.write(`memory: checking that ${cfg.model} loads…\n`);
  let embedder;
  try {
    embedder = await loadEmbedder(cfg);
  } catch (err) {
    throw new UserError(err instanceof Error ? err.message : String(err));
  }
  if (json) printJson(ctx.io, { model: embedder.model, dim: embedder.dim, cache: cfg.cacheDir });
  else ctx.io.stdout.write(`Model ${embedder.model} is ready: ${embedder.dim}-dimensional vectors, cached in ${cfg.cacheDir}.\n`);
  return 0;
}
