/**
 * Team memory, the use cases (the team-memory issue; design study TEAM.md): a team is a git
 * remote of its own beside each person's memory home — `team.toml` (members, maintainers, the
 * projects it accepts) and `<project>/<handle>/<YYYY-MM>_<machine>.jsonl`. Each machine
 * publishes its own captures of the projects both keys open (the team accepts it, the person
 * shares it) after the review window, never a memory that was redacted or that a detector flags
 * without the person's word; reads every member's; keys them by (author, id).
 *
 * Local state, per machine: the clone and the team cache in `.cache/teams/<name>/` (disposable),
 * the outbox's first-seen times there too (lost, the window starts again: later, never earlier).
 * The person's words — withhold, release, hide — are memory data: `export/team-decisions.jsonl`,
 * committed and synced to all of their machines, so a withheld memory stays withheld everywhere.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeKeepingMode, ensurePrivateDir } from '../../config/paths.js';
import type { TeamConfig } from '../../config/schema.js';
import { DEFAULT_REVIEW_DELAY_H } from '../../config/schema.js';
import { writeTeams } from '../../config/teams.js';
import { UsageError, UserError } from '../../errors.js';
import { appendByMonth, appendLockPath } from '../../export/files.js';
import { monthOf } from '../../export/jsonl.js';
import { withLock, withLockAsync } from '../../export/lock.js';
import { readEntries } from '../../export/read.js';
import { hideExcluded } from '../../project/exclude.js';
import { normalizeRemoteUrl } from '../../project/remote-url.js';
import { openCache, type CacheOptions } from '../../store/cache.js';
import { rowToRecord, type Store } from '../../store/store.js';
import { AUTHOR_TRAILER, commitPaths } from '../../sync/commit.js';
import { aheadOfRemote } from '../../sync/history.js';
import { isTombstone, type ExportEntry, type MemoryRecord, type Tombstone } from '../../types.js';
import { admitTeamLine, listTeamFiles } from '../../team/files.js';
import { MANIFEST_FILE, memberOf, renderManifest, type TeamManifest, type TeamProject } from '../../team/manifest.js';
import { heldReason, latestDecisions, teamRecord, type Decision } from '../../team/outbox.js';
import { compileFormats } from '../../privacy/formats.js';
import { DECISIONS_FILE, readDecisions } from '../../team/decisions.js';
import { manifestAsIs } from '../../team/light.js';

export { readDecisions };
import { coneOf, openTeamClone, pullTeam, pushTeam, readTeamManifest, remoteBranches, setCone, teamDir, teamRepoOf, writeTeamFile } from '../../team/repo.js';
import { readVerified, verifyHistory } from '../../team/verify.js';
import type { Repo } from '../../sync/process.js';
import type { PullOutcome, PushOutcome } from '../../sync/replay.js';
import { modelIdOf } from '../../embed/embedder.js';
import { applyFold, planMerge } from '../../maintain/monthly-merge.js';
import { commitAndPush, networkLimits } from '../sync/sync-run.js';
import { withMemoryRepo } from '../sync/locks.js';
import type { Runtime } from '../runtime.js';
import { nameMatches, projectName } from '../../project/label.js';

// ---------------------------------------------------------------------------------------------
// The person's words: export/team-decisions.jsonl

/** Append the person's word and commit it now (it must hold on every machine of theirs). */
export async function recordDecision(rt: Runtime, d: Decision): Promise<void> {
  const dir = rt.config.general.export_dir;
  mkdirSync(dir, { recursive: true });
  withLock(appendLockPath(dir), { purpose: 'recording a team decision' }, () => {
    appendFileSync(join(dir, DECISIONS_FILE), `${JSON.stringify({ v: 1, ...d, machine: rt.config.general.machine_name })}\n`);
  });
  await withMemoryRepo(rt, { timeoutMs: 60_000 }, async ({ repo, foreign }) => {
    if (!repo || foreign) return;
    await commitAndPush(rt, repo, `memory: ${rt.config.general.machine_name} ${d.decision}s ${d.author ? `${d.author}/` : ''}${d.id} for team ${d.team}`, true);
  });
}

// ---------------------------------------------------------------------------------------------
// Local state per team (.cache/teams/<name>/state.json): disposable

export interface TeamLocal {
  /** When each memory entered the outbox: its window runs from then. */
  first_seen: Record<string, string>;
  last_pull?: string;
  last_publish?: string;
  published_total?: number;
  last_error?: { op: string; at: string; message: string };
  /** The projects this person reads whole (those they share or had a session in); the rest of the team remote is not checked out. */
  reading?: string[];
}

function localPath(rt: Runtime, team: string): string {
  return join(teamDir(rt.config.baseDir, team), 'state.json');
}

export function readLocal(rt: Runtime, team: string): TeamLocal {
  try {
    const v = JSON.parse(readFileSync(localPath(rt, team), 'utf8')) as TeamLocal;
    return { ...v, first_seen: typeof v.first_seen === 'object' && v.first_seen !== null ? v.first_seen : {} };
  } catch {
    return { first_seen: {} };
  }
}

function updateLocal(rt: Runtime, team: string, change: (s: TeamLocal) => void): TeamLocal {
  const s = readLocal(rt, team);
  change(s);
  ensurePrivateDir(teamDir(rt.config.baseDir, team));
  writeKeepingMode(localPath(rt, team), `${JSON.stringify(s)}\n`);
  return s;
}

// ---------------------------------------------------------------------------------------------
// Teams of this configuration

export function teamNamed(rt: Pick<Runtime, 'config'>, name: string | undefined): TeamConfig {
  const teams = rt.config.teams;
  if (name === undefined) {
    if (teams.length === 1) return teams[0] as TeamConfig;
    if (teams.length === 0) throw new UserError('you are in no team', 'create one with `memory team create <name> --remote <url> --handle <you>`, or join one with `memory team join`');
    throw new UsageError(`you are in ${teams.length} teams (${teams.map((t) => t.name).join(', ')}): name one`);
  }
  const t = teams.find((x) => x.name === name);
  if (!t) throw new UserError(`you are in no team named "${name}"${teams.length > 0 ? ` (yours: ${teams.map((x) => x.name).join(', ')})` : ''}`, 'join it with `memory team join <name> --remote <url> --handle <you>`');
  return t;
}

function requireHome(rt: Runtime): string {
  if (!rt.config.home) throw new UserError('teams are recorded in the memory home\'s config.toml, and this configuration names its own export folder', 'run memory team … without --config / MEMORY_CONFIG');
  return rt.config.home;
}

function writeTeamsOf(rt: Runtime, teams: TeamConfig[]): void {
  writeTeams(rt.config.file, teams);
  (rt.config as { teams: TeamConfig[] }).teams = teams;
}

/** The teams recorded: commit the settings now (a `settings: …` commit) and push them to the person's other machines. */
async function shareSettings(rt: Runtime): Promise<void> {
  await withMemoryRepo(rt, { timeoutMs: 60_000 }, async ({ repo, foreign }) => {
    if (!repo || foreign) return;
    await commitAndPush(rt, repo, `memory: ${rt.config.general.machine_name} sync`, true);
  });
}

// ---------------------------------------------------------------------------------------------
// Projects: a name, a repository key, or a URL

/** What `--project p` names: a team project `{name, repo}` (the name its memories' folder has). */
export function projectRef(p: string, known: Map<string, string>, accepted: TeamProject[] = []): TeamProject {
  // A name as people read it (`決済`) or as it is filed (`xn--1tw26a`).
  const byName = accepted.find((x) => nameMatches(p, x.name));
  if (byName) return byName;
  const key = normalizeRemoteUrl(p) ?? (/^[^/\s]+\.[^/\s]+\/.+/.test(p) ? p.replace(/\.git$/, '').replace(/\/+$/, '') : undefined);
  if (key) {
    const same = accepted.find((x) => x.repo === key);
    if (same) return same;
    return { name: known.get(key) ?? projectName(key.split('/').pop() ?? key), repo: key };
  }
  for (const [repo, name] of known) if (nameMatches(p, name)) return { name, repo };
  throw new UserError(`no repository is known here as "${p}"`, 'give its URL (git@github.com:acme/api.git) or its key (github.com/acme/api); a name works once memories of it are here');
}

function personalCache(rt: Runtime): { store: Store } {
  return openCache(rt.cacheOptions({ lockTimeoutMs: 10_000, warn: (m) => rt.log.warn(m), progress: () => {} }));
}

/** The person's repositories and the names their memories are filed under (key → name): what a project named by its short name means. */
function knownRepositories(rt: Runtime): Map<string, string> {
  const { store } = personalCache(rt);
  try {
    return store.projects.repoNames();
  } finally {
    store.close();
  }
}

// ---------------------------------------------------------------------------------------------
// The team clone

/** The clone pulled (bounded), its history's authorship verified, its team.toml. */
/**
 * Pull a team's remote into its clone (bounded by `totalMs`, all of its network calls together),
 * check its history's authorship, and check out what the person reads. `lockMs`: how long to
 * wait for another process working in the clone (a hook waits briefly and goes on with the
 * memories as last pulled).
 */
export async function refreshTeam(rt: Runtime, team: TeamConfig, opts: { totalMs?: number; here?: string; lockMs?: number } = {}): Promise<{ repo: Repo; pull: PullOutcome; manifest: TeamManifest | undefined; behind: boolean }> {
  const dir = teamDir(rt.config.baseDir, team.name);
  ensurePrivateDir(dir);
  const repo = teamRepoOf(rt.config.baseDir, team.name);
  // One bound for everything this pull asks of the network (fetch, what the checkout needs, a project newly read).
  const limits = { ...networkLimits(rt, opts.totalMs), ...(opts.totalMs ? { deadline: Date.now() + opts.totalMs } : {}) };
  return withLockAsync(join(dir, 'team.lock'), { timeoutMs: opts.lockMs ?? 60_000, purpose: `the clone of team ${team.name}` }, async () => {
    const t0 = performance.now();
    await openTeamClone(repo, team.remote);
    const pull = await pullTeam(repo, limits);
    const t1 = performance.now();
    const ok = pull.status === 'pulled' || pull.status === 'up-to-date';
    updateLocal(rt, team.name, (s) => {
      if (ok) {
        s.last_pull = rt.now().toISOString();
        if (s.last_error?.op === 'pull') delete s.last_error;
      } else s.last_error = { op: 'pull', at: rt.now().toISOString(), message: `${pull.status}${pull.detail ? `: ${pull.detail}` : ''}` };
    });
    if (!ok) rt.log.warn(`team ${team.name}: pull ${pull.status}${pull.detail ? ` (${pull.detail})` : ''}; its memories as last pulled`);
    const manifest = readTeamManifest(repo);
    if (manifest) await verifyHistory(repo, dir, manifest);
    const t2 = performance.now();
    let behind = false;
    if (manifest && ok) {
      try {
        await followCone(rt, team, repo, manifest, opts.here, limits);
      } catch (err) {
        behind = true;
        rt.log.warn(`team ${team.name}: could not check out what you read (${String((err as Error).message).split('\n')[0]}); the capture worker tries again`);
      }
    }
    rt.log.info(`team ${team.name}: pull ${pull.status} in ${Math.round(t1 - t0)} ms, history checked in ${Math.round(t2 - t1)} ms, what you read in ${Math.round(performance.now() - t2)} ms`);
    return { repo, pull, manifest, behind };
  });
}

const sameList = (a: readonly string[], b: readonly string[] | undefined) => b !== undefined && a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * What this person reads of a team: the projects they share and those they had a session in
 * (`here`: the repository at hand), each whole; of every other project the team accepts, their
 * own folder only (what they publish and forget there). The rest is neither checked out nor,
 * from a host that filters, fetched.
 */
async function followCone(rt: Runtime, team: TeamConfig, repo: Repo, manifest: TeamManifest, here: string | undefined, limits: ReturnType<typeof networkLimits>): Promise<void> {
  const local = readLocal(rt, team.name);
  const accepted = manifest.projects.map((p) => p.name);
  const atHand = here ? manifest.projects.find((p) => p.repo === here)?.name : undefined;
  const reading = [...new Set([...(local.reading ?? []), ...team.projects, ...(atHand ? [atHand] : [])])].filter((p) => accepted.includes(p)).sort();
  if (!sameList(reading, local.reading)) updateLocal(rt, team.name, (st) => (st.reading = reading));
  const cone = [...reading, ...accepted.filter((p) => !reading.includes(p)).map((p) => `${p}/${team.handle}`)];
  if ((await setCone(repo, cone, limits)) === 'set') rt.log.info(`team ${team.name}: reading ${reading.join(', ') || 'no project yet'}`);
}

/**
 * The repository at hand (or named), when a team accepts it and this machine does not read it
 * yet: read from now on — fetched, bounded — as a session start there would. `search` and the
 * MCP server ask this before they look.
 */
export async function readHere(rt: Runtime, repoKey: string | undefined, totalMs: number): Promise<void> {
  if (!repoKey) return;
  for (const t of rt.config.teams) {
    const p = manifestAsIs(rt.config.baseDir, t.name)?.projects.find((x) => x.repo === repoKey);
    if (!p || readLocal(rt, t.name).reading?.includes(p.name)) continue;
    await refreshTeam(rt, t, { here: repoKey, totalMs }).catch((err: unknown) => rt.log.warn(`team ${t.name}: could not read ${p.name} (${String((err as Error).message).split('\n')[0]})`));
  }
}

/** Whether a project's folder of this person is checked out (publishing writes there). */
async function mayWrite(repo: Repo, project: string, handle: string): Promise<boolean> {
  const cone = await coneOf(repo);
  return cone === undefined || cone.includes(project) || cone.includes(`${project}/${handle}`);
}

/** Options of a team's cache: its own database, the clone's files, every memory keyed by its author. */
export function teamCacheOptions(rt: Runtime, team: string, extra: Partial<CacheOptions> = {}): CacheOptions {
  const dir = teamDir(rt.config.baseDir, team);
  const setAside = new Set(readVerified(dir).setAside);
  return rt.cacheOptions({
    dbPath: join(dir, 'memory.db'),
    exportDir: teamRepoOf(rt.config.baseDir, team).root,
    listFiles: listTeamFiles,
    admit: (e, f) => admitTeamLine(e, f, setAside),
    progress: () => {},
    ...extra,
  });
}

/** A team's cache, brought up to date with its clone (never the network), or undefined before the first pull. */
export function openTeamCache(rt: Runtime, team: string, extra: Partial<CacheOptions> = {}): { store: Store; setAside: number; deferred?: boolean } | undefined {
  const root = teamRepoOf(rt.config.baseDir, team).root;
  if (!existsSync(join(root, MANIFEST_FILE))) return undefined;
  const { store, result } = openCache(teamCacheOptions(rt, team, { lockTimeoutMs: 3000, ...extra }));
  return { store, setAside: readVerified(teamDir(rt.config.baseDir, team)).setAside.length + (result.set_aside ?? 0), ...(result.deferred || result.stale ? { deferred: true } : {}) };
}

/** Each line of this person's folders in the team clone: id → the newest version there, and its project. */
function myPublished(repo: Repo, handle: string, projects: string[]): Map<string, { updated_at: string; deleted: boolean; project: string }> {
  const out = new Map<string, { updated_at: string; deleted: boolean; project: string }>();
  for (const f of listTeamFiles(repo.root)) {
    const [project = '', h] = f.rel.split('/');
    if (h !== handle || !projects.includes(project)) continue;
    readEntries(f.path, {
      onEntry: (e: ExportEntry) => {
        const at = e.updated_at ?? (isTombstone(e) ? '' : e.timestamp);
        const cur = out.get(e.id);
        if (!cur || at >= cur.updated_at) out.set(e.id, { updated_at: at, deleted: isTombstone(e), project });
      },
    });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The outbox

export interface OutboxItem {
  id: string;
  project: string;
  question: string;
  /** When it goes (ISO), for waiting ones. */
  due?: string;
  /** Why it is held, for held ones. */
  held?: string;
}

export interface Outbox {
  waiting: OutboxItem[];
  held: OutboxItem[];
  withheld: OutboxItem[];
  /** Due now (waited its window, or released). */
  due: OutboxItem[];
  /** Ids forgotten by this person whose team copy is still live: a tombstone goes. */
  forget: Array<{ id: string; project: string }>;
  published: number;
  /** Shared by the person but not accepted by the team's team.toml (nothing of them goes). */
  notAccepted: string[];
}

/** What this machine would publish to `team` now, and what it holds back. Records first-seen times. */
export function outboxOf(rt: Runtime, team: TeamConfig, manifest: TeamManifest, repo: Repo, store: Store): Outbox {
  const accepted = new Map(manifest.projects.map((p) => [p.name, p]));
  const shared = team.projects.filter((p) => accepted.has(p));
  const ob: Outbox = { waiting: [], held: [], withheld: [], due: [], forget: [], published: 0, notAccepted: team.projects.filter((p) => !accepted.has(p)) };
  if (shared.length === 0) return ob;
  // The person's own secret formats hold a memory too (one that holds such a token since they were added).
  const own = compileFormats(rt.config.privacy.secret_formats);
  const byRepo = new Map(shared.map((p) => [(accepted.get(p) as TeamProject).repo, p]));
  const rows = store.liveOfMachineIn(rt.config.general.machine_name, [...byRepo.keys()]);
  const hide = hideExcluded(rt.config.privacy.exclude_projects);
  const mine = myPublished(repo, team.handle, shared);
  const decisions = latestDecisions(readDecisions(rt.config.general.export_dir).filter((d) => d.team === team.name));
  const now = rt.now();
  const local = readLocal(rt, team.name);
  const seen = { ...local.first_seen };
  for (const row of rows) {
    if (hide?.(row)) continue; // an excluded project never goes, whatever was shared
    const project = byRepo.get(row.repo ?? '') as string;
    const item: OutboxItem = { id: row.id, project, question: row.question };
    const d = decisions.get(`${team.name}\u0000${row.id}`);
    if (d?.decision === 'withhold') {
      ob.withheld.push(item);
      continue;
    }
    const there = mine.get(row.id);
    if (there && !there.deleted && there.updated_at >= (row.updated_at ?? row.timestamp)) {
      ob.published++;
      continue;
    }
    // First seen now; a first-seen time ahead of now (this clock went back) counts from now,
    // so a window is never longer than it says.
    if (seen[row.id] === undefined || Date.parse(seen[row.id] as string) > now.getTime()) seen[row.id] = now.toISOString();
    const released = d?.decision === 'release';
    const held = released ? undefined : heldReason(rowToRecord(row), own);
    if (held) {
      ob.held.push({ ...item, held });
      continue;
    }
    const due = new Date(Date.parse(seen[row.id] as string) + team.review_delay_h * 3_600_000);
    if (released || due.getTime() <= now.getTime()) ob.due.push(item);
    else ob.waiting.push({ ...item, due: due.toISOString() });
  }
  // Forgotten by its author (any machine of theirs): its team copy goes too.
  const liveThere = [...mine].filter(([, v]) => !v.deleted).map(([id]) => id);
  for (const id of store.forgottenAmong(liveThere)) ob.forget.push({ id, project: (mine.get(id) as { project: string }).project });
  // Only ids still in the outbox keep their first-seen time.
  const keep = new Set([...ob.waiting, ...ob.due, ...ob.held].map((x) => x.id));
  updateLocal(rt, team.name, (s) => {
    s.first_seen = Object.fromEntries(Object.entries(seen).filter(([id]) => keep.has(id)));
  });
  return ob;
}

// ---------------------------------------------------------------------------------------------
// Publish

export interface PublishReport {
  team: string;
  published: number;
  forgotten: number;
  waiting: number;
  held: number;
  push?: PushOutcome['status'];
  detail?: string;
  pull?: PullOutcome['status'];
}

/** Publish what has passed its window (and what the person released), and the author's forgets. */
export async function publishTeam(rt: Runtime, team: TeamConfig, opts: { ids?: string[]; totalMs?: number } = {}): Promise<PublishReport> {
  const { repo, pull, manifest } = await refreshTeam(rt, team, opts.totalMs ? { totalMs: opts.totalMs } : {});
  const report: PublishReport = { team: team.name, published: 0, forgotten: 0, waiting: 0, held: 0, pull: pull.status };
  if (!manifest) {
    report.detail = 'the team remote holds no team.toml (not pulled yet?)';
    return report;
  }
  const me = memberOf(manifest, team.handle);
  if (!me) throw new UserError(`you (${team.handle}) are not a member of team ${team.name} on its remote`, `join it: memory team join ${team.name} --remote ${team.remote} --handle ${team.handle}`);
  const { store } = personalCache(rt);
  let entries: Array<{ project: string; entry: ExportEntry }> = [];
  let ob: Outbox;
  try {
    ob = outboxOf(rt, team, manifest, repo, store);
    const pick = opts.ids ? ob.due.filter((x) => opts.ids?.includes(x.id)) : ob.due;
    const model = manifest.model || modelIdOf(rt.config.embedding.model);
    for (const item of pick) {
      const row = store.byId(item.id);
      if (!row) continue;
      const r: MemoryRecord = rowToRecord(row);
      const v = row.has_vector ? store.vectorOf(row.rowid) : undefined;
      if (v && row.model) {
        r.embedding = v;
        r.model = row.model;
        if (row.dim) r.dim = row.dim;
      }
      const project = manifest.projects.find((p) => p.name === item.project) as TeamProject;
      entries.push({ project: item.project, entry: teamRecord(r, { author: team.handle, project: project.name, repo: project.repo, model }) });
    }
    const nowIso = rt.now().toISOString();
    for (const f of ob.forget) {
      const row = store.byId(f.id);
      const t: Tombstone = { v: 1, id: f.id, deleted: true, updated_at: nowIso, machine: rt.config.general.machine_name, ...(row?.timestamp ? { timestamp: row.timestamp } : {}) };
      entries.push({ project: f.project, entry: t });
    }
  } finally {
    store.close();
  }
  report.waiting = ob.waiting.length;
  report.held = ob.held.length;
  if (entries.length === 0) {
    // Published before while the remote was away: committed in the clone, pushed now.
    if ((await aheadOfRemote(repo, 'origin')) > 0) {
      const push = await pushTeam(repo, networkLimits(rt, opts.totalMs));
      report.push = push.status;
      if (push.detail) report.detail = push.detail;
      recordPush(rt, team, push, 0);
    }
    return report;
  }
  await withLockAsync(join(teamDir(rt.config.baseDir, team.name), 'team.lock'), { timeoutMs: 60_000, purpose: `publishing to team ${team.name}` }, async () => {
    const machine = rt.config.general.machine_name;
    const trailers = [`${AUTHOR_TRAILER}: ${team.handle}`];
    // This machine publishes as this member: said in team.toml first (team/verify.ts reads it).
    if (!me.machines.includes(machine)) {
      me.machines.push(machine);
      writeTeamFile(repo, MANIFEST_FILE, renderManifest(manifest));
      await commitPaths(repo, [MANIFEST_FILE], `team: ${team.handle} publishes from ${machine}`, machine, undefined, trailers);
    }
    // A project whose folder is not checked out yet (the cone could not be set): it waits for the next publish.
    const writable = new Map<string, boolean>();
    for (const p of new Set(entries.map((e) => e.project))) writable.set(p, await mayWrite(repo, p, team.handle));
    entries = entries.filter((e) => writable.get(e.project));
    if (entries.length === 0) return;
    const projects = [...new Set(entries.map((e) => e.project))];
    for (const p of projects) {
      const dir = join(repo.root, p, team.handle);
      const group = entries.filter((e) => e.project === p).map((e) => e.entry);
      appendByMonth(dir, machine, group, (e) => monthOf(isTombstone(e) ? rt.now().toISOString() : (e as MemoryRecord).timestamp));
    }
    const published = entries.filter((e) => !isTombstone(e.entry)).length;
    const forgotten = entries.length - published;
    const c = await commitPaths(repo, projects.map((p) => `${p}/${team.handle}`), `team: ${team.handle} publishes ${published} memor${published === 1 ? 'y' : 'ies'}${forgotten ? `, forgets ${forgotten}` : ''} (${projects.join(', ')})`, machine, undefined, trailers);
    if (!c.committed) return;
    const push = await pushTeam(repo, networkLimits(rt, opts.totalMs));
    report.push = push.status;
    if (push.detail) report.detail = push.detail;
    recordPush(rt, team, push, published);
    // Committed in the clone either way: pushed by the next publish when the remote answers again.
    report.published = published;
    report.forgotten = forgotten;
    rt.log.info(`team ${team.name}: ${published} memories published${forgotten ? `, ${forgotten} forgotten` : ''} (push ${push.status})`);
  });
  return report;
}

function recordPush(rt: Runtime, team: TeamConfig, push: PushOutcome, published: number): void {
  const ok = push.status === 'pushed' || push.status === 'up-to-date';
  updateLocal(rt, team.name, (s) => {
    if (ok) {
      s.last_publish = rt.now().toISOString();
      s.published_total = (s.published_total ?? 0) + published;
      if (s.last_error?.op === 'push') delete s.last_error;
    } else s.last_error = { op: 'push', at: rt.now().toISOString(), message: `${push.status}${push.detail ? `: ${push.detail}` : ''}` };
  });
}

// ---------------------------------------------------------------------------------------------
// Create, join, share

export interface TeamSetup {
  name: string;
  remote: string;
  handle: string;
  projects?: string[];
  reviewDelayH?: number;
}

function checkName(kind: string, v: string): void {
  if (!/^[A-Za-z0-9._-]+$/.test(v) || v === '.' || v === '..' || v.startsWith('-')) throw new UsageError(`${kind} "${v}" is used in folder names: use only letters, digits, '.', '_' and '-' (not first)`);
}

export async function createTeam(rt: Runtime, s: TeamSetup): Promise<{ manifest: TeamManifest; team: TeamConfig }> {
  requireHome(rt);
  checkName('the team name', s.name);
  checkName('the handle', s.handle);
  if (rt.config.teams.some((t) => t.name === s.name)) throw new UserError(`you are already in a team named "${s.name}"`, 'pick another name, or `memory team status`');
  const dir = teamDir(rt.config.baseDir, s.name);
  ensurePrivateDir(dir);
  const probe = await remoteBranches(dir, s.remote, networkLimits(rt, 30_000));
  if (!probe.ok) throw new UserError(`cannot read the team remote ${s.remote}: ${probe.detail}`, 'check the URL and your access (`git ls-remote <url>` must work)');
  if (probe.branches.length > 0) throw new UserError(`the remote ${s.remote} is not empty (branches: ${probe.branches.join(', ')}): a team is created on an empty repository`, `if it holds a team already, join it: memory team join <its name> --remote ${s.remote} --handle ${s.handle}`);
  const known = knownRepositories(rt);
  const projects = (s.projects ?? []).map((p) => projectRef(p, known));
  const manifest: TeamManifest = {
    name: s.name,
    model: modelIdOf(rt.config.embedding.model),
    maintainers: [s.handle],
    members: [{ handle: s.handle, machines: [rt.config.general.machine_name], joined: rt.now().toISOString() }],
    projects,
  };
  const repo = teamRepoOf(rt.config.baseDir, s.name);
  rmSync(repo.root, { recursive: true, force: true });
  await openTeamClone(repo, s.remote);
  writeTeamFile(repo, MANIFEST_FILE, renderManifest(manifest));
  writeTeamFile(repo, '.gitattributes', '# memory-engine team: memories are append-only lines; a merge keeps both sides\n*.jsonl text eol=lf merge=union\n*.toml text eol=lf\n');
  await commitPaths(repo, [MANIFEST_FILE, '.gitattributes'], `team: ${s.name} created by ${s.handle}`, rt.config.general.machine_name, undefined, [`${AUTHOR_TRAILER}: ${s.handle}`]);
  const push = await pushTeam(repo, networkLimits(rt, 60_000));
  if (push.status !== 'pushed' && push.status !== 'up-to-date') {
    rmSync(repo.root, { recursive: true, force: true });
    throw new UserError(`pushing the new team to ${s.remote} failed (${push.status}${push.detail ? `: ${push.detail}` : ''}); nothing was recorded`, 'fix the cause and run memory team create again');
  }
  const team: TeamConfig = { name: s.name, remote: s.remote, handle: s.handle, projects: projects.map((p) => p.name), review_delay_h: s.reviewDelayH ?? DEFAULT_REVIEW_DELAY_H };
  writeTeamsOf(rt, [...rt.config.teams, team]);
  await shareSettings(rt);
  return { manifest, team };
}

export async function joinTeam(rt: Runtime, s: TeamSetup, progress?: (done: number, total: number) => void): Promise<{ manifest: TeamManifest; team: TeamConfig; reading: string[]; memories: number; behind: boolean }> {
  requireHome(rt);
  checkName('the handle', s.handle);
  if (rt.config.teams.some((t) => t.name === s.name)) throw new UserError(`you are already in a team named "${s.name}"`, 'this machine has it through your config.toml: `memory team status`');
  const dir = teamDir(rt.config.baseDir, s.name);
  ensurePrivateDir(dir);
  const repo = teamRepoOf(rt.config.baseDir, s.name);
  rmSync(repo.root, { recursive: true, force: true });
  await openTeamClone(repo, s.remote);
  const pull = await pullTeam(repo, networkLimits(rt, 60_000));
  const manifest = pull.status === 'pulled' || pull.status === 'up-to-date' ? readTeamManifest(repo) : undefined;
  if (!manifest) {
    rmSync(repo.root, { recursive: true, force: true });
    throw new UserError(`${s.remote} holds no team${pull.status !== 'pulled' && pull.status !== 'up-to-date' && pull.status !== 'no-branch' ? ` (${pull.status}${pull.detail ? `: ${pull.detail}` : ''})` : ''}`, `check the URL; a team is made on an empty remote with memory team create ${s.name} --remote <url> --handle ${s.handle}`);
  }
  if (manifest.name !== s.name) throw new UserError(`${s.remote} holds team "${manifest.name}", not "${s.name}"`, `join it by its name: memory team join ${manifest.name} --remote ${s.remote} --handle ${s.handle}`);
  if (memberOf(manifest, s.handle)) throw new UserError(`the handle "${s.handle}" is taken in team ${s.name}`, `pick another with --handle (members: ${manifest.members.map((m) => m.handle).join(', ')})`);
  manifest.members.push({ handle: s.handle, machines: [rt.config.general.machine_name], joined: rt.now().toISOString() });
  writeTeamFile(repo, MANIFEST_FILE, renderManifest(manifest));
  await commitPaths(repo, [MANIFEST_FILE], `team: ${s.handle} joins ${s.name}`, rt.config.general.machine_name, undefined, [`${AUTHOR_TRAILER}: ${s.handle}`]);
  const push = await pushTeam(repo, networkLimits(rt, 60_000));
  if (push.status !== 'pushed' && push.status !== 'up-to-date') {
    rmSync(repo.root, { recursive: true, force: true });
    throw new UserError(`joining team ${s.name} failed: the push to ${s.remote} said ${push.status}${push.detail ? ` (${push.detail})` : ''}; nothing was recorded`, 'fix the cause and run memory team join again');
  }
  const team: TeamConfig = { name: s.name, remote: s.remote, handle: s.handle, projects: [], review_delay_h: s.reviewDelayH ?? DEFAULT_REVIEW_DELAY_H };
  writeTeamsOf(rt, [...rt.config.teams, team]);
  await shareSettings(rt);
  // What to read: the projects the team accepts that this person has memories of (others come
  // with their first session there); fetched and taken into the team's cache now, so the first
  // session is as quick as any.
  const known = (() => {
    const { store } = personalCache(rt);
    try {
      return new Set(store.projects.repoNames().keys());
    } finally {
      store.close();
    }
  })();
  updateLocal(rt, s.name, (st) => (st.reading = manifest.projects.filter((p) => known.has(p.repo)).map((p) => p.name).sort()));
  const { behind } = await refreshTeam(rt, team, { totalMs: 1_800_000 });
  const cache = openTeamCache(rt, s.name, { ...(progress ? { progress } : {}), lockTimeoutMs: 60_000 });
  const memories = cache?.store.liveCounts().records ?? 0;
  cache?.store.close();
  return { manifest, team, reading: readLocal(rt, s.name).reading ?? [], memories, behind };
}

/** Share (or stop sharing) a project with a team: the person's own key. A maintainer's share also makes the team accept it. */
export async function shareProject(rt: Runtime, name: string, project: string, on: boolean): Promise<{ team: TeamConfig; project: string; accepted: boolean; added?: boolean }> {
  const team = teamNamed(rt, name);
  const { repo, manifest } = await refreshTeam(rt, team, { totalMs: 60_000 });
  if (!manifest) throw new UserError(`the clone of team ${team.name} holds no team.toml (its remote could not be read?)`, 'run it again once the team remote answers');
  if (!on) {
    const ref = manifest.projects.find((p) => nameMatches(project, p.name) || p.repo === project || p.repo === normalizeRemoteUrl(project)) ?? { name: project, repo: '' };
    const next = { ...team, projects: team.projects.filter((p) => p !== ref.name) };
    writeTeamsOf(rt, rt.config.teams.map((t) => (t.name === team.name ? next : t)));
    await shareSettings(rt);
    return { team: next, project: ref.name, accepted: manifest.projects.some((p) => p.name === ref.name) };
  }
  const known = knownRepositories(rt);
  const ref = projectRef(project, known, manifest.projects);
  let accepted = manifest.projects.some((p) => p.name === ref.name && p.repo === ref.repo);
  let added = false;
  if (!accepted) {
    if (manifest.projects.some((p) => p.name === ref.name)) throw new UserError(`team ${team.name} has another repository as "${ref.name}"`, 'name the project as the team does (`memory team status`)');
    if (!manifest.maintainers.includes(team.handle)) {
      throw new UserError(`team ${team.name} does not accept ${ref.repo} (its team.toml lists ${manifest.projects.map((p) => p.name).join(', ') || 'no project'})`, `ask a maintainer (${manifest.maintainers.join(', ')}) to share it, which adds it`);
    }
    manifest.projects.push(ref);
    writeTeamFile(repo, MANIFEST_FILE, renderManifest(manifest));
    await commitPaths(repo, [MANIFEST_FILE], `team: ${team.handle} adds project ${ref.name} (${ref.repo})`, rt.config.general.machine_name, undefined, [`${AUTHOR_TRAILER}: ${team.handle}`]);
    const push = await pushTeam(repo, networkLimits(rt, 60_000));
    if (push.status !== 'pushed' && push.status !== 'up-to-date') throw new UserError(`adding ${ref.name} to team ${team.name} failed: push ${push.status}${push.detail ? ` (${push.detail})` : ''}`);
    accepted = true;
    added = true;
  }
  const next = { ...team, projects: [...new Set([...team.projects, ref.name])] };
  writeTeamsOf(rt, rt.config.teams.map((t) => (t.name === team.name ? next : t)));
  await shareSettings(rt);
  return { team: next, project: ref.name, accepted, added };
}

// ---------------------------------------------------------------------------------------------
// Review, withhold, release

export async function reviewTeam(rt: Runtime, team: TeamConfig, opts: { pull?: boolean } = {}): Promise<{ outbox: Outbox; manifest?: TeamManifest }> {
  const { repo, manifest } = opts.pull === false ? { repo: teamRepoOf(rt.config.baseDir, team.name), manifest: readTeamManifest(teamRepoOf(rt.config.baseDir, team.name)) } : await refreshTeam(rt, team, { totalMs: 30_000 });
  if (!manifest) return { outbox: { waiting: [], held: [], withheld: [], due: [], forget: [], published: 0, notAccepted: team.projects } };
  const { store } = personalCache(rt);
  try {
    return { outbox: outboxOf(rt, team, manifest, repo, store), manifest };
  } finally {
    store.close();
  }
}

/** The team an id waits for: the only team, or the one named; an id not in any outbox is refused. */
export async function decide(rt: Runtime, id: string, decision: 'withhold' | 'release', name: string | undefined): Promise<{ team: string; id: string; published?: PublishReport }> {
  const teams = name ? [teamNamed(rt, name)] : rt.config.teams;
  if (teams.length === 0) teamNamed(rt, undefined);
  for (const team of teams) {
    const { outbox } = await reviewTeam(rt, team, { pull: false });
    const all = [...outbox.waiting, ...outbox.held, ...outbox.due, ...outbox.withheld];
    const found = all.filter((x) => x.id === id || (id.length >= 6 && x.id.startsWith(id)));
    if (found.length > 1) throw new UsageError(`"${id}" is the start of ${found.length} ids: give more of it`);
    const hit = found[0];
    if (!hit) continue;
    await recordDecision(rt, { team: team.name, id: hit.id, decision, at: rt.now().toISOString() });
    if (decision === 'release') return { team: team.name, id: hit.id, published: await publishTeam(rt, team, { ids: [hit.id] }) };
    return { team: team.name, id: hit.id };
  }
  throw new UserError(`no memory ${id} waits in ${name ? `team ${name}'s` : 'any team\'s'} outbox`, '`memory team review` lists what waits, with ids');
}

export function localFor(rt: Runtime, team: string): TeamLocal {
  return readLocal(rt, team);
}


// ---------------------------------------------------------------------------------------------
// Monthly merge: each person folds their own folders (per-person archives: a whole team's month
// would pass a host's file size limit), purging what they forgot from the closed months.

export async function mergeTeamFolders(rt: Runtime, opts: { dryRun: boolean }): Promise<Array<{ team: string; months: string[] }>> {
  const out: Array<{ team: string; months: string[] }> = [];
  for (const team of rt.config.teams) {
    try {
      const { repo, manifest } = await refreshTeam(rt, team);
      if (!manifest) continue;
      const months = new Set<string>();
      const folders: string[] = [];
      await withLockAsync(join(teamDir(rt.config.baseDir, team.name), 'team.lock'), { timeoutMs: 60_000, purpose: `merging team ${team.name}` }, async () => {
        for (const p of manifest.projects) {
          const dir = join(repo.root, p.name, team.handle);
          if (!existsSync(dir)) continue;
          const folds = planMerge(dir, monthOf(rt.now().toISOString())).filter((f) => !f.noop);
          for (const f of folds) months.add(f.month);
          if (opts.dryRun || folds.length === 0) continue;
          for (const f of folds) applyFold(dir, f);
          folders.push(`${p.name}/${team.handle}`);
        }
        if (folders.length === 0) return;
        const c = await commitPaths(repo, folders, `team: ${team.handle} folds ${[...months].join(', ')}`, rt.config.general.machine_name, undefined, [`${AUTHOR_TRAILER}: ${team.handle}`]);
        if (c.committed) await pushTeam(repo, networkLimits(rt));
      });
      if (months.size > 0) out.push({ team: team.name, months: [...months] });
    } catch (err) {
      rt.log.warn(`team ${team.name}: monthly-merge failed: ${(err as Error).message.split('\n')[0]}`);
    }
  }
  return out;
}
