import type { Command } from 'commander';
import { listExportFiles } from '../../export/files.js';
import { dbBytes, openCache } from '../../maintain/rebuild.js';
import { aheadOfRemote, findRepo } from '../../sync/git.js';
import { printJson, type Context } from '../context.js';
import { formatBytes } from '../render.js';
import type { Runner } from '../main.js';

export function registerStatus(program: Command, run: Runner): void {
  program
    .command('status')
    .description('how many memories, from which machines, how many wait for embedding, where everything lives')
    .option('--json', 'print one JSON object')
    .action((opts: { json?: boolean }) => run(async (ctx) => status(ctx, opts.json === true)));
}

async function status(ctx: Context, json: boolean): Promise<number> {
  const { store, result } = openCache(ctx.cacheOptions({ lockTimeoutMs: 3000 }));
  const c = store.counts();
  const dim = store.dim;
  store.close();
  const files = listExportFiles(ctx.config.general.export_dir);
  const repo = await findRepo(ctx.config.general.export_dir);
  // Local refs only (no network): commits made here that the last fetch had not seen pushed.
  const unpushed = repo ? await aheadOfRemote(repo, ctx.config.sync.remote) : null;
  const out = {
    records: c.records,
    pending: c.pending,
    tombstones: c.tombstones,
    machines: c.machines,
    projects: c.projects,
    files: files.length,
    export_bytes: files.reduce((s, f) => s + f.size, 0),
    db_bytes: dbBytes(ctx.config.general.db_path),
    model: store.identity.model,
    dim,
    machine: ctx.config.general.machine_name,
    export_dir: ctx.config.general.export_dir,
    db_path: ctx.config.general.db_path,
    config: ctx.config.sources,
    skipped_lines: result.skipped_lines,
    repository: repo?.root ?? null,
    unpushed_commits: unpushed,
    ...(c.oldest ? { oldest: c.oldest } : {}),
    ...(c.newest ? { newest: c.newest } : {}),
  };
  if (json) {
    printJson(ctx.io, out);
    return 0;
  }
  const lines = [
    `memories      ${out.records} live (${out.tombstones} forgotten), ${out.projects} projects`,
    `machines      ${out.machines.join(', ') || '-'} (this one: ${out.machine})`,
    `time span     ${out.oldest?.slice(0, 10) ?? '-'} … ${out.newest?.slice(0, 10) ?? '-'}`,
    `embedding     ${out.model}${dim ? `, ${dim}-d` : ''}; ${out.pending} waiting for a vector${out.pending ? ' (run `memory rebuild --with-model`)' : ''}`,
    `export        ${out.export_dir} — ${out.files} files, ${formatBytes(out.export_bytes)}`,
    `cache         ${out.db_path} — ${formatBytes(out.db_bytes)}`,
    `git           ${out.repository ? `${out.repository}; ${out.unpushed_commits ?? 0} commits not pushed to ${ctx.config.sync.remote} yet` : 'export folder not in a git repository (memories stay on this machine)'}`,
    `config        ${out.config.join(', ') || 'defaults only'}`,
  ];
  ctx.io.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}
