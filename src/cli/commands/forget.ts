/** `memory forget`: tombstones on every machine, by id or by a keyword query. */
import { cut, printJson } from '../render.js';
import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import { teamForgets } from '../../app/team/team-read.js';
import { publishDue } from '../../app/capture/worker.js';
import { forgetSelected, rowsForIds } from '../../app/edit-run.js';
import { openCache } from '../../store/cache.js';
import { keywordHits } from '../../search/search.js';
import { type Context } from '../../app/context.js';
import { runtimeOf } from '../../app/context.js';
import { positiveInt } from '../../app/options.js';
import type { Runner } from '../runner.js';
import { localDay } from '../../days.js';
import { machineLabel } from '../../project/label.js';

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
        for (const r of rows) ctx.io.stdout.write(`  ${r.id}  ${localDay(r.timestamp)} / ${machineLabel(r.machine)}  Q: ${cut(r.question.replace(/\s+/g, ' '), 80)}\n`);
      }
    } finally {
      store.close();
    }
    return 0;
  }
  const query = flags.query;
  // A team memory's id is `<author>/<id>`: one's own is forgotten as any memory of one's own (and
  // then for everyone in the team); someone else's is hidden for this person alone.
  const teamIds = query ? [] : ids.filter((id) => id.includes('/'));
  const { mine, hidden } = teamIds.length > 0 ? await teamForgets(runtimeOf(ctx, { quiet: true }), teamIds) : { mine: [], hidden: [] };
  const personalIds = [...ids.filter((id) => !id.includes('/')), ...mine];
  const res = personalIds.length > 0 || query ? await forgetSelected(rt, (store) => (query ? keywordHits(store, query, {}, positiveInt('--top-k', flags.topK)) : rowsForIds(store, personalIds)), flags.push) : { rows: [] };
  // The author's forget reaches the team now: a tombstone in their folder, which every cache drops at its next pull.
  if (res.rows.length > 0 && ctx.config.teams.length > 0) await publishDue(rt, { catchUp: false });
  if (res.rows.length === 0 && hidden.length === 0) {
    if (!flags.json) ctx.io.stdout.write('Nothing to forget.\n');
    else printJson(ctx.io, { forgotten: [], hidden: [] });
    return 0;
  }
  if (flags.json) printJson(ctx.io, { forgotten: res.rows.map((r) => r.id), hidden: hidden.map((h) => `${h.author}/${h.id}`), committed: 'sync' in res ? (res.sync?.committed ?? false) : false, push: 'sync' in res ? (res.sync?.push?.status ?? null) : null });
  else {
    if (res.rows.length > 0) ctx.io.stdout.write(`Forgot ${res.rows.length} memories${'sync' in res && res.sync?.committed ? ' (committed)' : ''}. Every machine drops them at its next session start${ctx.config.teams.length > 0 ? ', and so does every teammate\'s for those you published' : ''}.\n`);
    for (const h of hidden) ctx.io.stdout.write(`Hid ${h.author}/${h.id} (team ${h.team}) for you alone, on every machine of yours: it is ${h.author}'s memory, and only ${h.author}'s forget removes it for everyone.\n`);
  }
  return 0;
}

