/** forget, show and monthly-merge: editing and compacting the memory. */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Command } from 'commander';
import { UserError } from '../../errors.js';
import { captureLockFor } from '../../hooks/locks.js';
import { commitAndPush } from '../../hooks/sync-run.js';
import { openCache } from '../../store/cache.js';
import { appendToCurrentMonth } from '../../export/files.js';
import { resolveIds, tombstonesFor } from '../../maintain/forget.js';
import { scrubMemories, type ScrubResult } from '../../maintain/scrub.js';
import { runMonthlyMerge } from '../../hooks/merge-run.js';
import { keywordHits } from '../../search/search.js';
import { rowToRecord, type MemoryRow } from '../../store/store.js';
import { printJson, type Context } from '../context.js';
import { runtimeOf } from '../hook-runtime.js';
import { positiveInt } from '../options.js';
import { cut } from '../render.js';
import type { Runner } from '../program.js';
import { replacementLines } from '../../maintain/scrub.js';

export function registerMemories(program: Command, run: Runner): void {
  program
    .command('show')
    .description('print one memory in full')
    .argument('<id>', 'memory id (or a unique prefix of 6+ characters)')
    .option('--json', 'print the JSONL record (without the embedding)')
    .action((id: string, flags: { json?: boolean }) => run((ctx) => show(ctx, id, flags.json === true)));

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

  program
    .command('scrub')
    .description('re-apply the current privacy rules (<private>, secret redaction) to every exported memory, writing redacted versions')
    .option('--dry-run', 'count what would be redacted, write nothing')
    .option('--no-push', 'commit but do not push')
    .option('--json', 'print the report as JSON')
    .action((flags: { dryRun?: boolean; push: boolean; json?: boolean }) => run((ctx) => scrub(ctx, flags)));

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

function recordView(row: MemoryRow): Record<string, unknown> {
  const r = rowToRecord(row);
  const { extra, ...rest } = r;
  return { ...rest, ...(extra ?? {}), ...(row.model ? { model: row.model, dim: row.dim } : {}) };
}

async function show(ctx: Context, id: string, json: boolean): Promise<number> {
  const { store } = openCache(ctx.cacheOptions({ lockTimeoutMs: 3000 }));
  try {
    const res = resolveIds(store, [id]);
    if (res.ambiguous.length > 0) throw new UserError(`"${id}" matches several memories: ${res.ambiguous[0]?.matches.join(', ')}`, 'give more characters of the id');
    const row = res.rows[0];
    if (!row) throw new UserError(`no memory with id "${id}"`, 'ids are printed by `memory search` (forgotten memories are gone for good)');
    if (json) printJson(ctx.io, recordView(row));
    else {
      const files = row.files ? (JSON.parse(row.files) as string[]) : [];
      ctx.io.stdout.write(
        [
          `id       ${row.id}`,
          `date     ${row.timestamp}  (machine ${row.machine}, project ${row.project ?? '-'}${row.git_branch ? `, branch ${row.git_branch}` : ''})`,
          ...(row.cwd ? [`cwd      ${row.cwd}`] : []),
          ...(files.length > 0 ? [`files    ${files.join(', ')}`] : []),
          `embedded ${row.has_vector ? `yes (${row.model ?? '?'})` : 'no (pending)'}`,
          '',
          'Q:',
          row.question,
          '',
          'A:',
          row.answer,
          '',
        ].join('\n'),
      );
    }
  } finally {
    store.close();
  }
  return 0;
}

async function forget(ctx: Context, ids: string[], flags: { query?: string; topK: string; yes?: boolean; push: boolean; json?: boolean }): Promise<number> {
  if (ids.length === 0 && !flags.query) throw new UserError('give memory ids, or --query "text"', 'usage: memory forget <id…>  |  memory forget --query "old api key" --yes');
  const rt = runtimeOf(ctx, { echoInfo: !flags.json });
  const { lock, repo } = await captureLockFor(rt);
  return lock(async () => {
    let { store } = openCache(ctx.cacheOptions());
    let rows: MemoryRow[];
    try {
      if (flags.query) {
        rows = keywordHits(store, flags.query, {}, positiveInt('--top-k', flags.topK));
        if (!flags.yes) {
          if (flags.json) printJson(ctx.io, { would_forget: rows.map((r) => ({ id: r.id, timestamp: r.timestamp, question: r.question })) });
          else {
            ctx.io.stdout.write(rows.length === 0 ? 'No matching memories.\n' : `Would forget ${rows.length} memories (add --yes to do it):\n`);
            for (const r of rows) ctx.io.stdout.write(`  ${r.id}  ${r.timestamp.slice(0, 10)} / ${r.machine}  Q: ${cut(r.question.replace(/\s+/g, ' '), 80)}\n`);
          }
          return 0;
        }
      } else {
        const res = resolveIds(store, ids);
        if (res.ambiguous.length > 0) {
          throw new UserError(`ambiguous id prefix: ${res.ambiguous.map((a) => `"${a.given}" matches ${a.matches.join(', ')}`).join('; ')}`, 'give more characters; nothing was forgotten');
        }
        if (res.unknown.length > 0) {
          throw new UserError(`no memory with id ${res.unknown.map((u) => `"${u}"`).join(', ')}`, 'nothing was forgotten; ids are printed by `memory search`');
        }
        rows = res.rows;
      }
    } finally {
      store.close();
    }
    if (rows.length === 0) {
      if (!flags.json) ctx.io.stdout.write('Nothing to forget.\n');
      else printJson(ctx.io, { forgotten: [] });
      return 0;
    }
    const now = ctx.io.now();
    appendToCurrentMonth(ctx.config.general.export_dir, ctx.config.general.machine_name, now, tombstonesFor(rows, ctx.config.general.machine_name, now));
    ({ store } = openCache(ctx.cacheOptions()));
    store.close();
    const sync = repo ? await commitAndPush(rt, repo, `memory: forget ${rows.length} memories (${ctx.config.general.machine_name})`, flags.push) : undefined;
    if (flags.json) printJson(ctx.io, { forgotten: rows.map((r) => r.id), committed: sync?.committed ?? false, push: sync?.push?.status ?? null });
    else ctx.io.stdout.write(`Forgot ${rows.length} memories${sync?.committed ? ' (committed)' : ''}. Every machine drops them at its next session start.\n`);
    return 0;
  });
}

async function scrub(ctx: Context, flags: { dryRun?: boolean; push: boolean; json?: boolean }): Promise<number> {
  const rt = runtimeOf(ctx, { echoInfo: !flags.json });
  const { lock, repo } = await captureLockFor(rt);
  return lock(async () => {
    const { store } = openCache(ctx.cacheOptions());
    let res: ScrubResult;
    try {
      res = scrubMemories(store, {
        exportDir: ctx.config.general.export_dir,
        machine: ctx.config.general.machine_name,
        redact: true,
        now: ctx.io.now(),
        dryRun: flags.dryRun === true,
      });
    } finally {
      store.close();
    }
    let replacements: string | undefined;
    let sync;
    if (!flags.dryRun && res.changed > 0) {
      openCache(ctx.cacheOptions()).store.close();
      if (repo) sync = await commitAndPush(rt, repo, `memory: scrub ${res.changed} memories (${ctx.config.general.machine_name})`, flags.push);
      // For rewriting history: git filter-repo --replace-text takes "literal==>replacement" lines.
      replacements = join(dirname(ctx.config.general.db_path), 'scrub-replacements.txt');
      writeFileSync(replacements, replacementLines(res.secrets), { mode: 0o600 });
    }
    if (flags.json) {
      printJson(ctx.io, { scanned: res.scanned, changed: res.changed, counts: res.counts, dry_run: flags.dryRun === true, committed: sync?.committed ?? false, replacements: replacements ?? null });
      return 0;
    }
    const kinds = Object.entries(res.counts).map(([k, n]) => `${n} ${k}`).join(', ');
    const lines = [
      res.changed === 0
        ? `Scanned ${res.scanned} memories: nothing to redact.`
        : `${flags.dryRun ? 'Would redact' : 'Redacted'} ${res.changed} of ${res.scanned} memories (${kinds}).`,
    ];
    if (!flags.dryRun && res.changed > 0) {
      lines.push(
        '',
        'The redacted versions win everywhere at the next session start, and monthly-merge drops the old lines from',
        'closed months. But git history (and this month\'s files until the month closes) still hold the old text.',
        'To purge it from history, on one machine with git-filter-repo installed:',
        `  cd ${repo?.root ?? '<the memory repository>'}`,
        `  git filter-repo --replace-text ${replacements} --force`,
        `  git push --force ${ctx.config.sync.remote} HEAD    # then re-clone on every other machine`,
        `and delete ${replacements} afterwards (it lists the secrets themselves; it is outside git).`,
      );
    }
    ctx.io.stdout.write(`${lines.join('\n')}\n`);
    return 0;
  });
}
