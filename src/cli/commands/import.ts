import { join } from 'node:path';
import type { Command } from 'commander';
import { encodeProjectDir, listProjectDirs, listTranscripts } from '../../capture/project.js';
import { UserError } from '../../errors.js';
import type { TranscriptRef } from '../../hooks/capture.js';
import { captureAndSync } from '../../hooks/session-end.js';
import { printJson, type Context } from '../context.js';
import { runtimeOf } from '../hook-runtime.js';
import { parseDate } from '../options.js';
import { progressBar } from '../progress.js';
import type { Runner } from '../program.js';
import { describeRedactions } from '../../privacy/stats.js';

interface ImportFlags {
  all?: boolean;
  since?: string;
  projectDir?: string;
  push: boolean;
  json?: boolean;
}

export function registerImport(program: Command, run: Runner): void {
  program
    .command('import')
    .description('backfill memories from existing Claude Code transcripts (they are deleted after 30 days by default); idempotent, one commit')
    .option('--all', 'every project under [general] claude_projects_dir (default: only the current folder\'s project)')
    .option('--since <date>', 'only transcripts modified since: 2026-03-01 or an age like 30d')
    .option('--project-dir <dir>', 'one folder of transcripts (a ~/.claude/projects/<project> folder)')
    .option('--no-push', 'commit but do not push')
    .option('--json', 'print the report as JSON')
    .action((flags: ImportFlags) => run((ctx) => runImport(ctx, flags)));
}

async function runImport(ctx: Context, flags: ImportFlags): Promise<number> {
  const root = ctx.config.general.claude_projects_dir;
  let dirs: string[];
  if (flags.projectDir) dirs = [flags.projectDir];
  else if (flags.all) dirs = listProjectDirs(root);
  else dirs = [join(root, encodeProjectDir(ctx.io.cwd))];
  const since = flags.since ? parseDate('--since', flags.since, ctx.io.now()) : undefined;
  const refs: TranscriptRef[] = dirs.flatMap((d) =>
    listTranscripts(d)
      .filter((t) => since === undefined || t.mtimeMs >= since)
      .reverse() // oldest first: the history is appended in order
      .map((t) => ({ path: t.path })),
  );
  if (refs.length === 0) {
    throw new UserError(
      `no transcripts found in ${dirs.length === 1 ? dirs[0] : `${dirs.length} folders under ${root}`}`,
      flags.all ? 'check [general] claude_projects_dir' : 'run it from a project folder, or use --all / --project-dir',
    );
  }
  const rt = runtimeOf(ctx);
  const read = progressBar(`reading ${refs.length} transcripts`);
  const embed = progressBar('embedding');
  const res = await captureAndSync(rt, refs, {
    push: flags.push,
    message: (c) => `memory: import ${c.added} memories from ${c.transcripts} transcripts (${ctx.config.general.machine_name})`,
    progress: read.update,
    embedProgress: embed.update,
  });
  read.done();
  embed.done();
  const c = res.capture;
  if (flags.json) {
    printJson(ctx.io, { ...c, committed: res.sync?.committed ?? false, push: res.sync?.push?.status ?? null });
    return 0;
  }
  ctx.io.stdout.write(
    `Imported ${c.transcripts} transcripts: ${c.added} new memories, ${c.updated} updated, ${c.unchanged} already saved` +
      `${c.excluded ? `, ${c.excluded} turns of ${c.excludedSessions} sessions excluded by [privacy]` : ''}${c.forgotten ? `, ${c.forgotten} forgotten (kept out)` : ''}.\n` +
      `${c.redactions ? `Redacted before saving: ${describeRedactions(c.redactionsByKind)}.\n` : ''}` +
      `${c.pending ? `${c.pending} saved without embedding: run \`memory rebuild --with-model\` when the model is available.\n` : ''}` +
      `${res.sync?.committed ? `Committed${res.sync.push ? ` (push: ${res.sync.push.status})` : ''}.\n` : ''}`,
  );
  return 0;
}
