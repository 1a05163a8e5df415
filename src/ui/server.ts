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
import type { Context } from '../cli/context.js';
import { runtimeOf } from '../cli/hook-runtime.js';
import { parseDate } from '../cli/options.js';
import { excerpt } from '../cli/render.js';
import { packageRoot } from '../config/load.js';
import { lazyEmbedder, type Embedder } from '../embed/embedder.js';
import { errorMessage, UserError } from '../errors.js';
import { forgetSelected, rowsForIds } from '../hooks/edit-run.js';
import { hideExcluded } from '../privacy/exclude.js';
import { buildKeywordQuery } from '../search/query.js';
import { search } from '../search/search.js';
import { openCache } from '../store/cache.js';
import type { MemoryRow, Store } from '../store/store.js';
import type { SearchFilters } from '../types.js';

const STATIC: Record<string, { file: string; type: string }> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  '/app.css': { file: 'app.css', type: 'text/css; charset=utf-8' },
};

export const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** Characters of the answer shown in a result; the whole memory is one click away. */
const ANSWER_PREVIEW = 400;
const PAGE_MAX = 100;
/** "Forget everything matching" never reaches further than this in one go. */
const MATCH_MAX = 5000;

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

function listView(r: MemoryRow) {
  return {
    id: r.id,
    timestamp: r.timestamp,
    machine: r.machine,
    project: r.project,
    source: r.source ?? 'claude-code',
    question: excerpt(r.question, 600),
    answer: excerpt(r.answer, ANSWER_PREVIEW),
  };
}

function fullView(r: MemoryRow) {
  return {
    ...listView(r),
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
        ctx.io.stderr.write(`memory ui: the embedding model is unavailable (${errorMessage(err).split('\n')[0]}); keyword search only\n`);
      },
    );
  };

  const withStore = <T>(fn: (store: Store) => T): T => {
    const { store } = openCache(ctx.cacheOptions({ lockTimeoutMs: 3000, progress: () => {} }));
    try {
      return fn(store);
    } finally {
      store.close();
    }
  };

  const filtersOf = (get: (k: string) => string | undefined): SearchFilters => {
    const now = ctx.io.now();
    const f: SearchFilters = {};
    const project = get('project');
    const machine = get('machine');
    const source = get('source');
    const since = get('since');
    const until = get('until');
    if (project) f.project = project;
    if (machine) f.machine = machine;
    if (source) f.source = source;
    if (since) f.sinceMs = parseDate('since', since, now);
    if (until) f.untilMs = parseDate('until', until, now, true);
    return f;
  };
  const hidden = (f: SearchFilters) => (f.project ? undefined : hideExcluded(ctx.config.privacy.exclude_projects));

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

  for (const [path, f] of files) {
    app.get(path, (c) => c.body(f.body, 200, { 'Content-Type': f.type }));
  }

  app.get('/api/search', async (c) => {
    try {
      const q = (c.req.query('q') ?? '').trim();
      const f = filtersOf((k) => c.req.query(k) || undefined);
      const offset = Math.max(0, Number.parseInt(c.req.query('offset') ?? '0', 10) || 0);
      const limit = Math.min(PAGE_MAX, Math.max(1, Number.parseInt(c.req.query('limit') ?? '20', 10) || 20));
      const hide = hidden(f);
      if (q.length === 0) {
        // No query: browse, newest first.
        const rows = withStore((s) => s.browse(f, offset, limit + 1));
        const shown = rows.filter((r) => !hide?.(r));
        return c.json({ mode: 'browse', hits: shown.slice(0, limit).map(listView), more: rows.length > limit, highlight: [] });
      }
      warmModel();
      const mode = modelState === 'ready' ? 'hybrid' : 'keyword';
      const want = offset + limit + 1;
      const { store } = openCache(ctx.cacheOptions({ lockTimeoutMs: 3000, progress: () => {} }));
      try {
        const res = await search(
          { store, ...(model ? { embedQuery: async (t: string) => (model as Embedder).embedQuery(t) } : {}), now: ctx.io.now().getTime() },
          {
            query: q, mode, filters: f, topK: want, candidates: Math.max(50, want),
            halfLifeDays: ctx.config.search.half_life_days, recencyWeight: ctx.config.search.recency_weight, rrfK: ctx.config.search.rrf_k,
            ...(hide ? { hide } : {}),
          },
        );
        const page = res.hits.slice(offset, offset + limit).map((h) => ({
          id: h.id, timestamp: h.timestamp, machine: h.machine, project: h.project, source: h.source ?? 'claude-code',
          question: excerpt(h.question, 600), answer: excerpt(h.answer, ANSWER_PREVIEW),
        }));
        return c.json({ mode, model: modelState, hits: page, more: res.hits.length > offset + limit, highlight: highlightTerms(q) });
      } finally {
        store.close();
      }
    } catch (err) {
      return fail(c, err);
    }
  });

  app.get('/api/memory/:id', (c) => {
    try {
      return c.json(
        withStore((s) => {
          const row = rowsForIds(s, [c.req.param('id')])[0] as MemoryRow;
          const n = s.neighbours(row, 2);
          return { memory: fullView(row), before: n.before.map(listView), after: n.after.map(listView) };
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
      const f = filtersOf(get);
      const q = (get('q') ?? '').trim();
      const hide = hidden(f);
      const ids = withStore((s) => {
        const found = q.length === 0 ? s.idsUnder(f, MATCH_MAX) : (() => {
          const k = buildKeywordQuery(q);
          return k.match ? s.ftsIds(k.match, f, MATCH_MAX) : [];
        })();
        if (!hide) return found;
        const rows = found.map((id) => s.byId(id)).filter((r): r is MemoryRow => r !== undefined);
        return rows.filter((r) => !hide(r)).map((r) => r.id);
      });
      return c.json({ ids, count: ids.length, capped: ids.length >= MATCH_MAX });
    } catch (err) {
      return fail(c, err);
    }
  });

  app.post('/api/forget', async (c) => {
    try {
      const body = (await c.req.json()) as { ids?: unknown };
      const ids = Array.isArray(body.ids) ? body.ids.filter((x): x is string => typeof x === 'string' && x.length > 0) : [];
      if (ids.length === 0) throw new UserError('no ids to forget');
      // The same path as `memory forget`: tombstones, the cache, commit and push.
      const res = await forgetSelected(rt, (store) => rowsForIds(store, ids), true);
      return c.json({ forgotten: res.rows.map((r) => r.id), committed: res.sync?.committed ?? false, push: res.sync?.push?.status ?? null });
    } catch (err) {
      return fail(c, err);
    }
  });

  app.get('/api/overview', async (c) => {
    try {
      const { statusFacts } = await import('../cli/commands/status.js');
      const { out, sync } = await statusFacts(ctx);
      const extra = withStore((s) => ({ perMachineMonth: s.perMachineMonth(), facets: s.facets() }));
      return c.json({
        records: out.records, pending: out.pending, tombstones: out.tombstones, machines: out.machines, projects: out.projects,
        machine: out.machine, model: out.model, oldest: out.oldest ?? null, newest: out.newest ?? null,
        redactions: out.privacy?.redactions ?? {}, excluded_sessions: out.privacy?.excluded_sessions ?? 0,
        rejected_lines: out.rejected_lines, repository: out.repository, sync, model_state: modelState, ...extra,
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
