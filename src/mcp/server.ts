/**
 * `memory mcp`: the memory as an MCP server over stdio (the official TypeScript SDK), for
 * every agent that speaks MCP. Tools: memory_search, memory_show, memory_forget,
 * memory_remember. Every failure is a tool result with `isError: true` and a message that
 * says what to do; nothing a client sends can crash the server. Logs go to stderr only
 * (stdout is the protocol). The model loads on the first hybrid search and stays warm.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { placeHere } from '../project/place.js';
import type { Context } from '../app/context.js';
import { runtimeOf } from '../app/context.js';
import { scopedTo, searchRequest } from '../app/search-request.js';
import { hideExcluded } from '../project/exclude.js';
import { closeTeams, mergeResults, openTeams, repoKeyOf, teamHits, type Scope } from '../app/team/team-read.js';
import { readHere } from '../app/team/team.js';
import type { SearchHit } from '../types.js';
import { staleness, withChanges } from '../changes/staleness.js';
import { excerpt } from '../app/text.js';
import { lazyEmbedder } from '../embed/embedder.js';
import { errorMessage, UserError } from '../errors.js';
import { forgetSelected, rememberNote, rowsForIds } from '../app/edit-run.js';
import { latestNote, periodNote, periodStanding, search, type SearchResult } from '../search/search.js';
import { openCacheAsync } from '../store/cache.js';
import { rowToRecord } from '../store/store.js';
import type { SearchMode } from '../types.js';
import { machineLabel, projectLabel } from '../project/label.js';
import { localDay } from '../days.js';

export const INSTRUCTIONS = [
  "memory-engine holds this user's past coding-agent sessions (Claude Code and Codex, on all their machines): every question and answer, verbatim, in English and Japanese.",
  'Call memory_search when the user refers to earlier work ("as before", "last time", "what did we decide", "前回", "前に話した"), when a past decision, fix or error message would help, and before saying you do not know something about this project or this user.',
  'Write the query as the earlier conversation would have worded it (a file, function or error name works well); try once more with other words or the other language if nothing fits.',
  'memory_show gives one memory in full. Cite memories by date and machine. They describe the past: check the code before relying on them.',
  'memory_remember keeps a note only when the user explicitly asks you to remember something. memory_forget removes memories on every machine: only when the user asks.',
].join('\n');

const ANSWER_CHARS = 400;

const text = (s: string): CallToolResult => ({ content: [{ type: 'text', text: s }] });
const failure = (s: string): CallToolResult => ({ content: [{ type: 'text', text: s }], isError: true });

/** A number the model may send as a string ("5"). */
function count(name: string, v: unknown, min: number, max: number): number | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  const n = typeof v === 'number' ? v : Number(String(v).trim());
  if (!Number.isInteger(n) || n < min || n > max) throw new UserError(`${name} must be a whole number from ${min} to ${max} (got ${JSON.stringify(v)})`);
  return n;
}

function optString(name: string, v: unknown): string | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') throw new UserError(`${name} must be a string (got ${JSON.stringify(v)})`);
  return v;
}

const loose = z.union([z.string(), z.number()]).optional();

/** Runs a tool body; a thrown error becomes a tool result with isError and its message (and hint). */
async function guarded(body: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await body();
  } catch (err) {
    if (err instanceof UserError) return failure(`${err.message}${err.hint ? `\n(${err.hint})` : ''}`);
    return failure(`memory-engine failed: ${errorMessage(err).split('\n')[0]}`);
  }
}

export function buildMcpServer(ctx: Context, version: string): McpServer {
  const server = new McpServer({ name: 'memory-engine', version }, { instructions: INSTRUCTIONS });
  const embedder = lazyEmbedder(ctx.embedderConfig());
  const embedQuery = async (q: string) => (await embedder()).embedQuery(q);
  const rt = () => runtimeOf(ctx, { quiet: true });
  // The folder the agent runs the server in may be an excluded project: there memory is off,
  // as it is for recall and session-start injection — nothing is searched, shown or kept.
  const herePlace = placeHere(ctx.io.cwd, { ...(ctx.config.general.project ? { configured: ctx.config.general.project } : {}), exclude: ctx.config.privacy.exclude_projects });
  const here = herePlace.name;
  const off = herePlace.excluded;
  const offHere = () => {
    if (off) throw new UserError(`memory is off in this folder: project "${projectLabel(here)}" is excluded by [privacy] exclude_projects`, 'nothing is searched, shown or remembered here; work in another folder to use memory');
  };

  server.registerTool(
    'memory_search',
    {
      title: 'Search past sessions',
      description: 'Search every past question/answer of this user\'s agent sessions (all machines, all projects unless `project` is given). Returns compact hits: id, date, machine, project, source, the question and the start of the answer; memory_show gives one in full. `file` narrows to the sessions that worked on that file (or any file under that folder) of this repository. With no query, `file` or `since`/`until` list their memories, newest first; a listing ("what did we do last time", days with no query) puts this folder\'s project first unless `project` is given.',
      inputSchema: {
        query: z.string().optional().describe('what to look for, in the words the earlier conversation would have used'),
        q: z.string().optional().describe('alias of query'),
        project: z.string().optional().describe('only this project'),
        machine: z.string().optional().describe('only memories from this machine'),
        since: z.string().optional().describe('from this day on (the user\'s local calendar): 2026-03-01, an age like 30d, or words such as "last week", 先週, "March 2026"'),
        after: z.string().optional().describe('alias of since'),
        until: z.string().optional().describe('up to and including this day, or the end of the period named in words'),
        before: z.string().optional().describe('alias of until'),
        mode: z.string().optional().describe('hybrid (default) | keyword | vector'),
        top_k: loose.describe('how many hits (1–50, default 5)'),
        limit: loose.describe('alias of top_k'),
        scope: z.string().optional().describe('mine | team | all (default): the user\'s memories, their teams\' memories of this project, or both'),
        file: z.string().optional().describe('only the memories of sessions that worked on this file (a path in this checkout, e.g. src/checkout.ts), or on any file under this folder (src/pay/); with no query, all of them, newest first'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      guarded(async () => {
        offHere();
        const query = (optString('query', args.query) ?? optString('q', args.q) ?? '').trim();
        const file = optString('file', args.file);
        const since = optString('since', args.since) ?? optString('after', args.after);
        const until = optString('until', args.until) ?? optString('before', args.before);
        if (query.length === 0 && !file && !since && !until) {
          throw new UserError('query is required', 'give the words to search for, e.g. {"query": "sqlite lock timeout"}, a file, {"file": "src/checkout.ts"}, or days, {"since": "2026-11-23", "until": "2026-11-29"}');
        }
        const mode = (optString('mode', args.mode) ?? 'hybrid') as SearchMode;
        if (!['hybrid', 'keyword', 'vector'].includes(mode)) throw new UserError(`mode must be hybrid, keyword or vector (got "${mode}")`);
        const project = optString('project', args.project);
        const machine = optString('machine', args.machine);
        const topK = count('top_k', args.top_k, 1, 50) ?? count('limit', args.limit, 1, 50);
        // The agent chose these arguments: an excluded project stays hidden even when named.
        const request = searchRequest(ctx, { query, mode, byAgent: true, ...(project ? { project } : {}), ...(machine ? { machine } : {}), ...(since ? { since } : {}), ...(until ? { until } : {}), ...(topK ? { topK } : {}), ...(file ? { file, cwd: ctx.io.cwd } : {}) });
        const scope = (optString('scope', args.scope) ?? 'all') as Scope;
        if (!['mine', 'team', 'all'].includes(scope)) throw new UserError(`scope must be mine, team or all (got "${scope}")`);
        const { store } = await openCacheAsync(ctx.cacheOptions({ lockTimeoutMs: 3000, progress: () => {} }));
        // Teammates' memories of the project named, else of the folder the server runs in: attributed.
        const repo = repoKeyOf(project, store) ?? (project ? undefined : herePlace.repo?.key);
        const reading = scope !== 'mine' && ctx.config.teams.length > 0;
        if (reading) await readHere(rt(), repo, ctx.config.sync.pull_timeout_ms);
        // A project newly read is caught up by the capture worker, not in the agent's tool call.
        const teams = reading ? openTeams(rt(), store, { maxBytes: 32 * 1024 * 1024 }) : [];
        try {
          // The project of the agent's folder, as its memories are filed: a listing ("what did we do last time") puts its memories first.
          const hereFiled = project ? undefined : store.projects.filed(herePlace, ctx.config.general.project || undefined).name;
          const own: SearchResult = scope === 'team' ? { hits: [] as SearchHit[] } : await search({ store, embedQuery, now: ctx.io.now().getTime(), staleness: staleness(store, { here: ctx.io.cwd, machine: ctx.config.general.machine_name }) }, { ...scopedTo(store, request), ...(hereFiled ? { here: hereFiled } : {}) });
          const res = mergeResults(own, teams.length > 0 ? await teamHits(teams, { base: request, query, repo, scope, embedQuery, now: ctx.io.now().getTime() }) : [], request.topK);
          const hits = res.hits.map((h) => {
            return {
              id: h.id,
              date: localDay(h.timestamp),
              ...(h.author ? { author: h.author, team: h.team, note: 'someone else\'s session, shared through the team' } : {}),
              machine: machineLabel(h.machine),
              project: projectLabel(h.project),
              source: h.source,
              ...(h.changed_files ? { changed_files: h.changed_files } : {}),
              ...(h.files_note ? { files_note: h.files_note } : {}),
              ...(h.recorded_as ? { recorded_as: h.recorded_as } : {}),
              question: excerpt(h.question, 300),
              answer: excerpt(h.answer, ANSWER_CHARS),
            };
          });
          // The period the question named, and whether its memories lead: an agent told "last week" must not take March's for it.
          const period = res.period ? { period: res.period.label, period_note: periodNote(res, (since, until) => `memory_search with ${since ? `since "${since}", ` : ''}until "${until}" and no query`) } : {};
          // Asked for the latest time ("last time", 前回): whether the newest on the topic lead, so the agent does not take an older decision for the last one.
          const latest = latestNote(res);
          const latestTold = { ...(latest ? { latest_note: latest } : {}), ...(res.hereFirst ? { project_first: projectLabel(res.hereFirst) } : {}) };
          // Nothing found in a period that holds memories: its listing (period_note) before other words.
          const lines = hits.length === 0 ? [periodStanding(res) === 'off-topic' ? 'No memories found on this. List that period\'s memories as period_note says (the user may have worded it otherwise then), or try other words.' : 'No memories found. Try other words, the other language, or a file/error name.'] : [];
          return {
            content: [{ type: 'text', text: JSON.stringify({ query, ...period, ...latestTold, hits, ...(res.degraded ? { note: res.degraded } : {}) }, null, 1) }, ...lines.map((t) => ({ type: 'text' as const, text: t }))],
          };
        } finally {
          store.close();
          closeTeams(teams);
        }
      }),
  );

  server.registerTool(
    'memory_show',
    {
      title: 'Show one memory',
      description: 'One memory in full (question, answer, files, branch, session, machine, dates) by its id or a unique prefix of 6+ characters, as memory_search printed it.',
      inputSchema: { id: z.string().optional().describe('memory id or a unique prefix of 6+ characters') },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      guarded(async () => {
        offHere();
        const id = (optString('id', args.id) ?? '').trim();
        if (id.length === 0) throw new UserError('id is required', 'ids are printed by memory_search');
        const { store } = await openCacheAsync(ctx.cacheOptions({ lockTimeoutMs: 3000, progress: () => {} }));
        try {
          const rows = rowsForIds(store, [id]);
          const row = rows[0] as NonNullable<(typeof rows)[0]>;
          // Nor is an excluded project's memory shown by id: the agent may have the id from elsewhere.
          if (hideExcluded(ctx.config.privacy.exclude_projects)?.(row)) throw new UserError(`no memory ${id}`, 'ids are printed by memory_search');
          const r = rowToRecord(row);
          const { embedding: _e, extra, ...rest } = r;
          void _e;
          const changes = withChanges({}, staleness(store, { here: ctx.io.cwd, machine: ctx.config.general.machine_name }), row);
          return text(
            JSON.stringify(
              { ...rest, machine: machineLabel(row.machine), project: projectLabel(row.project), ...(extra?.tools ? { tools: extra.tools } : {}), ...changes },
              null,
              1,
            ),
          );
        } finally {
          store.close();
        }
      }),
  );

  server.registerTool(
    'memory_forget',
    {
      title: 'Forget memories everywhere',
      description: 'Forget memories by id, on every machine of this user (tombstones, committed and pushed). Only when the user asks. Unknown or ambiguous ids forget nothing.',
      inputSchema: {
        ids: z.union([z.array(z.string()), z.string()]).optional().describe('memory ids (or unique prefixes of 6+ characters)'),
        id: z.string().optional().describe('one id (alias)'),
      },
      annotations: { destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    (args) =>
      guarded(async () => {
        const raw = args.ids ?? args.id;
        const ids = (Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(/[\s,]+/) : []).map((s) => s.trim()).filter((s) => s.length > 0);
        if (ids.length === 0) throw new UserError('ids is required', 'give the ids printed by memory_search, e.g. {"ids": ["3f2a9c81d0"]}');
        const res = await forgetSelected(rt(), (store) => rowsForIds(store, ids), true);
        const pushed = res.sync?.push?.status;
        return text(
          `Forgot ${res.rows.length} memor${res.rows.length === 1 ? 'y' : 'ies'} (${res.rows.map((r) => r.id.slice(0, 12)).join(', ')}) on every machine: gone from search here now, and from the other machines at their next session start${pushed ? ` (push: ${pushed})` : ''}.`,
        );
      }),
  );

  server.registerTool(
    'memory_remember',
    {
      title: 'Remember a note',
      description: 'Keep a note the user explicitly asked you to remember ("remember that…", "覚えておいて"). Stored as a memory of the project (default: the folder the server runs in), searchable at once and synced to their other machines. Secrets are redacted.',
      inputSchema: {
        text: z.string().optional().describe('the note, in the user\'s words'),
        note: z.string().optional().describe('alias of text'),
        project: z.string().optional().describe('project name (default: this folder\'s project)'),
      },
      annotations: { openWorldHint: false },
    },
    (args) =>
      guarded(async () => {
        offHere();
        const body = optString('text', args.text) ?? optString('note', args.note) ?? '';
        const project = optString('project', args.project) ?? here;
        const res = await rememberNote(rt(), { text: body, project, cwd: ctx.io.cwd }, true);
        return text(`Remembered as ${res.record.id.slice(0, 12)} (project ${projectLabel(res.record.project)}, ${localDay(res.record.timestamp)})${res.redactions > 0 ? `; ${res.redactions} secret(s) redacted` : ''}.`);
      }),
  );

  return server;
}
