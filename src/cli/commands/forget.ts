/** `memory forget`: tombstones on every machine, by id or by a keyword query. */
import { cut, printJson } from '../render.js';
import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import { forgetSelected, rowsForIds } from '../../app/edit-run.js';
import { openCache } from '../../store/cache.js';
import { keywordHits } from '../../search/search.js';
import { type Context } from '../../app/context.js';
import { runtimeOf } from '../../app/context.js';
import { positiveInt } from '../../app/options.js';
import type { Runner } from '../runner.js';

export function registerForget(program: Command, run: Runner): void {
  program
    .command('forget')
    .description('forget memories on every machine: appends tombstones, removes them from search at once, commits and pushes')
    .argument('[ids...]', 'memory ids (or unique prefixes of 6+ characters), as printed by search')
    .option('--query <text>', 'forget what a keyword search for this text finds (shows the list; add --yes to forget)')
    .option('-k, --top-k <n>', 'with --query: how many hits to consider', '10')
    .option('--yes', 'with --query: really forget the listed memories')
    .option('--no-push', 'commit but do not push')
    .option('--json', 'print what was forgotten as JSON')
    .action((ids: string[], flags: { query?: string; topK: string; yes?: boolean; push: boolean; json?: boolean }) => run((ctx) => forget(ctx, ids, flags)));

}

async function forget(ctx: Context, ids: string[], flags: { query?: string; topK: string; yes?: boolean; push: boolean; json?: boolean }): Promise<number> {
  if (ids.length === 0 && !flags.query) throw new UsageError('give memory ids, or --query "text"', 'usage: memory forget <id…>  |  memory forget --query "old api key" --yes');
  const rt = runtimeOf(ctx, { echoInfo: !flags.json });
  if (flags.query && !flags.yes) {
    const { store } = openCache(ctx.cacheOptions());
    try {
      const rows = keywordHits(store, flags.query, {}, positiveInt('--top-k', flags.topK));
      if (flags.json) printJson(ctx.io, { would_forget: rows.map((r) => ({ id: r.id, timestamp: r.timestamp, question: r.question })) });
      else {
        ctx.io.stdout.write(rows.length === 0 ? 'No matching memories.\n' : `Would forget ${rows.length} memories (add --yes to do it):\n`);
        for (const r of rows) ctx.io.stdout.write(`  ${r.id}  ${r.timestamp.slice(0, 10)} / ${r.machine}  Q: ${cut(r.question.replace(/\s+/g, ' '), 80)}\n`);
      }
    } finally {
      store.close();
    }
    return 0;
  }
  const query = flags.query;
  const res = await forgetSelected(rt, (store) => (query ? keywordHits(store, query, {}, positiveInt('--top-k', flags.topK)) : rowsForIds(store, ids)), flags.push);
  if (res.rows.length === 0) {
    if (!flags.json) ctx.io.stdout.write('Nothing to forget.\n');
    else printJson(ctx.io, { forgotten: [] });
    return 0;
  }
  if (flags.json) printJson(ctx.io, { forgotten: res.rows.map((r) => r.id), committed: res.sync?.committed ?? false, push: res.sync?.push?.status ?? null });
  else ctx.io.stdout.write(`Forgot ${res.rows.length} memories${res.sync?.committed ? ' (committed)' : ''}. Every machine drops them at its next session start.\n`);
  return 0;
}
