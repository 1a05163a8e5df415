import type { Command } from 'commander';
import { captureLockFor } from '../../app/sync/locks.js';
import { runtimeOf, type Context } from '../../app/context.js';
import { loadEmbedder } from '../../embed/embedder.js';
import { embedPending } from '../../maintain/embed-pending.js';
import { openCache, type RebuildResult } from '../../store/cache.js';
import { printJson } from '../render.js';
import { progressBar } from '../../app/progress.js';
import type { Runner } from '../runner.js';

export function registerRebuild(program: Command, run: Runner): void {
  program
    .command('rebuild')
    .description('update the SQLite cache from every machine\'s JSONL (incremental unless --full); never loads the model unless --with-model')
    .option('--full', 'rebuild from scratch')
    .option('--with-model', 'also embed memories that have no vector for the configured model, and append the embedded versions')
    .option('--json', 'print one JSON object')
    .action((opts: { full?: boolean; withModel?: boolean; json?: boolean }) =>
      run(async (ctx) => rebuild(ctx, opts)),
    );
}

async function rebuild(ctx: Context, opts: { full?: boolean; withModel?: boolean; json?: boolean }): Promise<number> {
  const bar = progressBar('reading JSONL');
  let { store, result } = openCache(ctx.cacheOptions({ full: opts.full === true, progress: bar.update }));
  bar.done();
  let embedded = 0;
  let embedError: string | undefined;
  if (opts.withModel && result.pending > 0) {
    try {
      const embedder = await loadEmbedder(ctx.embedderConfig());
      const ebar = progressBar('embedding');
      // It appends to this machine's month file: under the repository lock, like every writer
      // (and not during the person's own rebase).
      const { lock } = await captureLockFor(runtimeOf(ctx, { quiet: true }));
      const r = await lock(() =>
        embedPending({
          store,
          embedder,
          exportDir: ctx.config.general.export_dir,
          machine: ctx.config.general.machine_name,
          now: ctx.io.now,
          progress: ebar.update,
        }),
      );
      ebar.done();
      embedded = r.embedded;
      store.close();
      const again = openCache(ctx.cacheOptions());
      store = again.store;
      result = { ...again.result, full: result.full || again.result.full, ms: result.ms + again.result.ms };
    } catch (err) {
      embedError = err instanceof Error ? err.message : String(err);
    }
  }
  const dim = store.dim;
  store.close();
  const out = { ...summary(result), dim, ...(opts.withModel ? { embedded } : {}), ...(embedError ? { embed_error: embedError } : {}) };
  if (opts.json) printJson(ctx.io, out);
  else ctx.io.stdout.write(renderRebuild(result, embedded, opts.withModel === true));
  if (embedError) {
    ctx.warn(embedError);
    return 1;
  }
  return 0;
}

function summary(r: RebuildResult) {
  return {
    records: r.records,
    pending: r.pending,
    files: r.files,
    files_read: r.files_read,
    lines_read: r.lines_read,
    bytes_read: r.bytes_read,
    skipped_lines: r.skipped_lines,
    skipped_by_reason: r.skipped_by_reason,
    skipped: r.skipped.map((s) => ({ file: s.file, line: s.line, offset: s.offset, reason: s.reason, message: s.message })),
    repaired_utf8_lines: r.repaired_utf8_lines,
    full: r.full,
    ...(r.reason ? { reason: r.reason } : {}),
    ms: r.ms,
  };
}

function renderRebuild(r: RebuildResult, embedded: number, withModel: boolean): string {
  const lines = [
    `${r.full ? `Full rebuild${r.reason ? ` (${r.reason})` : ''}` : 'Incremental update'}: ${r.records} memories from ${r.files} files in ${r.ms} ms` +
      (r.files_read > 0 ? ` (${r.lines_read} new lines read)` : ' (nothing new)'),
  ];
  if (withModel) lines.push(`Embedded ${embedded} memories.`);
  if (r.pending > 0) lines.push(`${r.pending} memories have no vector for the configured model yet (keyword search finds them${withModel ? '; the model could not embed them now: see above' : '; `memory rebuild --with-model` embeds them'}).`);
  if (r.skipped_lines > 0) {
    lines.push(`Skipped ${r.skipped_lines} unusable lines:`);
    for (const s of r.skipped.slice(0, 5)) lines.push(`  ${s.file}:${s.line}: ${s.reason}: ${s.message}`);
  }
  return `${lines.join('\n')}\n`;
}
