/**
 * `memory ui`: a local web page to search, read and forget memories, and to see what is in
 * memory (the facts of `memory status`). Hono on node's http server, bound to 127.0.0.1.
 *
 * Security, since the page can forget memories on every machine:
 *  - bound to 127.0.0.1 only; a request whose Host is not 127.0.0.1:<port> or
 *    localhost:<port> is refused (DNS rebinding);
 *  - every request needs the token printed at start (the page trades the URL's token for an
 *    HttpOnly, SameSite=Strict cookie named after the port, then drops it from the URL);
 *  - state-changing requests are POST with a JSON body and an Origin of this server;
 *  - a strict Content-Security-Policy (scripts and styles from this server only, nothing
 *    from the network), no framing, no referrer; the page renders every memory as text.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import { Hono, type Context as HonoContext } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import type { Context } from '../app/context.js';
import { runtimeOf } from '../app/context.js';
import { closeTeams, mergeResults, openTeams, repoKeyOf, teamForgets, teamHits } from '../app/team/team-read.js';
import { scopedTo, searchRequest } from '../app/search-request.js';
import { staleness, withChanges, type Staleness } from '../changes/staleness.js';
import { excerpt } from '../app/text.js';
import { packageRoot } from '../config/load.js';
import { lazyEmbedder, type Embedder } from '../embed/embedder.js';
import { errorMessage, UserError } from '../errors.js';
import { forgetSelected, rowsForIds } from '../app/edit-run.js';
import { publishDue } from '../app/capture/worker.js';
import { buildKeywordQuery } from '../search/query.js';
import { latestNote, periodNote, search, type SearchOptions } from '../search/search.js';
import { openCacheAsync } from '../store/cache.js';
import type { MemoryRow, Store } from '../store/store.js';
import { folderNamesIn, namesIn } from '../changes/renames.js';
import { machineLabel, projectLabel } from '../project/label.js';

const STATIC: Record<string, { file: string; type: string }> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  '/app.css': { file: 'app.css', type: 'text/css; charset=utf-8' },
};

export const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** Characters of the answer shown in a result; the whole memory is one click away. */
const ANSWER_PREVIEW = 400;
const PAGE_MAX = 100;
/**
 * How far the list pages, and so what "Forget all matching…" can reach at most: the result
 * set is the same for both (a search by meaning ranks every memory, so it needs an end).
 */
const RESULT_MAX = 1000;

export interface Viewer {
  url: string;
  port: number;
  token: string;
  close: () => Promise<void>;
}

function sameToken(given: string | undefined, token: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The filters' choices, each project and machine as people read it (the filter takes that name back). */
function labelled(f: { projects: string[]; machines: string[]; sources: string[] }) {
  return { ...f, projects: f.projects.map((p) => projectLabel(p)), machines: f.machines.map(machineLabel) };
}

function listView(r: MemoryRow) {
  return {
    id: r.id,
    timestamp: r.timestamp,
    machine: machineLabel(r.machine),
    project: projectLabel(r.project),
    source: r.source ?? 'claude-code',
    question: excerpt(r.question, 600),
    answer: excerpt(r.answer, ANSWER_PREVIEW),
  };
}

/** A memory's view with `changed_files` and the line saying so, when it can be known here. */
function changesOf<T extends object>(st: Staleness, view: T, row: MemoryRow): T & { changed_files?: string[]; files_note?: string } {
  return withChanges(view, st, row);
}

/** `store`: the cache the row is from, for the paths inside its repository it recorded (the file filter's links). */
function fullView(r: MemoryRow, store: Pick<Store, 'files'>) {
  return {
    ...listView(r),
    repo: r.repo,
    repo_files: r.repo ? store.files.pathsOf(r.rowid) : [],
    question: r.question,
    answer: r.answer,
    files: r.files ? (JSON.parse(r.files) as string[]) : [],
    git_branch: r.git_branch,
    cwd: r.cwd,
    session_id: r.session_id,
    updated_at: r.updated_at,
    embedded: r.has_vector === 1,
  };
}

/** The words of the query to mark in results: as typed, and the bigrams of CJK runs. */
export function highlightTerms(q: string): string[] {
  const words = q.normalize('NFKC').split(/[\s"'`()[\]{}<>,;:!?。、「」（）]+/u).filter((w) => Array.from(w).length >= 2);
  const cjk = buildKeywordQuery(q).terms.filter((t) => /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u.test(t)).map((t) => t.replace(/\*$/, ''));
  return [...new Set([...words, ...cjk])].slice(0, 40);
}

export async function startViewer(ctx: Context, opts: { port: number }): Promise<Viewer> {
  const token = randomBytes(24).toString('base64url');
  const root = join(packageRoot(), 'ui');
  const files = new Map(Object.entries(STATIC).map(([path, s]) => [path, { body: readFileSync(join(root, s.file)), type: s.type }]));
  let port = opts.port;
  const cookieName = () => `memory_viewer_${port}`;
  const origins = () => [`http://127.0.0.1:${port}`, `http://localhost:${port}`];
  const rt = runtimeOf(ctx, { quiet: true });

  // The model loads in the background on the first search; until then searches use keywords.
  const embedder = lazyEmbedder(ctx.embedderConfig());
  let model: Embedder | undefined;
  let modelState: 'idle' | 'loading' | 'ready' | 'unavailable' = 'idle';
  let modelProblem = '';
  const warmModel = () => {
    if (modelState !== 'idle') return;
    modelState = 'loading';
    embedder().then(
      (e) => {
        model = e;
        modelState = 'ready';
      },
      (err: unknown) => {
        modelState = 'unavailable';
        modelProblem = errorMessage(err).split('\n')[0] ?? '';
        ctx.io.stderr.write(`memory ui: the embedding model is unavailable (${errorMessage(err).split('\n')[0]}); keyword search only\n`);
      },
    );
  };

  // The cache's lock is waited for without blocking: other requests are served meanwhile.
  const withStore = async <T>(fn: (store: Store) => T | Promise<T>): Promise<T> => {
    const { store } = await openCacheAsync(ctx.cacheOptions({ lockTimeoutMs: 3000, progress: () => {} }));
    try {
      return await fn(store);
    } finally {
      store.close();
    }
  };

  /** The request as the page sends it: the same checks and rules as the CLI and the MCP server. */
  const requestOf = (get: (k: string) => string | undefined, mode: 'hybrid' | 'keyword') => {
    const pick = (k: string) => {
      const v = get(k);
      return v ? { [k]: v } : {};
    };
    const req = searchRequest(ctx, { query: (get('q') ?? '').trim(), mode, ...pick('project'), ...pick('machine'), ...pick('source'), ...pick('since'), ...pick('until'), topK: RESULT_MAX, candidates: RESULT_MAX });
    // A file or folder, as a memory's detail names it: its repository and the path inside (the viewer runs in no checkout of its own).
    const repo = get('repo');
    const file = get('file');
    if ((repo === undefined) !== (file === undefined)) throw new UserError('a file filter needs both repo and file');
    if (repo !== undefined && file !== undefined) {
      const now = ctx.io.now().getTime();
      // A folder (its name ends in /): every file under it, and what is under it now under the names it had before.
      if (file.endsWith('/')) {
        if (!/[^/]/.test(file)) throw new UserError('a folder filter names a folder inside the repository (src/pay/)');
        const names = folderNamesIn(ctx.config.baseDir, repo, file, now);
        req.filters.file = { repo, path: file, folder: true, ...(names.length > 0 ? { names } : {}) };
      } else req.filters.file = { repo, path: file, names: namesIn(ctx.config.baseDir, repo, file, now) };
    }
    return req;
  };

  /**
   * The result set the list pages through, in order, at most RESULT_MAX: without words every
   * memory under the filters (newest first), else the search. Hidden memories (an excluded
   * project) are dropped before any limit. "Forget all matching" forgets exactly this set,
   * with the mode the page showed, so what is forgotten is what the person paged through.
   */
  const resultSet = async (req: SearchOptions, upto: number): Promise<Array<{ id: string; view: () => ReturnType<typeof listView> }> & { periodNote?: string; listed?: boolean }> => {
    const n = Math.min(upto, RESULT_MAX);
    // No words: every memory under the filters, newest first; with a file, the teams' too (through search).
    if (req.query.length === 0 && req.filters.file === undefined) {
      return withStore((s) => {
        const out: MemoryRow[] = [];
        const filters = scopedTo(s, req).filters;
        for (let offset = 0; out.length < n; offset += 500) {
          const rows = s.browse(filters, offset, 500);
          for (const r of rows) if (!req.hide?.(r) && out.length < n) out.push(r);
          if (rows.length < 500) break;
        }
        return out.map((r) => ({ id: r.id, view: () => listView(r) }));
      });
    }
    const { store } = await openCacheAsync(ctx.cacheOptions({ lockTimeoutMs: 3000, progress: () => {} }));
    try {
      // The same candidates for every page and for "forget all matching": each page is a
      // slice of one ranking, not a ranking of its own.
      const embedQuery = model ? async (t: string) => (model as Embedder).embedQuery(t) : undefined;
      let res = await search({ store, ...(embedQuery ? { embedQuery } : {}), now: ctx.io.now().getTime() }, { ...scopedTo(store, req), topK: n });
      // Teammates' memories: of the project filtered on, else of every project the teams accept; attributed.
      if (ctx.config.teams.length > 0) {
        const teams = openTeams(rt, store);
        try {
          const repo = req.filters.file?.repo ?? repoKeyOf(req.filters.project, store);
          res = mergeResults(res, await teamHits(teams, { base: { ...req, topK: n }, query: req.query, repo, scope: repo ? 'all' : 'team', ...(embedQuery ? { embedQuery } : {}), now: ctx.io.now().getTime() }), n);
        } finally {
          closeTeams(teams);
        }
      }
      const hits = res.hits;
      const items = hits.map((h) => ({
        id: h.id,
        view: () => ({ id: h.id, timestamp: h.timestamp, machine: machineLabel(h.machine), project: projectLabel(h.project), source: h.source ?? 'claude-code', question: excerpt(h.question, 600), answer: excerpt(h.answer, ANSWER_PREVIEW), ...(h.recorded_as ? { recorded_as: h.recorded_as } : {}), ...(h.author ? { author: h.author, team: h.team } : {}) }),
      }));
      // The period the words named, as the CLI and the agent are told of it (search.ts periodNote).
      const note = periodNote({ ...res, hits }, (since, until) => `${since ? `From ${since} ` : ''}To ${until} with no words`) ?? latestNote({ ...res, hits });
      // Nothing but time words ("yesterday", "last time"): the period's (the newest) memories, newest first.
      return note ? Object.assign(items, { periodNote: note, ...(res.periodHeld === 'listed' || res.latest === 'listed' ? { listed: true } : {}) }) : items;
    } finally {
      store.close();
    }
  };

  /** A teammate's memory in full, from the team cache that holds it. */
  const teamMemory = (id: string) => {
    const teams = openTeams(rt, undefined);
    try {
      for (const t of teams) {
        const row = t.store.byId(id);
        if (!row || row.deleted === 1 || t.hidden(row)) continue;
        const n = t.store.neighbours(row, 2);
        const attribution = { author: id.slice(0, id.indexOf('/')), team: t.team.name };
        return { memory: { ...fullView(row, t.store), cwd: null, ...attribution }, before: n.before.map(listView), after: n.after.map(listView) };
      }
    } finally {
      closeTeams(teams);
    }
    throw new UserError(`no memory ${id}`);
  };

  const app = new Hono();

  app.use('*', async (c, next) => {
    c.header('Content-Security-Policy', CSP);
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('X-Frame-Options', 'DENY');
    c.header('Referrer-Policy', 'no-referrer');
    c.header('Cache-Control', 'no-store');
    c.header('Cross-Origin-Opener-Policy', 'same-origin');
    c.header('Cross-Origin-Resource-Policy', 'same-origin');
    const host = c.req.header('host') ?? '';
    if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`) return c.text('Refused: this viewer answers only to 127.0.0.1 and localhost.\n', 403);
    const fromUrl = c.req.query('token');
    if (c.req.method === 'GET' && c.req.path === '/' && sameToken(fromUrl, token)) {
      // Trade the URL's token for a cookie, and drop it from the address bar and history.
      setCookie(c, cookieName(), token, { httpOnly: true, sameSite: 'Strict', path: '/' });
      return c.redirect('/', 303);
    }
    // The URL's token is only ever traded for the cookie above: every other request needs the
    // cookie (bound to this port by its name, HttpOnly, SameSite=Strict), never a URL token.
    if (!sameToken(getCookie(c, cookieName()), token)) {
      return c.text('Refused: open the address `memory ui` printed (it carries this start\'s token).\n', 401);
    }
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      if (c.req.method !== 'POST') return c.text('Method not allowed.\n', 405);
      const origin = c.req.header('origin');
      if (!origin || !origins().includes(origin)) return c.text('Refused: a change must come from this page (Origin).\n', 403);
      if (!(c.req.header('content-type') ?? '').startsWith('application/json')) return c.text('Refused: JSON only.\n', 415);
    }
    return next();
  });

  const fail = (c: HonoContext, err: unknown) => {
    if (err instanceof UserError) return c.json({ error: err.message, ...(err.hint ? { hint: err.hint } : {}) }, 400);
    ctx.io.stderr.write(`memory ui: ${errorMessage(err)}\n`);
    return c.json({ error: `unexpected error: ${errorMessage(err).split('\n')[0]}` }, 500);
  };

  /** The page's memories with the files changed since each was made (only the page: bounded work). */
  const withChangedFiles = async <T extends { id: string }>(hits: T[]): Promise<T[]> =>
    hits.length === 0
      ? hits
      : withStore((s) => {
          const st = staleness(s, { here: ctx.io.cwd, machine: ctx.config.general.machine_name });
          return hits.map((h) => {
            const row = s.byId(h.id);
            return row ? changesOf(st, h, row) : h;
          });
        });

  for (const [path, f] of files) {
    app.get(path, (c) => c.body(f.body, 200, { 'Content-Type': f.type }));
  }

  app.get('/api/search', async (c) => {
    try {
      const q = (c.req.query('q') ?? '').trim();
      const offset = Math.max(0, Number.parseInt(c.req.query('offset') ?? '0', 10) || 0);
      const limit = Math.min(PAGE_MAX, Math.max(1, Number.parseInt(c.req.query('limit') ?? '20', 10) || 20));
      if (q.length > 0) warmModel();
      const mode = q.length === 0 ? 'browse' : modelState === 'ready' ? 'hybrid' : 'keyword';
      const req = requestOf((k) => c.req.query(k) || undefined, mode === 'hybrid' ? 'hybrid' : 'keyword');
      const set = await resultSet(req, offset + limit + 1);
      return c.json({
        mode: set.listed ? 'browse' : mode, model: modelState, ...(modelProblem ? { model_problem: modelProblem } : {}), hits: await withChangedFiles(set.slice(offset, offset + limit).map((x) => x.view())),
        more: set.length > offset + limit, capped: offset + limit >= RESULT_MAX, highlight: q.length > 0 ? highlightTerms(q) : [], ...(set.periodNote ? { period_note: set.periodNote } : {}),
      });
    } catch (err) {
      return fail(c, err);
    }
  });

  app.get('/api/memory/:id', async (c) => {
    try {
      // A teammate's memory (`author/id`): from its team's cache.
      if (c.req.param('id').includes('/')) return c.json(teamMemory(c.req.param('id')));
      return c.json(
        await withStore((s) => {
          const row = rowsForIds(s, [c.req.param('id')])[0] as MemoryRow;
          const n = s.neighbours(row, 2);
          return { memory: changesOf(staleness(s, { here: ctx.io.cwd, machine: ctx.config.general.machine_name }), fullView(row, s), row), before: n.before.map(listView), after: n.after.map(listView) };
        }),
      );
    } catch (err) {
      if (err instanceof UserError) return c.json({ error: err.message }, 404);
      return fail(c, err);
    }
  });

  app.post('/api/match', async (c) => {
    try {
      const body = (await c.req.json()) as Record<string, unknown>;
      const get = (k: string) => (typeof body[k] === 'string' && (body[k] as string).length > 0 ? (body[k] as string) : undefined);
      // The mode the page showed its list in: a model that finished loading meanwhile must not
      // change which memories "matching" means.
      const shown = get('mode');
      if (shown === 'hybrid' && modelState !== 'ready') throw new UserError('the list was ranked by meaning, and the model is not loaded now: search again');
      const req = requestOf(get, shown === 'hybrid' ? 'hybrid' : 'keyword');
      const ids = (await resultSet(req, RESULT_MAX)).map((x) => x.id);
      return c.json({ ids, count: ids.length, capped: ids.length >= RESULT_MAX, everything: req.query.length === 0 });
    } catch (err) {
      return fail(c, err);
    }
  });

  app.post('/api/forget', async (c) => {
    try {
      const body = (await c.req.json()) as { ids?: unknown };
      const ids = Array.isArray(body.ids) ? body.ids.filter((x): x is string => typeof x === 'string' && x.length > 0) : [];
      if (ids.length === 0) throw new UserError('no ids to forget');
      // The same path as `memory forget`: tombstones, the cache, commit and push; a teammate's
      // memory is hidden for this person alone, one's own published copy forgotten as one's own.
      const team = ids.filter((id) => id.includes('/'));
      const { mine, hidden } = team.length > 0 ? await teamForgets(rt, team) : { mine: [], hidden: [] };
      const own = [...ids.filter((id) => !id.includes('/')), ...mine];
      const res = own.length > 0 ? await forgetSelected(rt, (store) => rowsForIds(store, own), true) : { rows: [] as MemoryRow[] };
      // The author's forget reaches the team now, as `memory forget` does.
      if (res.rows.length > 0 && ctx.config.teams.length > 0) await publishDue(rt, { catchUp: false });
      const forgotten = [...res.rows.map((r) => r.id), ...hidden.map((h) => `${h.author}/${h.id}`), ...team.filter((id) => mine.includes(id.slice(id.indexOf('/') + 1)))];
      return c.json({ forgotten, hidden: hidden.map((h) => `${h.author}/${h.id}`), committed: 'sync' in res ? (res.sync?.committed ?? false) : false, push: 'sync' in res ? (res.sync?.push?.status ?? null) : null });
    } catch (err) {
      return fail(c, err);
    }
  });

  app.get('/api/overview', async (c) => {
    try {
      const { statusFacts } = await import('../app/status.js');
      const { out, sync } = await statusFacts(ctx);
      const extra = await withStore((s) => ({ perMachineMonth: s.perMachineMonth().map((r) => ({ ...r, machine: machineLabel(r.machine) })), facets: labelled(s.facets()) }));
      return c.json({
        records: out.records, pending: out.pending, tombstones: out.tombstones, machines: out.machines.map(machineLabel), projects: out.projects,
        machine: machineLabel(out.machine), model: out.model, oldest: out.oldest ?? null, newest: out.newest ?? null,
        redactions: out.privacy?.redactions ?? {}, excluded_sessions: out.privacy?.excluded_sessions ?? 0,
        rejected_lines: out.rejected_lines, repository: out.repository, sync, model_state: modelState, unscrubbed: out.unscrubbed, ...extra,
      });
    } catch (err) {
      return fail(c, err);
    }
  });

  app.notFound((c) => c.text('Not found.\n', 404));

  const server: ServerType = await new Promise((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port: opts.port, hostname: '127.0.0.1' }, (info: AddressInfo) => {
      port = info.port;
      resolve(s);
    });
    s.once('error', reject);
  });
  return {
    url: `http://127.0.0.1:${port}/?token=${token}`,
    port,
    token,
    close: () => new Promise<void>((resolve) => {
      (server as import('node:http').Server).closeAllConnections?.();
      server.close(() => resolve());
    }),
  };
}
