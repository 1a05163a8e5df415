/** `memory scrub`: re-apply the privacy rules to every exported memory. */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setPriority } from 'node:os';
import { Option, type Command } from 'commander';
import { readOn, readScrubCheck, recordScrub, rulesOf, writeScrubCheck } from '../../app/session/scrub-check.js';
import { captureLockFor } from '../../app/sync/locks.js';
import { commitAndPush } from '../../app/sync/sync-run.js';
import { openCache } from '../../store/cache.js';
import { scrubMemories, type ScrubResult } from '../../maintain/scrub.js';
import { type Context } from '../../app/context.js';
import { printJson } from '../render.js';
import { runtimeOf } from '../../app/context.js';
import type { Runner } from '../runner.js';
import { replacementLines } from '../../maintain/scrub.js';

export function registerScrub(program: Command, run: Runner): void {
  program
    .command('scrub')
    .description('re-apply the current privacy rules (<private>, secret redaction) to every exported memory, writing redacted versions')
    .option('--dry-run', 'count what would be redacted, write nothing')
    .option('--no-push', 'commit but do not push')
    .option('--json', 'print the report as JSON')
    .addOption(new Option('--background', 'the reading session start starts: a dry run at the lowest priority that takes no repository lock').hideHelp())
    .action((flags: Flags) => run((ctx) => (flags.background ? check(ctx) : scrub(ctx, flags))));
}

interface Flags {
  dryRun?: boolean;
  push: boolean;
  json?: boolean;
  background?: boolean;
}

/**
 * Session start's reading of memories stored before today's rules (app/session/scrub-check.ts):
 * it writes nothing but its result, in the cache, so it takes no lock on the memory repository
 * (a capture or a sync goes on meanwhile), at the lowest priority; the next session start tells it.
 */
async function check(ctx: Context): Promise<number> {
  try {
    setPriority(19);
  } catch {
    /* not allowed here: at normal priority, still in the background */
  }
  const { store } = openCache(ctx.cacheOptions());
  try {
    const rules = rulesOf(ctx.config.privacy.secret_formats);
    const c = readScrubCheck(store, rules);
    readOn(store, c, rules);
    delete c.running;
    writeScrubCheck(store, c);
  } finally {
    store.close();
  }
  return 0;
}

async function scrub(ctx: Context, flags: Flags): Promise<number> {
  const rt = runtimeOf(ctx, { echoInfo: !flags.json });
  const { lock, repo } = await captureLockFor(rt);
  return lock(async () => {
    const { store } = openCache(ctx.cacheOptions());
    let res: ScrubResult;
    const rules = rulesOf(ctx.config.privacy.secret_formats);
    try {
      res = scrubMemories(store, {
        exportDir: ctx.config.general.export_dir,
        machine: ctx.config.general.machine_name,
        redact: true,
        own: rules.own,
        now: ctx.io.now(),
        dryRun: flags.dryRun === true,
      });
      // What session start tells: found (dry run), or none left (just written redacted).
      recordScrub(store, rules, flags.dryRun ? res.ids : []);
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
