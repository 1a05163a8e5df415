import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { runtimeOf, type Context } from '../../app/context.js';
import { closeTeams, mergeResults, openTeams, repoKeyOf, teamHits, type Scope } from '../../app/team/team-read.js';
import { readHere } from '../../app/team/team.js';
import { placeHere } from '../../project/place.js';
import { projectLabel } from '../../project/label.js';
import type { SearchHit } from '../../types.js';
import { nonNegative, positiveInt, searchMode } from '../../app/options.js';
import { scopedTo, searchRequest } from '../../app/search-request.js';
import { lazyEmbedder } from '../../embed/embedder.js';
import { UsageError, UserError } from '../../errors.js';
import { latestNote, periodNote, search, type SearchResult } from '../../search/search.js';
import { staleness } from '../../changes/staleness.js';
import { openCache } from '../../store/cache.js';
import type { Runner } from '../runner.js';
import { printJson, renderHits } from '../render.js';

interface SearchFlags {
  mode: string;
  topK?: string;
  project?: string;
  machine?: string;
  since?: string;
  until?: string;
  halfLife?: string;
  json?: boolean;
  full?: boolean;
  batch?: string;
  scope: string;
  file?: string;
}

export function registerSearch(program: Command, run: Runner): void {
  program
    .command('search')
    .description('find memories by meaning and keywords (hybrid: FTS5 word index + vectors, RRF, a bounded recency prior)')
    .argument('[query...]', 'what to look for (quotes optional)')
    .option('--mode <mode>', 'hybrid | keyword | vector (keyword never loads the model)', 'hybrid')
    .option('-k, --top-k <n>', 'number of hits (default: [search] top_k)')
    .option('-p, --project <name>', 'only this project (default: every project)')
    .option('--machine <name>', 'only memories from this machine')
    .option('--since <date>', 'from this day on (local time): 2026-03-01, an age like 7d, 2w, 3m, or words: yesterday, "last week", 先週, 3月; with no query, those days\' memories, newest first')
    .option('--until <date>', 'up to and including this day, or the end of the period the words name ("last week", 先月)')
    .option('--file <path>', 'only the memories of sessions that worked on this file of this repository (any machine, any checkout), or on any file under this folder (src/pay/); with no query, all of them, newest first')
    .option('--half-life <days>', 'half-life of the recency prior in days: newer wins among comparably relevant memories, a clearly better old one still wins; 0 = relevance only (default: [search] half_life_days)')
    .option('--json', 'print {"query","hits":[…]} as JSON')
    .option('--full', 'print whole answers (default: first 300 characters)')
    .option('--batch <file>', "one query per line from a file ('-' = stdin); one JSON line per query")
    .option('--scope <scope>', 'mine | team | all: your memories, your teams\' memories of the project at hand (or of --project), or both', 'all')
    .action((words: string[], flags: SearchFlags) => run((ctx) => runSearch(ctx, words.join(' '), flags)));
}

async function runSearch(ctx: Context, query: string, flags: SearchFlags): Promise<number> {
  const now = ctx.io.now();
  const base = searchRequest(ctx, {
    query: '',
    mode: searchMode(flags.mode),
    ...(flags.project !== undefined ? { project: flags.project } : {}),
    ...(flags.machine !== undefined ? { machine: flags.machine } : {}),
    ...(flags.since !== undefined ? { since: flags.since } : {}),
    ...(flags.until !== undefined ? { until: flags.until } : {}),
    ...(flags.file !== undefined ? { file: flags.file, cwd: ctx.io.cwd } : {}),
    ...(flags.topK !== undefined ? { topK: positiveInt('--top-k', flags.topK) } : {}),
    ...(flags.halfLife !== undefined ? { halfLifeDays: nonNegative('--half-life', flags.halfLife) } : {}),
    names: { since: '--since', until: '--until', file: '--file' },
  });
  let queries: string[];
  if (flags.batch !== undefined) {
    queries = (await readBatch(ctx, flags.batch)).split(/\r?\n/).filter((q) => q.trim().length > 0);
  } else {
    if (query.trim().length === 0 && flags.file === undefined && flags.since === undefined && flags.until === undefined) {
      throw new UsageError('missing query', 'usage: memory search "what we decided about the cache"  (or: memory search --file src/x.ts, memory search --since yesterday)');
    }
    queries = [query];
  }

  const scope = flags.scope as Scope;
  if (!['mine', 'team', 'all'].includes(scope)) throw new UsageError(`--scope takes mine, team or all (got "${flags.scope}")`);
  const { store } = openCache(ctx.cacheOptions({ lockTimeoutMs: 3000 }));
  // The team memories of the project named, else of the folder's repository; `--scope team` with neither: all of the teams'.
  // This folder's repository and project, read once.
  const configured = ctx.config.general.project || undefined;
  const folder = placeHere(ctx.io.cwd, { ...(configured ? { configured } : {}), exclude: ctx.config.privacy.exclude_projects });
  const repo = repoKeyOf(flags.project, store) ?? (flags.project ? undefined : folder.repo?.key);
  // The folder's project as its memories are filed: a listing puts its memories first.
  const here = flags.project === undefined ? store.projects.filed(folder, configured).name : undefined;
  const reading = scope !== 'mine' && ctx.config.teams.length > 0;
  if (reading) await readHere(runtimeOf(ctx, { quiet: true }), repo, 60_000);
  const teams = reading ? openTeams(runtimeOf(ctx, { quiet: true }), store) : [];
  try {
    const embedder = lazyEmbedder(ctx.embedderConfig());
    const embedQuery = async (text: string) => (await embedder()).embedQuery(text);
    let warned = false;
    const stale = staleness(store, { here: ctx.io.cwd, machine: ctx.config.general.machine_name });
    for (const q of queries) {
      const own: SearchResult = scope === 'team' ? { hits: [] as SearchHit[] } : await search({ store, embedQuery, now: now.getTime(), staleness: stale }, { ...scopedTo(store, base), ...(here ? { here } : {}), query: q });
      const res = mergeResults(own, teams.length > 0 ? await teamHits(teams, { base, query: q, repo, scope, embedQuery, now: now.getTime() }) : [], base.topK);
      if (res.degraded && !warned) {
        ctx.warn(res.degraded);
        warned = true;
      }
      const period = res.period ? { period: { from: new Date(res.period.sinceMs).toISOString(), until: new Date(res.period.untilMs).toISOString(), label: res.period.label, on_topic: res.periodOnTopic === true, ...(res.periodHeld ? { held: res.periodHeld } : {}) } } : {};
      const latest = { ...(res.latest ? { latest: res.latest } : {}), ...(res.hereFirst ? { project_first: projectLabel(res.hereFirst) } : {}) };
      if (flags.batch !== undefined || flags.json) printJson(ctx.io, { query: q, ...period, ...latest, hits: res.hits });
      else {
        const note = periodNote(res, (since, until) => `memory search ${since ? `--since ${since} ` : ''}--until ${until}`) ?? latestNote(res);
        if (note) ctx.io.stdout.write(`${note}\n`);
        ctx.io.stdout.write(renderHits(res.hits, flags.full === true));
      }
    }
  } finally {
    store.close();
    closeTeams(teams);
  }
  return 0;
}

async function readBatch(ctx: Context, source: string): Promise<string> {
  if (source !== '-') {
    try {
      return readFileSync(source, 'utf8');
    } catch (err) {
      throw new UserError(`cannot read --batch file ${source}: ${(err as Error).message}`);
    }
  }
  const chunks: Buffer[] = [];
  for await (const chunk of ctx.io.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8');
}
