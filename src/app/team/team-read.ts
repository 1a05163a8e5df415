/**
 * Reading teams' memories beside one's own: search (the CLI, the MCP server, the viewer),
 * per-prompt recall and session-start injection take the team memories of the project at hand
 * from each team's cache, label them with their author, team and date, leave out what the
 * person hid and what is their own (the personal copy is the one shown), and merge them in.
 */
import { openTeamCache, readDecisions, recordDecision } from './team.js';
import { UserError } from '../../errors.js';
import { latestDecisions } from '../../team/outbox.js';
import { readTeamManifest, teamRepoOf } from '../../team/repo.js';
import { splitTeamId } from '../../team/files.js';
import { hiddenIn } from '../../team/light.js';
import { normalizeRemoteUrl } from '../../project/remote-url.js';
import type { TeamConfig } from '../../config/schema.js';
import type { Store, MemoryRow } from '../../store/store.js';
import type { SearchHit } from '../../types.js';
import { byStanding, search, type SearchOptions, type SearchResult } from '../../search/search.js';
import type { Runtime } from '../runtime.js';
import { CacheDeferred } from '../../store/cache.js';

export type Scope = 'mine' | 'team' | 'all';

export interface OpenTeam {
  team: TeamConfig;
  store: Store;
  /** The team cache's project (its filing) for a repository key, when the team accepts that repository. */
  projectOf: (repo: string) => string | undefined;
  /** Every project the team accepts, as its cache files them. */
  projects: string[];
  /** Memories this person hid (someone else's, `memory forget`), or their own published copies. */
  hidden: (row: Pick<MemoryRow, 'id'>) => boolean;
}

/** The caches of this person's teams that have been pulled at least once (never the network). */
/**
 * `maxBytes`: a hook's bound on what a team cache may read now (CacheOptions.maxBytes); a team
 * over it is served as it is, or left out before its first build, and named in `behind`.
 */
export function openTeams(rt: Runtime, personal: Pick<Store, 'byId'> | undefined, opts: { maxBytes?: number; behind?: string[] } = {}): OpenTeam[] {
  const out: OpenTeam[] = [];
  const decisions = latestDecisions(readDecisions(rt.config.general.export_dir));
  for (const team of rt.config.teams) {
    let opened;
    try {
      opened = openTeamCache(rt, team.name, opts.maxBytes !== undefined ? { maxBytes: opts.maxBytes } : {});
    } catch (err) {
      if (err instanceof CacheDeferred) {
        opts.behind?.push(team.name);
        continue;
      }
      rt.log.warn(`team ${team.name}: its cache cannot be read (${(err as Error).message}); its memories are left out`);
      continue;
    }
    if (!opened) continue;
    if (opened.deferred) opts.behind?.push(team.name);
    const manifest = (() => {
      try {
        return readTeamManifest(teamRepoOf(rt.config.baseDir, team.name));
      } catch {
        return undefined;
      }
    })();
    const store = opened.store;
    const accepted = manifest?.projects ?? [];
    const projectOf = (repo: string) => {
      const p = accepted.find((x) => x.repo === repo);
      return p ? store.projects.resolveProject(p.repo) : undefined;
    };
    out.push({ team, store, projectOf, projects: accepted.map((p) => store.projects.resolveProject(p.repo)), hidden: hiddenIn(team, decisions, personal) });
  }
  return out;
}

export function closeTeams(teams: OpenTeam[]): void {
  for (const t of teams) t.store.close();
}

/** The repository key a `--project` argument or a folder's repository names, if any. */
export function repoKeyOf(arg: string | undefined, personal: Pick<Store, 'projects'> | undefined): string | undefined {
  if (!arg) return undefined;
  const url = normalizeRemoteUrl(arg);
  if (url) return url;
  if (/^[^/\s]+\.[^/\s]+\/.+/.test(arg)) return arg;
  const names = personal?.projects.repoNames();
  if (names) for (const [key, name] of names) if (name === arg) return key;
  return undefined;
}

/** A team hit, attributed: its author and team; its id is `<author>/<id>`. */
export function attributed(hit: SearchHit, team: string): SearchHit {
  const s = splitTeamId(hit.id);
  return { ...hit, team, ...(s ? { author: s.author } : {}) };
}

/**
 * Personal and team results in one, at most `topK` hits: those a rule puts first in their own
 * store (a period's memories on the topic, then the days after it; asked for the latest, the
 * memories on the topic, newest first) before the rest, each part by score. What is told of the
 * period or the latest holds for the whole: on the topic if any store's were. (Asked of the
 * teams alone, `personal` is an empty result.)
 */
export function mergeResults(personal: SearchResult, teams: SearchResult[], topK: number): SearchResult {
  if (teams.length === 0) return personal;
  const results = [personal, ...teams];
  const all = results.flatMap((r) => r.hits.map((hit, i) => ({ hit, tier: r.tiers?.[i] ?? 2, score: hit.score, ms: Date.parse(hit.timestamp) })));
  const latests = results.map((r) => r.latest).filter((l) => l !== undefined);
  all.sort(byStanding(latests.length > 0));
  const top = all.slice(0, topK);
  const told = results.find((r) => r.period !== undefined);
  const degraded = results.find((r) => r.degraded !== undefined)?.degraded;
  return {
    hits: top.map((x) => x.hit),
    tiers: top.map((x) => x.tier),
    ...(degraded ? { degraded } : {}),
    ...(told?.period ? { period: told.period, periodOnTopic: results.some((r) => r.periodOnTopic === true) } : {}),
    ...(told?.periodHeld ? { periodHeld: told.periodHeld } : {}),
    ...(personal.hereFirst ? { hereFirst: personal.hereFirst } : {}),
    ...(latests.length > 0 ? { latest: latests.includes('first') ? 'first' : latests.includes('listed') ? 'listed' : 'off-topic' } : {}),
  };
}

/**
 * The teams' hits for a query, attributed: of the repository named (`repo`), or — asked for
 * teams only and naming none — of every project the teams accept. The same options as the
 * personal search (`base`: filters, top-k, what to hide), each team's hidden memories left out.
 */
export async function teamHits(teams: OpenTeam[], q: { base: SearchOptions; query: string; repo: string | undefined; scope: Scope; embedQuery?: (text: string) => Promise<Float32Array>; now: number }): Promise<SearchResult[]> {
  const out: SearchResult[] = [];
  for (const t of teams) {
    const projects = q.repo ? [t.projectOf(q.repo)].filter((x): x is string => x !== undefined) : q.scope === 'team' ? t.projects : [];
    for (const project of projects) {
      const hide = (row: MemoryRow) => t.hidden(row) || (q.base.hide?.(row) ?? false);
      const r = await search({ store: t.store, ...(q.embedQuery ? { embedQuery: q.embedQuery } : {}), now: q.now }, { ...q.base, query: q.query, filters: { ...q.base.filters, project }, hide });
      out.push({ ...r, hits: r.hits.map((h) => attributed(h, t.team.name)) });
    }
  }
  return out;
}

/** Team ids: the person's own (forgotten as theirs) and the others' (hidden for them alone). */
export async function teamForgets(rt: Runtime, ids: string[]): Promise<{ mine: string[]; hidden: Array<{ team: string; author: string; id: string }> }> {
  const mine: string[] = [];
  const hidden: Array<{ team: string; author: string; id: string }> = [];
  const teams = openTeams(rt, undefined);
  try {
    for (const given of ids) {
      const slash = given.indexOf('/');
      const author = given.slice(0, slash);
      const raw = given.slice(slash + 1);
      const holding = teams.filter((t) => t.store.byId(given) !== undefined || (raw.length >= 6 && t.store.idsWithPrefix(given, 2).length === 1));
      if (holding.length === 0) throw new UserError(`no team memory ${given}`, 'nothing was forgotten; team ids (author/id) are printed by `memory search`');
      for (const t of holding) {
        const full = t.store.byId(given)?.id ?? (t.store.idsWithPrefix(given, 2)[0] as string);
        const id = full.slice(slash + 1);
        if (author === t.team.handle) mine.push(id);
        else hidden.push({ team: t.team.name, author, id });
      }
    }
  } finally {
    closeTeams(teams);
  }
  for (const h of hidden) await recordDecision(rt, { team: h.team, id: h.id, author: h.author, decision: 'hide', at: rt.now().toISOString() });
  return { mine: [...new Set(mine)], hidden };
}
