import { existsSync, statSync } from 'node:fs';
import { join, sep } from 'node:path';
import type { Command } from 'commander';
import { encodeProjectDir, listProjectDirs, listTranscripts } from '../../agents/claude-code/transcripts.js';
import { codexHome, listRollouts, rolloutMeta } from '../../agents/codex/sessions.js';
import { UserError } from '../../errors.js';
import type { TranscriptRef } from '../../app/capture/capture.js';
import { captureAndSync } from '../../app/capture/session-end.js';
import { type Context } from '../../app/context.js';
import { printJson } from '../render.js';
import { pendingAdvice } from '../../app/session/health.js';
import { runtimeOf } from '../../app/context.js';
import { parseDate } from '../../app/options.js';
import { progressBar } from '../../app/progress.js';
import type { Runner } from '../runner.js';
import { describeRedactions } from '../../privacy/stats.js';

interface ImportFlags {
  codex?: boolean;
  all?: boolean;
  since?: string;
  projectDir?: string;
  push: boolean;
  json?: boolean;
}

export function registerImport(program: Command, run: Runner): void {
  program
    .command('import')
    .description('backfill memories from existing Claude Code transcripts (they are deleted after 30 days by default) or Codex rollouts; idempotent, one commit')
    .option('--codex', 'Codex sessions ($CODEX_HOME/sessions, default ~/.codex) instead of Claude Code transcripts')
    .option('--all', 'every project (default: only sessions of the current folder)')
    .option('--since <date>', 'only transcripts modified since: 2026-03-01, an age like 30d, or words like "last month"')
    .option('--project-dir <dir>', 'one folder of transcripts (a ~/.claude/projects/<project> folder)')
    .option('--no-push', 'commit but do not push')
    .option('--json', 'print the report as JSON')
    .action((flags: ImportFlags) => run((ctx) => runImport(ctx, flags)));
}

/** Codex rollouts to import, oldest first: all of them, or those of sessions in the current folder. */
function codexRefs(ctx: Context, flags: ImportFlags, since: number | undefined): TranscriptRef[] {
  const home = codexHome(ctx.io.env);
  const here = ctx.io.cwd;
  const refs = listRollouts(home)
    .filter((p) => since === undefined || statSync(p).mtimeMs >= since)
    .filter((p) => {
      if (flags.all) return true;
      const cwd = rolloutMeta(p).cwd;
      return cwd !== undefined && (cwd === here || cwd.startsWith(here.endsWith(sep) ? here : here + sep));
    })
    .reverse()
    .map((path) => ({ path }));
  if (refs.length === 0) {
    throw new UserError(
      `no Codex sessions found${flags.all ? '' : ` for ${here}`} under ${join(home, 'sessions')}`,
      flags.all ? 'is CODEX_HOME set to where Codex keeps its sessions?' : 'run it from a project folder, or use --all',
    );
  }
  return refs;
}

async function runImport(ctx: Context, flags: ImportFlags): Promise<number> {
  const root = ctx.config.general.claude_projects_dir;
  const since = flags.since ? parseDate('--since', flags.since, ctx.io.now()) : undefined;
  let refs: TranscriptRef[];
  if (flags.codex) {
    if (flags.projectDir) throw new UserError('--project-dir is a Claude Code folder; with --codex use --all or run it from the project folder');
    refs = codexRefs(ctx, flags, since);
  } else {
    let dirs: string[];
    if (flags.projectDir && !existsSync(flags.projectDir)) {
      throw new UserError(`no such folder: ${flags.projectDir}`, `--project-dir names a Claude Code project folder, one of those under ${root}`);
    }
    if (flags.projectDir) dirs = [flags.projectDir];
    else if (flags.all) dirs = listProjectDirs(root);
    else dirs = [join(root, encodeProjectDir(ctx.io.cwd))];
    refs = dirs.flatMap((d) =>
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
      `${c.pending ? `${c.pending} saved without embedding: ${pendingAdvice(ctx.config.baseDir, ctx.embedderConfig())}.\n` : ''}` +
      `${res.sync?.committed ? `Committed${res.sync.push ? ` (push: ${res.sync.push.status})` : ''}.\n` : ''}`,
  );
  return 0;
}
