/**
 * Hybrid search: safe FTS5 keyword query + vec0 KNN, fused with RRF, then a bounded
 * recency prior.
 * The query embedding is passed in as a function, so keyword mode never loads a model and
 * tests hand in the real tiny model or none at all.
 */
import { localDay } from '../days.js';
import { projectLabel } from '../project/label.js';
import { UserError } from '../errors.js';
import { ownText } from '../store/schema.js';
import type { MemoryRow, Store } from '../store/store.js';
import type { SearchFilters, SearchHit, SearchMode } from '../types.js';
import { fuseRanks, modelStrength, recencyBoost, scoreRanks, tiedRanks, vectorWeight, type Ranking } from './fuse.js';
import { anyOfTerms, buildKeywordQuery, toFts } from './query.js';
import { foldForCoverage, heldShare, idf, questionContent, questionPairs, questionWords, weightedShare } from './coverage.js';
import { splitCommon } from './common-terms.js';
import type { FileName } from '../changes/renames.js';
import { withChanges, type Staleness } from '../changes/staleness.js';
import { newestShown, shownRanked } from './visible.js';
import { readTime, type Period } from './when.js';
import { toldOfNothing, withoutTelling } from './telling.js';
import { ADVICE_WORDS, asksForAdvice, selfStatements, withoutAskingPhrases } from './preference.js';

export interface SearchOptions {
  query: string;
  mode: SearchMode;
  filters: SearchFilters;
  topK: number;
  /** Half-life of the recency prior in days; 0 ranks by relevance alone. */
  halfLifeDays: number;
  /** The person chose the half-life (`--half-life`): kept as given, also for a question about the order of past moments. */
  halfLifeGiven?: boolean;
  /** How much a brand-new memory can gain over an old one (×(1 + weight)); see fuse.ts. */
  recencyWeight?: number;
  /** Effective-rank spread of the keyword list (tuning; default KEYWORD_RANK_SPREAD). */
  keywordSpread?: number;
  rrfK: number;
  /** Candidates taken from each ranked list before fusion. */
  candidates?: number;
  /** Memories never shown (an excluded project), dropped before the top-k is taken. */
  hide?: (row: MemoryRow) => boolean;
  /**
   * The project the request comes from (the folder the person or the agent works in, as its
   * memories are filed), when none is named: a listing ("what did we do last time", a period's
   * memories) puts its memories first, then the other projects'.
   */
  here?: string;
  /** false: time words are words like any other (no period read from the question). */
  readTime?: boolean;
  /** How much a memory of the period the question names gains (×; default PERIOD_BOOST). */
  periodBoost?: number;
  /** How much a memory of the days just after that period gains (×; default AFTER_PERIOD_BOOST; 1: none). */
  afterPeriodBoost?: number;
  /** How much a memory holding all of a Japanese or Chinese question's character pairs gains (default PAIR_COVERAGE_BOOST; 0: none). */
  coverageBoost?: number;
  /** How much a memory whose question holds all of another question's words gains (default WORDS_COVERAGE_BOOST; 0: none). */
  wordsBoost?: number;
  /** For a question asking for advice: how much a memory gains whose own statements (taste, habit, possession) hold all of its words (default PREFERENCE_BOOST; 0: none). */
  preferenceBoost?: number;
  /** How much the vector list may weigh against the keywords' (default: the model's measured strength, fuse.ts MODEL_STRENGTH); scaled per question by their agreement. */
  vectorStrength?: number;
  /** The vector list's share of its strength where its top agrees with nothing the keywords found (default VECTOR_FLOOR). */
  vectorFloor?: number;
}

export interface SearchDeps {
  store: Store;
  /** Returns the query vector; throws ModelUnavailable when the model cannot load. */
  embedQuery?: (text: string) => Promise<Float32Array>;
  now: number;
  /** Compare each hit's recorded files with this machine's checkout (changed_files). */
  staleness?: Staleness;
}

/** The default recency weight ([search] recency_weight): chosen on the development set, bench/QUALITY.md. */
export const DEFAULT_RECENCY_WEIGHT = 0.1;

export interface SearchResult {
  hits: SearchHit[];
  /** Set when hybrid search fell back to keywords only, with the reason. */
  degraded?: string;
  /** The period the question named: its memories on the question's topic come first. */
  period?: Period;
  /**
   * With a period: whether a memory of it (or of the days just after it) is on the question's
   * topic, so that the first hits are the period's. False: none is (or the period holds no
   * memory at all), and the hits are the best matches of any time (periodNote says so).
   */
  periodOnTopic?: boolean;
  /** With a period: how its memories stand. 'listed': the question held nothing but time words, and the hits are the period's, newest first; 'empty': it holds none (under the filters). */
  periodHeld?: 'listed' | 'empty';
  /**
   * The question asked for the latest time ("last time", "most recently", 前回: when/latest.ts).
   * 'first': the memories on its topic come newest first; 'listed': it held no other words, and
   * the hits are the newest memories; 'off-topic': none is on its topic, and the hits are the
   * best matches.
   */
  latest?: 'first' | 'listed' | 'off-topic';
  /**
   * Each hit's standing by the rules above, for merging with another store's hits (a team's):
   * 0 the period's own memory on the topic (or, asked for the latest, one on the topic), 1 one of
   * the days after it, 2 the rest. Absent: all 2.
   */
  tiers?: number[];
  /** A listing put this project's memories first (SearchOptions.here). */
  hereFirst?: string;
}

/**
 * What a person (or the agent) is told of the period a search read: its memories first; or
 * none of them on this, and how to list them (`listing`, in the words of the surface: the
 * person's words may not be the ones said then); or that it holds none.
 */
export function periodNote(res: SearchResult, listing?: (since: string | undefined, until: string) => string): string | undefined {
  const standing = periodStanding(res);
  if (!res.period || !standing) return undefined;
  const { label, sinceMs, untilMs } = res.period;
  const rest = res.hits.length > 0 ? ': the best matches of any time' : '';
  if (standing === 'listed') return `${label}: its memories, newest first${hereNote(res)}`;
  if (standing === 'empty') return `no memories from ${label}${rest}`;
  if (standing === 'first') return `${label} first`;
  // A period before a moment ("before October") has no first day to name.
  const how = listing ? ` (${listing(res.period.before ? undefined : localDay(sinceMs), localDay(Math.max(sinceMs, untilMs - 1)))} lists its memories)` : '';
  return `nothing on this from ${label}${how}${rest}`;
}

/** What is told of a question that asked for the latest time and named no period (see SearchResult.latest). */
export function latestNote(res: SearchResult): string | undefined {
  if (res.period || !res.latest) return undefined;
  if (res.latest === 'listed') return res.hits.length > 0 ? `the latest memories, newest first${hereNote(res)}` : undefined;
  if (res.latest === 'first') return 'the latest first: the memories on this, newest first';
  return res.hits.length > 0 ? 'nothing clearly on this: the best matches of any time' : undefined;
}

/** A listing that put the project at hand first says so. */
function hereNote(res: SearchResult): string {
  return res.hereFirst === undefined ? '' : `: ${projectLabel(res.hereFirst)}'s first`;
}

/**
 * How the period a question named stands in its result: its memories on the topic lead
 * ('first'); time words alone listed them ('listed'); it holds none shown ('empty'); or none of
 * them is on the topic ('off-topic'). Undefined: no period was named.
 */
export function periodStanding(res: SearchResult): 'first' | 'listed' | 'empty' | 'off-topic' | undefined {
  if (!res.period) return undefined;
  if (res.periodHeld === 'listed') return res.hits.length > 0 ? 'listed' : 'empty';
  if (res.periodHeld === 'empty') return 'empty';
  return res.periodOnTopic ? 'first' : 'off-topic';
}

export function toHit(row: MemoryRow, score: number, deps: Pick<SearchDeps, 'store' | 'staleness'>, file?: SearchFilters['file']): SearchHit {
  const as = file?.names ? recordedAs(deps.store.files.pathsOf(row.rowid), row.ts_ms, file) : undefined;
  const hit: SearchHit = {
    id: row.id,
    score,
    timestamp: row.timestamp,
    machine: row.machine,
    project: row.project,
    source: row.source,
    question: row.question,
    answer: row.answer,
    ...(as !== undefined ? { recorded_as: as } : {}),
  };
  return deps.staleness ? withChanges(hit, deps.staleness, row) : hit;
}

/**
 * The earlier name by which a memory recorded the file a file filter asks for (or a file under
 * the folder it asks for), when it recorded none under the name asked: what is said beside it
 * ("recorded as src/checkout.ts"). The filter's names in its order, each for its time
 * (changes/renames.ts); undefined when the memory holds the name asked.
 */
export function recordedAs(paths: readonly string[], tsMs: number, file: NonNullable<SearchFilters['file']>): string | undefined {
  // As the store reads the filter: a folder holds every path under it at any time.
  const names: ReadonlyArray<FileName> = file.folder ? [{ path: file.path, folder: true }, ...(file.names ?? [])] : (file.names ?? [{ path: file.path }]);
  for (const n of names) {
    if (tsMs < (n.afterMs ?? Number.NEGATIVE_INFINITY) || tsMs >= (n.beforeMs ?? Number.POSITIVE_INFINITY)) continue;
    const held = n.folder ? paths.find((p) => p.startsWith(n.path)) : paths.includes(n.path) ? n.path : undefined;
    if (held !== undefined) return n.path === file.path ? undefined : held;
  }
  return undefined;
}

function vectorCandidates(deps: SearchDeps, vec: Float32Array, filters: SearchFilters, k: number, within?: SearchFilters, hide?: (row: MemoryRow) => boolean): Ranking<number> {
  // Every vector is a candidate: recency is a bounded prior, so an old memory can win.
  const nearest = (f: SearchFilters) => shownRanked(deps.store, (limit) => deps.store.knn(vec, f, limit), k, hide);
  const all = nearest(filters);
  const ranking = (list: typeof all): Ranking<number> => ({ keys: list.map((r) => r.rowid), ranks: tiedRanks(list.map((r) => r.distance)) });
  if (!within) return ranking(all);
  // The period's nearest too, however far the nearest overall are: one list by distance.
  const seen = new Set(all.map((r) => r.rowid));
  return ranking([...all, ...nearest(within).filter((r) => !seen.has(r.rowid))].sort((a, b) => a.distance - b.distance));
}

/** How much a memory of the period a question names gains over the others (×): bench/QUALITY.md. */
export const PERIOD_BOOST = 1.3;
/**
 * How much a memory of the days after the period gains (×), less than one of the period: what
 * was done in a period is often told after it ("the fun runs I missed in March", said in April).
 * Those days: as long again as the period, at least a week, and never past now. bench/QUALITY.md.
 */
export const AFTER_PERIOD_BOOST = 1.2;
const AFTER_PERIOD_MIN_MS = 7 * 86_400_000;

/** The days after a period that its telling falls in (see AFTER_PERIOD_BOOST), or undefined when none have begun. */
export function afterPeriod(p: Period, nowMs: number): { sinceMs: number; untilMs: number } | undefined {
  // "Before October", 10月まで: the days after are what the question leaves out.
  if (p.before) return undefined;
  const untilMs = Math.min(nowMs + 1, p.untilMs + Math.max(AFTER_PERIOD_MIN_MS, p.untilMs - p.sinceMs));
  return untilMs > p.untilMs ? { sinceMs: p.untilMs, untilMs } : undefined;
}

/**
 * Search, with time in the question understood (when.ts): a question that names a period
 * ("last week", "in May", "先月") is searched without its time words, and the period's
 * memories gain PERIOD_BOOST: one of them comes first even over another period's memory that
 * matches the words somewhat better, and a much better match elsewhere still shows. Memories
 * of the days just after it gain less (AFTER_PERIOD_BOOST). A question that names no period
 * ranks as relevance and recency say; one that asks about the order of past moments or the
 * time between them, by relevance alone (when.ts asksAboutOrder). With a file among the filters
 * and no words, that file's memories come newest first.
 */
export async function search(deps: SearchDeps, asked: SearchOptions): Promise<SearchResult> {
  if (asked.query.trim().length === 0) {
    if (!listable(asked.filters)) throw new UserError('empty query', 'give some words to search for');
    // A file or days and no words: their memories, newest first (the project at hand's first).
    return listing(deps, asked.filters, asked);
  }
  const when = asked.readTime === false ? { text: asked.query } : readTime(asked.query, deps.now);
  // A question about the order of past moments, or the time between them, ranks without the recency prior (when.ts asksAboutOrder).
  // A half-life the person chose is kept.
  const opts = asked.halfLifeDays > 0 && asked.halfLifeGiven !== true && when.order ? { ...asked, halfLifeDays: 0 } : asked;
  if (!when.period) return when.latest ? latestFirst(deps, opts, when.text) : rank(deps, opts);
  const period = when.period;
  const own = narrowed(opts.filters, period);
  // A period that holds no memory at all ("in 1990", before the first one): the question is
  // read as it was written, its time words as words ("1990年に何が起きた" is about 1990).
  if (!own || deps.store.countUnder(own) === 0) return { ...(await rank(deps, opts)), period, periodOnTopic: false, periodHeld: 'empty' };
  const words = when.text.trim();
  // Nothing but time words ("what did we do last week"): the period's memories, newest first.
  if (toldOfNothing(words)) {
    const listed = listing(deps, own, opts);
    return { ...listed, period, periodOnTopic: listed.hits.length > 0, periodHeld: 'listed' };
  }
  // The period's candidates and boost reach into the days after it, at the lower boost.
  const after = (opts.afterPeriodBoost ?? AFTER_PERIOD_BOOST) === 1 ? undefined : afterPeriod(period, deps.now);
  const within = after ? (narrowed(opts.filters, { ...period, untilMs: after.untilMs }) ?? own) : own;
  const ranked = await rank(deps, { ...opts, query: words }, { filters: within, periodEndMs: period.untilMs }, when.latest);
  return { ...ranked, period };
}

/** Where a hit stands by the rules: its tier (SearchResult.tiers), its score, when it was said. */
export interface Standing {
  tier: number;
  score: number;
  ms: number;
}

/**
 * The rules' order, in one store's ranking and across stores merged (a team's): the lower tier
 * first; within the tiers a rule puts first, the newest first when asked for the latest; then
 * the higher score, then the newer.
 */
export function byStanding(latest: boolean): (a: Standing, b: Standing) => number {
  return (a, b) => a.tier - b.tier || (latest && a.tier < 2 ? b.ms - a.ms : 0) || b.score - a.score || b.ms - a.ms;
}

/**
 * A question that asks for the latest time ("what did we decide last time about retries",
 * 前回の方針) and names no period: the memories on its topic come first, newest first, however a
 * better match of an older time scores; the rest as relevance and recency say. Nothing but such
 * words ("what did we do last time"): the newest memories.
 */
async function latestFirst(deps: SearchDeps, opts: SearchOptions, words: string): Promise<SearchResult> {
  if (toldOfNothing(words)) return { ...listing(deps, opts.filters, opts), latest: 'listed' };
  return rank(deps, { ...opts, query: words }, undefined, true);
}

/**
 * A listing: the memories under `filters`, newest first. Asked from a project's folder and
 * naming no project or file (`here`), that project's first, then the other projects' newest
 * (their tier 1, so a team's memories of the project, tier 0, merge before them).
 */
function listing(deps: SearchDeps, filters: SearchFilters, opts: Pick<SearchOptions, 'topK' | 'hide' | 'filters' | 'here'>): Pick<SearchResult, 'hits' | 'tiers' | 'hereFirst'> {
  const all = newestOf(deps, filters, opts);
  const here = opts.here;
  if (here === undefined || filters.project !== undefined || filters.file !== undefined || all.every((h) => h.project === here)) return { hits: all, tiers: all.map(() => 0) };
  const own = newestOf(deps, { ...filters, project: here }, opts);
  if (own.length === 0) return { hits: all, tiers: all.map(() => 0) };
  // Fewer of its own than asked for means it has no more: the newest of all hold the others' newest that fill the rest.
  const hits = [...own, ...all.filter((h) => h.project !== here)].slice(0, opts.topK);
  return { hits, tiers: hits.map((h) => (h.project === here ? 0 : 1)), hereFirst: here };
}

/**
 * The memories under `filters`, newest first: a listing (the browse holds every filter, the
 * source too; hidden memories never use up its limit). Each hit says its file as the filter asked it.
 */
function newestOf(deps: SearchDeps, filters: SearchFilters, opts: Pick<SearchOptions, 'topK' | 'hide' | 'filters'>): SearchHit[] {
  return newestShown(deps.store, filters, opts.topK, opts.hide).map((r) => toHit(r, 1, deps, opts.filters.file));
}

/** Filters that name memories without words: a file (or folder), or days (--since, --until). */
function listable(f: SearchFilters): boolean {
  return f.file !== undefined || f.sinceMs !== undefined || f.untilMs !== undefined;
}

/** The filters narrowed to the period, or undefined when they do not meet it. */
function narrowed(f: SearchFilters, p: Period): SearchFilters | undefined {
  const sinceMs = Math.max(f.sinceMs ?? -Infinity, p.sinceMs);
  const untilMs = Math.min(f.untilMs ?? Infinity, p.untilMs);
  return sinceMs < untilMs ? { ...f, sinceMs, untilMs } : undefined;
}

/**
 * One ranking under the filters as given: keyword and vector lists fused, then the recency
 * prior. `period.filters`: the filters narrowed to a period the question names and the days
 * after it; its memories are candidates however far down the whole ranking they are, and gain
 * the period boost, or those from `periodEndMs` on the after-period boost.
 */
async function rank(deps: SearchDeps, opts: SearchOptions, period?: { filters: SearchFilters; periodEndMs: number }, latest?: boolean): Promise<SearchResult> {
  const within = period?.filters;
  const k = opts.candidates ?? 50;
  const keywordRanked: Array<Ranking<number>> = [];
  const vectorRanked: Ranking<number>[] = [];
  let degraded: string | undefined;

  if (opts.mode !== 'vector') keywordRanked.push(...keywordLists(deps.store, opts.query, opts.filters, k, opts.keywordSpread, false, within, opts.hide));
  if (opts.mode !== 'keyword') {
    if (deps.store.dim === 0) {
      if (opts.mode === 'vector') {
        throw new UserError('no embedded memories yet: vector search has nothing to search', 'run `memory rebuild --with-model`, or use --mode keyword');
      }
      degraded = 'no embedded memories yet; keyword results only';
    } else if (!deps.embedQuery) {
      degraded = 'no embedding model; keyword results only';
    } else {
      let vec: Float32Array | undefined;
      try {
        vec = await deps.embedQuery(opts.query);
      } catch (err) {
        if (opts.mode === 'vector') throw new UserError(err instanceof Error ? err.message : String(err), 'use --mode keyword');
        degraded = `${err instanceof Error ? err.message : String(err)}; keyword results only`;
      }
      if (vec) {
        if (vec.length !== deps.store.dim) {
          const msg = `the model gives ${vec.length}-d vectors but the cache holds ${deps.store.dim}-d ones`;
          if (opts.mode === 'vector') throw new UserError(msg, 'run `memory rebuild --full`');
          degraded = `${msg}; keyword results only`;
        } else {
          vectorRanked.push(vectorCandidates(deps, vec, opts.filters, k, within, opts.hide));
        }
      }
    }
  }

  // Fused by RRF, each list's part kept apart: how much of the question a memory holds
  // (byCoverage) weighs its keyword part only, so a memory the vectors found is not put behind for words it lacks.
  const byWords = fuseRanks(keywordRanked, opts.rrfK);
  const byVector = fuseRanks(vectorRanked, opts.rrfK);
  // The vector list weighs as much as the model deserves on this question (fuse.ts vectorWeight).
  const keywordTop = [...byWords.entries()].sort((a, b) => b[1] - a[1]).slice(0, 10).map(([id]) => id);
  const vw = vectorRanked.length === 0 ? 0 : vectorWeight(keywordTop, vectorRanked[0]?.keys ?? [], opts.vectorStrength ?? modelStrength(deps.store.meta('model')), opts.vectorFloor);
  const ids = [...new Set([...byWords.keys(), ...byVector.keys()])];
  // The vector index has no source column: a source filter applies to its candidates here.
  const src = opts.filters.source;
  const wrongSource = src === undefined ? undefined : (row: MemoryRow) => (row.source ?? 'claude-code') !== src;
  const rows = deps.store.rowsByRowid(ids);
  const shown = ids.map((id) => rows.get(id)).filter((row): row is MemoryRow => row !== undefined && !opts.hide?.(row) && !wrongSource?.(row));
  const held = byCoverage(deps.store, opts.query, shown.filter((row) => byWords.has(row.rowid)), opts.coverageBoost ?? PAIR_COVERAGE_BOOST, opts.wordsBoost ?? WORDS_COVERAGE_BOOST);
  const prefBoost = opts.preferenceBoost ?? PREFERENCE_BOOST;
  const self = prefBoost > 0 && asksForAdvice(opts.query) ? bySelf(deps.store, opts.query, shown, prefBoost) : undefined;
  // A period the question names is a rule, not a weight: among the memories on the question's
  // topic, the period's come first (then those of the days after it), whatever another period's
  // better match scores; the boosts order the rest.
  // Asked for the latest time: among the memories on the topic (of the period, when one is named), the newest first.
  const topical = within || latest ? onTopic(deps.store, opts.query, shown) : undefined;
  const scored = shown.map((row) => {
    const relevance = ((byWords.get(row.rowid) ?? 0) * (held.get(row.rowid) ?? 1) + vw * (byVector.get(row.rowid) ?? 0)) * (self?.get(row.rowid) ?? 1);
    const inPeriod = within !== undefined && row.ts_ms >= (within.sinceMs as number) && row.ts_ms < (within.untilMs as number);
    const ownPeriod = inPeriod && row.ts_ms < (period?.periodEndMs as number);
    const timeBoost = !inPeriod ? 1 : ownPeriod ? (opts.periodBoost ?? PERIOD_BOOST) : (opts.afterPeriodBoost ?? AFTER_PERIOD_BOOST);
    // 0: on the topic, of the period (or asked for the latest); 1: on the topic, of the days after the period; 2: the rest.
    const tier = topical?.has(row.rowid) !== true ? 2 : within === undefined ? 0 : !inPeriod ? 2 : ownPeriod ? 0 : 1;
    return { row, tier, ms: row.ts_ms, score: relevance * recencyBoost(row.ts_ms, deps.now, opts.halfLifeDays, opts.recencyWeight ?? DEFAULT_RECENCY_WEIGHT) * timeBoost };
  });
  const order = byStanding(latest === true);
  scored.sort((a, b) => order(a, b) || a.row.id.localeCompare(b.row.id));
  const top = scored.slice(0, opts.topK);
  const hits = top.map(({ row, score }) => toHit(row, Number(score.toPrecision(6)), deps, opts.filters.file));
  const onTopicFirst = (scored[0]?.tier ?? 2) < 2;
  const told = { ...(topical ? { tiers: top.map((s) => s.tier) } : {}), ...(within ? { periodOnTopic: onTopicFirst } : {}), ...(latest ? { latest: onTopicFirst ? ('first' as const) : ('off-topic' as const) } : {}) };
  return degraded ? { hits, degraded, ...told } : { hits, ...told };
}

/**
 * For a question asking for advice, how much a memory whose statements of the person's taste,
 * habits or possessions hold all of its words gains (×(1 + boost × share)). Off: in a history of
 * its own per question, every strength tried (0.25, 0.5, 1) put the right session out of the
 * first five more often than it put it first (bench/QUALITY.md); `preferenceBoost` and the bench's
 * `--pref` keep it measurable.
 */
export const PREFERENCE_BOOST = 0;

/**
 * For a question asking for advice (preference.ts): each memory's factor by how much of the
 * question's content (its words weighted by rarity, without the asking words; a Japanese
 * question's character pairs) the person's own statements in it hold.
 */
function bySelf(store: Store, query: string, rows: MemoryRow[], boost: number): Map<number, number> {
  const out = new Map<number, number>();
  const pairs = questionPairs(withoutAskingPhrases(query));
  const terms = pairs.length > 0 ? [] : topicTerms(query);
  if (pairs.length === 0 && terms.length === 0) return out;
  const weights = rarityWeights(store, terms);
  for (const r of rows) {
    const said = selfStatements(r.question).join('\n');
    if (!said) continue;
    const share = pairs.length > 0 ? heldShare(pairs, foldForCoverage(said)) : weightedShare(terms, weights, questionWords(said));
    if (share > 0) out.set(r.rowid, 1 + boost * share);
  }
  return out;
}

/** On the question's topic: a memory holding at least this share of its content (character pairs, or words weighted by rarity). */
export const TOPIC_SHARE = 0.5;

/**
 * The memories (rowids) on the question's topic: what the person said in them (the memory's
 * question) holds at least TOPIC_SHARE of the question's character pairs (Japanese, Chinese) or
 * of its words, weighted by how rare each is. Not the answer: a long answer holds half of most
 * questions' words (an assistant's list of tips, a diff), and put a period's memories on any topic
 * first (bench/QUALITY.md). Words alone, so a period's rule never rests on what a model thinks close.
 */
function onTopic(store: Store, asked: string, rows: MemoryRow[]): Set<number> {
  const out = new Set<number>();
  // Without the words that tell of the talk ("what did we decide about …"): what it is about.
  const content = questionContent(asked);
  const told = withoutTelling(content);
  const query = buildKeywordQuery(told).match === undefined ? content : told;
  const pairs = questionPairs(query);
  if (pairs.length > 0) {
    for (const r of rows) if (heldShare(pairs, foldForCoverage(r.question)) >= TOPIC_SHARE) out.add(r.rowid);
    return out;
  }
  const terms = buildKeywordQuery(query).terms;
  if (terms.length === 0) return out;
  // A word no memory holds tells no memory from another: it is left out of the share (in a
  // history of a few memories, its weight as the rarest of words outweighed all the others).
  const weights = rarityWeights(store, terms, true);
  for (const r of rows) if (weightedShare(terms, weights, questionWords(r.question)) >= TOPIC_SHARE) out.add(r.rowid);
  return out;
}

/** How much a memory holding every character pair of a Japanese or Chinese question gains over one holding none of them (×(1 + boost × share)): bench/QUALITY.md. */
export const PAIR_COVERAGE_BOOST = 2;

/** How much a memory whose question holds every word of another question (by weight) gains over one holding none: bench/QUALITY.md. */
export const WORDS_COVERAGE_BOOST = 0.25;

/** Counting a term's memories stops here: past one memory in a hundred, a term weighs as common (log 100); bench/QUALITY.md. */
const COUNT_CAP_SHARE = 0.01;

/** Each term's weight by how rare it is among the indexed memories (idf, counted up to COUNT_CAP_SHARE of them); `held`: 0 for a term no memory holds. */
function rarityWeights(store: Store, terms: string[], held = false): number[] {
  const n = Math.max(1, store.terms.indexedBound());
  const cap = Math.max(2, Math.ceil(n * COUNT_CAP_SHARE));
  return terms.map((t) => {
    const df = store.ftsCountUpTo(toFts(t), cap);
    return held && df === 0 ? 0 : idf(n, df);
  });
}

/**
 * Among the keyword candidates, a memory's keyword part gains by how much of the question it
 * holds, ×(1 + boost × share) (coverage.ts); returns the factors by rowid. bm25 adds each term
 * up on its own, with repeats; the share counts each once.
 *  - A Japanese or Chinese question: the share of its character pairs the memory's text holds.
 *    A few pairs repeated outranked the memory holding the question whole.
 *  - Any other question: the share of its words, weighted by rarity (idf), that the memory's
 *    question holds: what the person said, not a long answer, which holds every word of many
 *    questions and is no sign of the right memory (bench/QUALITY.md).
 */
function byCoverage(store: Store, query: string, rows: MemoryRow[], pairBoost: number, wordsBoost: number): Map<number, number> {
  const factors = new Map<number, number>();
  if (rows.length === 0) return factors;
  const pairs = questionPairs(query);
  if (pairs.length > 0) {
    if (pairBoost > 0) for (const r of rows) factors.set(r.rowid, 1 + pairBoost * heldShare(pairs, foldForCoverage(`${r.question}\n${r.answer}`)));
    return factors;
  }
  const terms = buildKeywordQuery(questionContent(query)).terms;
  if (wordsBoost <= 0 || terms.length < 2) return factors;
  const weights = rarityWeights(store, terms);
  for (const r of rows) factors.set(r.rowid, 1 + wordsBoost * weightedShare(terms, weights, questionWords(r.question)));
  return factors;
}

/** An advice question's keyword terms without the words that ask, in either language (preference.ts). */
function topicTerms(query: string): string[] {
  return buildKeywordQuery(withoutAskingPhrases(query)).terms.filter((t) => !ADVICE_WORDS.has(t.toLowerCase()));
}

/** How many RRF ranks a keyword match falls behind the best one per unit of lost bm25: bench/QUALITY.md. */
export const KEYWORD_RANK_SPREAD = 30;

/** The keyword ranking (rowids, best first): FTS5 bm25 over the word index, its gaps kept as effective ranks. */
function keywordLists(store: Store, query: string, filters: SearchFilters, k: number, spread = KEYWORD_RANK_SPREAD, own = false, within?: SearchFilters, hide?: (row: MemoryRow) => boolean): Array<Ranking<number>> {
  const q = buildKeywordQuery(query);
  if (!q.match) return [];
  // Over the whole index, terms in half the memories weigh nothing: ranked without them (common-terms.ts).
  // A question asking for advice is searched by what it is about: "suggest", "tips", コツ name no
  // topic and match every other request for advice (kept when nothing else is left).
  const topic = own || !asksForAdvice(query) ? q.terms : topicTerms(query);
  const { kept, common } = own ? { kept: q.terms, common: [] } : splitCommon(store, topic.length > 0 ? topic : q.terms);
  const match = own ? ownText(q.match) : anyOfTerms(kept);
  const best = (f: SearchFilters) => shownRanked(store, (limit) => store.fts(match, f, limit), k, hide);
  let rows = best(filters);
  if (within) {
    // The period's best matches too: bm25 scores of one query on one index compare, so one list.
    const seen = new Set(rows.map((r) => r.rowid));
    rows = [...rows, ...best(within).filter((r) => !seen.has(r.rowid))].sort((a, b) => a.score - b.score);
  }
  if (common.length > 0 && rows.length < k) {
    // Too few hold a weighted term: memories holding only weightless ones follow, as bm25 would
    // put them (a score of about zero), in no particular order.
    const seen = new Set(rows.map((r) => r.rowid));
    const anyOf = anyOfTerms(common);
    const tail = shownRanked(store, (limit) => store.ftsUnranked(anyOf, filters, limit + seen.size).filter((id) => !seen.has(id)).slice(0, limit).map((rowid) => ({ rowid, score: 0 })), k - rows.length, hide);
    rows = [...rows, ...tail];
  }
  // FTS5's bm25 is negative: more negative is better.
  return [{ keys: rows.map((r) => r.rowid), ranks: scoreRanks(rows.map((r) => -r.score), spread) }];
}

/** Keyword hits by relevance alone, memories holding the words themselves (for `forget --query`: never a neighbour of one). */
export function keywordHits(store: Store, query: string, filters: SearchFilters, k: number): MemoryRow[] {
  const fused = [...fuseRanks(keywordLists(store, query, filters, k, KEYWORD_RANK_SPREAD, true), 60)].sort((a, b) => b[1] - a[1]).slice(0, k);
  const rows = store.rowsByRowid(fused.map(([id]) => id));
  return fused.map(([id]) => rows.get(id)).filter((r): r is MemoryRow => r !== undefined);
}
