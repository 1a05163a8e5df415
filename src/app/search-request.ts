/**
 * One search request for every front end (the CLI, the viewer, the MCP server): the
 * options a person gives, checked and turned into filters, with the rules that must hold
 * everywhere applied once — the configuration's defaults, excluded projects hidden unless
 * the project is named, filters applied before the limit. (Per-prompt recall, keyword-only,
 * builds its own query and leaves out the session in progress with `notSession`.)
 */
import { resolve } from 'node:path';
import type { SearchOptions } from '../search/search.js';
import type { Store } from '../store/store.js';
import type { SearchFilters, SearchMode } from '../types.js';
import { UserError } from '../errors.js';
import { lettersBeyondAscii } from '../config/validate.js';
import { hideExcluded } from '../project/exclude.js';
import { machineName } from '../project/label.js';
import { fileInRepository, isDir } from '../project/repository.js';
import { folderNamesIn, namesIn } from '../changes/renames.js';
import { parseDate } from './options.js';
import type { Runtime } from './runtime.js';

export interface SearchInput {
  query: string;
  mode?: SearchMode;
  project?: string;
  machine?: string;
  source?: string;
  /** A day, a time or an age (7d): see parseDate. */
  since?: string;
  until?: string;
  topK?: number;
  halfLifeDays?: number;
  /** Candidates per ranked list (the viewer pages deeper than the top-k). */
  candidates?: number;
  /** How the front end names its date options in errors (`--since`, `since`). */
  names?: { since: string; until: string; file?: string };
  /** A file (relative to `cwd`, or absolute): only the memories that recorded it, in its repository. */
  file?: string;
  /** Where a relative `file` is read from: the person's folder, the agent's. */
  cwd?: string;
  /** The memory home, whose rename maps give a `file`'s earlier names (searchRequest: the configuration's). */
  baseDir?: string;
  /**
   * The request is the agent's (the MCP server), not the person's: excluded projects stay
   * hidden even when it names one — only the person may look into them (the CLI, the viewer).
   */
  byAgent?: boolean;
}

export function searchFilters(input: Omit<SearchInput, 'query'>, now: Date): SearchFilters {
  const f: SearchFilters = {};
  if (input.project) f.project = input.project;
  // A machine as people read it (会社) or as stored (xn--…).
  if (input.machine) f.machine = lettersBeyondAscii(input.machine) ? machineName(input.machine) : input.machine;
  if (input.source) f.source = input.source;
  if (input.since) f.sinceMs = parseDate(input.names?.since ?? 'since', input.since, now);
  if (input.until) f.untilMs = parseDate(input.names?.until ?? 'until', input.until, now, true);
  if (input.file) {
    const name = input.names?.file ?? 'file';
    const abs = resolve(input.cwd ?? process.cwd(), input.file);
    const inRepo = fileInRepository(abs);
    if (!inRepo) throw new UserError(`${name} ${input.file}: not a file or folder inside a git checkout`, 'memories know their files by repository: name one in this checkout (src/x.ts, src/pay/) or by its full path');
    const { repo, path, top } = inRepo;
    // A folder (one there, or a name ending in /): every file under it, and what is under it now under the names it had before (changes/renames.ts).
    if (/[\\/]$/.test(input.file) || isDir(abs)) {
      const folder = `${path}/`;
      const names = input.baseDir ? folderNamesIn(input.baseDir, repo, folder, now.getTime(), top) : [];
      f.file = { repo, path: folder, folder: true, ...(names.length > 0 ? { names } : {}) };
    }
    // A file: its earlier names too, as this machine knows them in this checkout (its rename map, the moves not committed here yet) (changes/renames.ts).
    else f.file = input.baseDir ? { repo, path, names: namesIn(input.baseDir, repo, path, now.getTime(), top) } : { repo, path };
  }
  return f;
}

/** Everything `search()` needs for this request, under this configuration. */
export function searchRequest(rt: Pick<Runtime, 'config' | 'now'>, input: SearchInput): SearchOptions {
  const { search: s, privacy } = rt.config;
  const filters = searchFilters({ baseDir: rt.config.baseDir, ...input }, rt.now());
  // Memories of an excluded project (captured before it was excluded) stay out of sight
  // unless the person's request names that project.
  const hide = input.project && !input.byAgent ? undefined : hideExcluded(privacy.exclude_projects);
  return {
    query: input.query,
    mode: input.mode ?? 'hybrid',
    filters,
    topK: input.topK ?? s.top_k,
    halfLifeDays: input.halfLifeDays ?? s.half_life_days,
    ...(input.halfLifeDays !== undefined ? { halfLifeGiven: true } : {}),
    recencyWeight: s.recency_weight,
    rrfK: s.rrf_k,
    ...(input.candidates ? { candidates: input.candidates } : {}),
    ...(hide ? { hide } : {}),
  };
}

/**
 * The request against this cache: a project named by an old name (an alias), a repository
 * key or its remote URL means the project those memories are filed under.
 */
export function scopedTo(store: Pick<Store, 'projects'>, opts: SearchOptions): SearchOptions {
  if (opts.filters.project === undefined) return opts;
  return { ...opts, filters: { ...opts.filters, project: store.projects.resolveProject(opts.filters.project) } };
}
