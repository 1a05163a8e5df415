import type { Command } from 'commander';
import type { Context } from '../../app/context.js';
import { statusFacts } from '../../app/status.js';
import { describeNotice, pendingAdvice } from '../../app/session/health.js';
import { INIT_HINT, sharedNameNotice } from '../../app/sync/sync-run.js';
import { describeRedactions } from '../../privacy/stats.js';
import { formatBytes, printJson } from '../render.js';
import type { Runner } from '../runner.js';
import { localDay } from '../../days.js';
import { machineLabel } from '../../project/label.js';

export function registerStatus(program: Command, run: Runner): void {
  program
    .command('status')
    .description('how many memories, from which machines, how many wait for embedding, where everything lives')
    .option('--json', 'print one JSON object')
    .action((opts: { json?: boolean }) => run(async (ctx) => status(ctx, opts.json === true)));
}

async function status(ctx: Context, json: boolean): Promise<number> {
  const { out, sync, dim } = await statusFacts(ctx);
  if (json) {
    printJson(ctx.io, out);
    return 0;
  }
  const lines = [
    `memories      ${out.records} live (${out.tombstones} forgotten), ${out.projects} projects`,
    `machines      ${out.machines.map(machineLabel).join(', ') || '-'} (this one: ${machineLabel(out.machine)})`,
    `time span     ${out.oldest ? localDay(out.oldest) : '-'} … ${out.newest ? localDay(out.newest) : '-'}`,
    `embedding     ${out.model}${dim ? `, ${dim}-d` : ''}; ${out.pending} waiting for a vector${out.pending ? ` (${pendingAdvice(ctx.config.baseDir, ctx.embedderConfig())})` : ''}`,
    `export        ${out.export_dir} — ${out.files} files, ${formatBytes(out.export_bytes)}`,
    `cache         ${out.db_path} — ${formatBytes(out.db_bytes)}${out.cache_not_updated ? ` (not updated: ${out.cache_not_updated}; the counts above are as of its last update)` : ''}`,
    ...(out.home ? [`home          ${out.home} (the memory repository: memories and shared settings only)`] : []),
    ...(out.pending_move ? [`upgrade       the memories of ${out.pending_move}/export move into the home at the next session start (or run \`memory upgrade\`)`] : []),
    `git           ${out.repository ?? (out.home ? 'created at the first capture or session start' : 'export folder not in a git repository (memories stay on this machine)')}`,
    ...syncLines(out.repository !== null, sync, ctx.config.general.machine_name),
    ...(out.unknown_transcript_shapes ? [`formats       transcript shapes not recognised: ${out.unknown_transcript_shapes} (nothing lost; report them if memories seem to be missing)`] : []),
    `withheld      ${out.privacy ? `${describeRedactions(out.privacy.redactions) || 'no redactions'}; ${out.privacy.excluded_sessions} excluded sessions (since ${localDay(out.privacy.since)})` : 'nothing redacted or excluded yet'}`,
    ...(out.unscrubbed ? [`unscrubbed    ${out.unscrubbed} ${out.unscrubbed === 1 ? 'memory holds' : 'memories hold'} what today's redaction rules remove (stored before them): \`memory scrub\` writes redacted versions`] : []),
    ...(out.rejected_lines > 0 ? [`rejects       ${out.rejected_lines} unreadable lines kept verbatim in export/archive/*.rejects.jsonl (a later version may recover them)`] : []),
    `config        ${out.config.join(', ') || 'defaults only'}`,
    ...out.teams.map((t) => `team          ${t.team} as ${t.handle} (sharing ${t.shared.join(', ') || 'nothing'}): last pull ${t.last_pull?.replace('T', ' ').slice(0, 16) ?? 'never'}, last publish ${t.last_publish?.replace('T', ' ').slice(0, 16) ?? 'never'}${t.last_error ? `; last error: ${t.last_error.op} ${t.last_error.message}` : ''} (memory team status)`),
    ...out.problems.map((p) => `problem       ${describeNotice(p).replace(/^memory: /, '')}`),
  ];
  ctx.io.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

type SyncFacts = {
  memory_remote: { name: string; url: string } | null;
  last_push: string | null;
  last_pull: string | null;
  ahead: number | null;
  behind: number | null;
  uncommitted: boolean;
  queued_transcripts: number;
  last_error: { at: string; op: string; status: string; message: string } | null;
  failing_since: string | null;
  shared_machine_name: boolean;
  held_back: string | null;
  interrupted: string | null;
  deferred_since: string | null;
  clock: string | null;
  set_aside: string[];
};

function syncLines(inRepo: boolean, s: SyncFacts, machine: string): string[] {
  if (!inRepo) return [];
  const when = (t: string | null) => (t ? t.replace('T', ' ').slice(0, 16) : 'never');
  const lines = [
    s.memory_remote
      ? `remote        ${s.memory_remote.name} → ${s.memory_remote.url}`
      : `remote        none: memories are committed on this machine only (run \`${INIT_HINT}\`)`,
  ];
  if (s.memory_remote) {
    lines.push(`sync          last push ${when(s.last_push)}, last pull ${when(s.last_pull)}; ${s.ahead ?? '?'} ahead, ${s.behind ?? '?'} behind`);
  }
  if (s.uncommitted || s.queued_transcripts > 0) {
    lines.push(`pending       ${s.queued_transcripts} transcript(s) queued${s.uncommitted ? ', captures not committed yet (batched; `memory sync` commits now)' : ''}`);
  }
  if (s.interrupted) lines.push(`interrupted   ${s.interrupted}`);
  if (s.held_back) lines.push(`held back     ${s.held_back}: nothing is committed, pulled or pushed meanwhile; new captures wait in the queue${s.deferred_since ? ` (since ${when(s.deferred_since)})` : ''}. Finish it, then \`memory sync\`.`);
  if (s.last_error) lines.push(`sync error    ${when(s.last_error.at)} ${s.last_error.op} ${s.last_error.status}: ${s.last_error.message}${s.failing_since ? ` (failing since ${when(s.failing_since)})` : ''}`);
  if (s.last_error && (s.last_error.status === 'unrelated' || s.last_error.status === 'lost')) {
    lines.push('fix           your memories are safe here. Point the memory remote at the right repository (memory init --remote <url>), or restore its branch, then run `memory sync`.');
  }
  if (s.shared_machine_name) lines.push(`warning       ${sharedNameNotice(machine)}`);
  if (s.clock) lines.push(`clock         ${s.clock}`);
  for (const a of s.set_aside.slice(-3)) lines.push(`set aside     ${a}`);
  return lines;
}
