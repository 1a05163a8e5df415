/** `memory show <id>`: one memory in full. */
import type { Command } from 'commander';
import { UsageError, UserError } from '../../errors.js';
import { openCache } from '../../store/cache.js';
import { resolveIds } from '../../maintain/forget.js';
import { rowToRecord, type MemoryRow } from '../../store/store.js';
import { type Context } from '../../app/context.js';
import { printJson } from '../render.js';
import { staleness, withChanges } from '../../changes/staleness.js';
import type { Runner } from '../runner.js';
import { machineLabel, projectLabel } from '../../project/label.js';

export function registerShow(program: Command, run: Runner): void {
  program
    .command('show')
    .description('print one memory in full')
    .argument('<id>', 'memory id (or a unique prefix of 6+ characters)')
    .option('--json', 'print the JSONL record (without the embedding)')
    .action((id: string, flags: { json?: boolean }) => run((ctx) => show(ctx, id, flags.json === true)));

}

function recordView(row: MemoryRow, changes: { changed_files?: string[]; files_note?: string }): Record<string, unknown> {
  const r = rowToRecord(row);
  const { extra, ...rest } = r;
  // `project` is the one it is filed under here (its repository's name); the record's own is kept as `project_recorded` when it differs.
  const recorded = row.project_raw !== null && row.project_raw !== row.project ? { project_recorded: row.project_raw } : {};
  return { ...rest, ...(extra ?? {}), project: row.project, ...recorded, ...(row.model ? { model: row.model, dim: row.dim } : {}), ...changes };
}

async function show(ctx: Context, id: string, json: boolean): Promise<number> {
  const { store } = openCache(ctx.cacheOptions({ lockTimeoutMs: 3000 }));
  try {
    const res = resolveIds(store, [id]);
    if (res.ambiguous.length > 0) throw new UserError(`"${id}" matches several memories: ${res.ambiguous[0]?.matches.join(', ')}`, 'give more characters of the id');
    const row = res.rows[0];
    if (!row && id.length < 6) throw new UsageError(`"${id}" is too short to name a memory: an id prefix needs 6 or more characters`, 'ids are printed by `memory search`');
    if (!row) throw new UserError(`no memory with id "${id}"`, 'ids are printed by `memory search` (forgotten memories are gone for good)');
    const changes = withChanges({}, staleness(store, { here: ctx.io.cwd, machine: ctx.config.general.machine_name }), row);
    const changed = changes.files_note;
    if (json) printJson(ctx.io, recordView(row, changes));
    else {
      const files = row.files ? (JSON.parse(row.files) as string[]) : [];
      ctx.io.stdout.write(
        [
          `id       ${row.id}`,
          `date     ${row.timestamp}  (machine ${machineLabel(row.machine)}, project ${projectLabel(row.project) ?? '-'}${row.git_branch ? `, branch ${row.git_branch}` : ''})`,
          ...(row.cwd ? [`cwd      ${row.cwd}`] : []),
          ...(files.length > 0 ? [`files    ${files.join(', ')}`] : []),
          ...(changed ? [`         (${changed})`] : []),
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
