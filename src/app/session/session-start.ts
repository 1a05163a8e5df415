/**
 * The SessionStart hook: commit pending captures, pull and push (bounded), bring the cache
 * up to date without loading the model, tell the user what is wrong with sync, and
 * optionally hand the agent this project's recent memories.
 */
import { changeNote, staleness } from '../../changes/staleness.js';
import { errorMessage, HealthError } from '../../errors.js';
import { healthNotices, noticeOf, settingsNotice, tellOnceADay } from './health.js';
import { settingsProblemNow } from '../../config/shared.js';
import { placeHere } from '../../project/place.js';
import { headCommit, repoIdentity } from '../../project/repository.js';
import { namesOf, noteStagedRenames, renameMapHead, renamesOf, type Rename } from '../../changes/renames.js';
import { workInProgress } from '../../project/work-tree.js';
import { unstagedMoves } from '../../changes/tree-moves.js';
import { pickForStart } from './start-pick.js';
import { openCache } from '../../store/cache.js';
import { readSyncState, updateSyncState } from '../../sync/state.js';
import { formatInjection, formatTeamInjection } from './inject.js';
import { firstTodayFor } from './told.js';
import { workDirFor } from '../../config/paths.js';
import type { Store } from '../../store/store.js';
import { gitProgram, repoLockPath, type Repo } from '../../sync/process.js';
import { lockOwner } from '../../export/lock.js';
import { describeForeign, foreignStateOf, memoryRepoOf, withMemoryRepo } from '../sync/locks.js';
import type { Runtime } from '../runtime.js';
import { ensureModel } from './model-fetch.js';
import { readScrubCheck, rulesOf, scrubCheckAtStart, writeScrubCheck } from './scrub-check.js';
import { memoryRemote, syncNotices, syncNow } from '../sync/sync-run.js';
import { projectLabel } from '../../project/label.js';

export interface SessionStartRequest {
  cwd?: string;
  inject: boolean;
  pull: boolean;
  /** Starts the background model download (absent: none is started, as in tests of other things). */
  spawnModelFetch?: () => Promise<number | undefined>;
  /** Starts `memory renames` in the background for the checkout at this folder (absent: none is started). */
  spawnRenames?: (top: string) => Promise<number | undefined>;
  /** Starts the background reading of memories stored before today's redaction rules (absent: none is started). */
  spawnScrubCheck?: () => Promise<number | undefined>;
  /** What the session holds already (a resumed one: given.ts): not injected again. */
  given?: ReadonlySet<string>;
}

export interface SessionStartReport {
  pulled?: string;
  pushed?: string;
  committed?: boolean;
  records: number;
  project?: string;
  /** The ids of the memories injected, one's own and a team's (the session's record of what it was given: given.ts). */
  given: string[];
  context: string;
  /** For the user (hook output `systemMessage` and stderr), never for the agent. */
  notices: string[];
  /** A team's outbox holds memories due now: the caller starts the worker, which publishes them. */
  teamDue?: boolean;
}

export async function runSessionStart(rt: Runtime, req: SessionStartRequest): Promise<SessionStartReport> {
  const report: SessionStartReport = { records: 0, given: [], context: '', notices: [] };
  const { config } = rt;
  // What breaks around memory (git, the model folder, the shared settings, the memory
  // repository): told to the person once a day per cause, never to the agent.
  const health = healthNotices(config);
  let repo: Repo | undefined;
  try {
    repo = await memoryRepoOf(rt);
  } catch (err) {
    // An export folder inside a repository the person works in: said, never written there.
    if (err instanceof HealthError) health.push(noticeOf(err));
    else report.notices.push(`memory: ${errorMessage(err)}`);
  }

  let named: boolean | undefined;
  let held: string | undefined;
  // Each team's remote is pulled beside the personal one, in parallel, within the same bound.
  const teamPulls = req.pull && config.teams.length > 0 && gitProgram().ok ? pullTeams(rt, req.cwd) : Promise.resolve(false);
  if (repo && req.pull) {
    try {
      // A worker may be committing: wait briefly, else start on local data.
      await withMemoryRepo(rt, { timeoutMs: 3000, found: { lock: repoLockPath(repo), repo } }, async ({ foreign }) => {
        if (foreign) {
          // The person's own git work: commit, pull, push nothing (syncNotices says why).
          rt.log.info(`not syncing: ${describeForeign(foreign)}`);
          return;
        }
        try {
          const sync = await syncNow(rt, repo, { totalMs: config.sync.pull_timeout_ms });
          named = sync.unnamed !== true;
          report.committed = sync.committed;
          if (sync.pull) report.pulled = sync.pull.status;
          if (sync.push) report.pushed = sync.push.status;
        } catch (err) {
          rt.log.warn(`git sync failed: ${errorMessage(err).split('\n')[0]}; using local memories`);
        }
      });
    } catch (err) {
      rt.log.warn(`${errorMessage(err)}; starting with local memories`);
      // Held for over a minute: something is stuck (a git that does not finish); say so.
      const since = lockOwner(repoLockPath(repo))?.since;
      if (since && rt.now().getTime() - Date.parse(since) > 60_000) held = since;
    }
  }
  if (await teamPulls) report.teamDue = true;
  // A config.toml the pull brought from another machine that does not parse here: not applied
  // (this run loaded the last good one), and told now.
  if (report.pulled === 'pulled' && config.home && !config.settingsProblem) {
    const problem = settingsProblemNow(config.file);
    const n = problem ? settingsNotice({ settingsProblem: problem }) : undefined;
    if (n) health.push(n);
  }
  report.notices.push(...tellOnceADay(config.baseDir, health, rt.now()));
  if (repo) {
    try {
      // syncNow already knows; only a --no-pull start asks (one more git call per start otherwise).
      named ??= (await memoryRemote(rt, repo)) !== undefined;
      const foreign = foreignStateOf(repo);
      const { notices, told } = syncNotices(rt, readSyncState(repo.gitDir), named, foreign ? describeForeign(foreign) : undefined);
      if (told.length > 0) updateSyncState(repo.gitDir, (s) => (s.told = [...new Set([...(s.told ?? []), ...told])]));
      report.notices.push(...notices);
      if (held) report.notices.push(`memory: the memory repository has been locked since ${held} by another memory-engine process (see \`memory status\`); this session starts with the memories already here.`);
    } catch (err) {
      rt.log.warn(`cannot read the sync state: ${errorMessage(err)}`);
    }
  }
  try {
    const told = await ensureModel(rt, req.spawnModelFetch);
    if (told) report.notices.push(told);
  } catch (err) {
    rt.log.warn(`cannot start the model download: ${errorMessage(err)}`);
  }
  for (const n of report.notices) rt.log.warn(n.replace(/^memory: /, ''));
  const { store, result } = openCache(rt.cacheOptions({ lockTimeoutMs: 5000, warn: (m) => rt.log.warn(m) }));
  try {
    report.records = result.records;
    if (result.full) rt.log.info(`cache rebuilt from scratch (${result.reason ?? 'requested'}): ${result.records} memories in ${result.ms} ms`);
    if (result.skipped_lines > 0) rt.log.warn(`${result.skipped_lines} unusable JSONL lines skipped (see \`memory rebuild\`)`);
    if (config.privacy.redact) await checkAgainstRules(rt, req, store, report);
    let placed: ReturnType<typeof placeHere> | undefined;
    const here = () => (placed ??= placeHere(req.cwd, { ...(config.general.project ? { configured: config.general.project } : {}), exclude: config.privacy.exclude_projects, filed: store.projects }));
    if (req.inject && config.inject.recent > 0) {
      const place = here();
      const project = place.name;
      report.project = project;
      if (place.repo) store.fileStates.noteCheckout(place.repo.key, place.repo.top, rt.now().getTime());
      if (!place.excluded) {
        // The work in progress picks first: memories of the files changed here, of this branch; then the most recent.
        const wip = place.repo ? workInProgress(place.repo.top) : undefined;
        // A rename staged and not committed, or a file moved without git (an editor's rename: deleted
        // and untracked, the same content): its memories under the old name count from now (changes/renames.ts).
        let moves: Rename[] | undefined;
        try {
          if (place.repo && wip && config.recall.files) moves = noteStagedRenames(config.baseDir, place.repo.key, place.repo.top, [...wip.renamed, ...unstagedMoves(place.repo.top, wip, { timeoutMs: 500 })], rt.now().getTime());
        } catch (err) {
          rt.log.warn(`cannot note the renames staged in ${place.repo?.top}: ${errorMessage(err)}`);
        }
        // A changed file's earlier names too (read only when a file is changed; the moves from the noting above when it read them).
        let renames: Rename[] | undefined;
        const names = (path: string) => namesOf((renames ??= place.repo ? renamesOf(config.baseDir, place.repo.key, rt.now().getTime(), place.repo.top, moves) : []), path);
        const picked = pickForStart(store, project, config.inject.recent, place.repo && wip ? { repo: place.repo.key, wip, names } : undefined).filter((p) => req.given?.has(p.row.id) !== true);
        const why = new Map(picked.map((p) => [p.row.id, p.why]));
        const stale = staleness(store, { ...(req.cwd ? { here: req.cwd } : {}), machine: config.general.machine_name });
        const injection = formatInjection(picked.map((p) => p.row), project, { answerChars: config.inject.answer_chars, changes: (r) => changeNote(stale, r), why: (r) => why.get(r.id) });
        report.context = injection.text;
        report.given.push(...picked.slice(0, injection.count).map((p) => p.row.id));
      }
    }
    // Recall by file follows renames: the repository's map brought up to HEAD, in the background.
    if (req.spawnRenames && config.recall.files && req.cwd) {
      const place = here();
      const head = place.repo && !place.excluded ? headCommit(place.repo) : undefined;
      if (place.repo && head && renameMapHead(config.baseDir, place.repo.key, place.repo.top) !== head && store.files.has(place.repo.key)) {
        await req.spawnRenames(place.repo.top).catch((err: unknown) => rt.log.warn(`cannot start reading the renames of ${place.repo?.key}: ${errorMessage(err)}`));
      }
    }
    if (config.teams.length > 0) await teamsAtStart(rt, req, store, report);
  } finally {
    store.close();
  }
  return report;
}

/**
 * Memories stored before today's redaction rules (an earlier version, a secret format added
 * since), each read once against them (scrub-check.ts); what was found told at most once a
 * day for a count, until scrubbed.
 */
async function checkAgainstRules(rt: Runtime, req: SessionStartRequest, store: Store, report: SessionStartReport): Promise<void> {
  try {
    const rules = rulesOf(rt.config.privacy.secret_formats);
    const check = scrubCheckAtStart(store, rules, rt.now());
    // Once a day for a count: more found the same day (a format just added) is told then.
    if (check.notice && firstTodayFor(workDirFor(rt.config.baseDir), `scrub-check-${check.found ?? 0}`, rt.now())) {
      report.notices.push(check.notice);
      rt.log.warn(check.notice.replace(/^memory: /, ''));
    }
    if (check.start && req.spawnScrubCheck) {
      const pid = await req.spawnScrubCheck();
      writeScrubCheck(store, { ...readScrubCheck(store, rules), running: { ...(pid ? { pid } : {}), at: rt.now().toISOString() } });
    }
  } catch (err) {
    rt.log.warn(`cannot read memories against today's redaction rules: ${errorMessage(err)}`);
  }
}

/** Each team pulled, bounded; whether any was left behind for the capture worker (a project newly read that did not come in time). */
async function pullTeams(rt: Runtime, cwd: string | undefined): Promise<boolean> {
  const { refreshTeam } = await import('../team/team.js');
  // The repository at hand: a project the team accepts is read from this session on.
  const here = cwd ? repoIdentity(cwd)?.key : undefined;
  const behind = await Promise.all(
    rt.config.teams.map((t) =>
      // Another process in the clone (the worker checking out a project): its memories as last pulled.
      refreshTeam(rt, t, { totalMs: rt.config.sync.pull_timeout_ms, lockMs: 3000, ...(here ? { here } : {}) }).then(
        (r) => r.behind,
        (err: unknown) => {
          rt.log.warn(`team ${t.name}: pull failed: ${errorMessage(err).split('\n')[0]}; its memories as last pulled`);
          return false;
        },
      ),
    ),
  );
  return behind.some((b) => b);
}

/** What a team cache may read in a session start's time (about 6,000 memories with their vectors, ~2 s here); more is caught up in the background. */
const HOOK_TEAM_BYTES = 32 * 1024 * 1024;

/** Teams at session start: their caches brought up to date, their memories of this project injected after one's own, the outbox told to the person. */
async function teamsAtStart(rt: Runtime, req: SessionStartRequest, store: Store, report: SessionStartReport): Promise<void> {
  const [{ outboxOf }, { openTeams, closeTeams }, { readTeamManifest, teamRepoOf }] = await Promise.all([import('../team/team.js'), import('../team/team-read.js'), import('../../team/repo.js')]);
  const { config } = rt;
  // A team cache reads what the pull brought within a hook's budget; more (a project newly read) is the capture worker's.
  const behind: string[] = [];
  const t0 = performance.now();
  const teams = openTeams(rt, store, { maxBytes: HOOK_TEAM_BYTES, behind });
  rt.log.info(`team caches read in ${Math.round(performance.now() - t0)} ms${behind.length > 0 ? ` (${behind.join(', ')}: left to the capture worker)` : ''}`);
  if (behind.length > 0) report.teamDue = true;
  try {
    const place = placeHere(req.cwd, { ...(config.general.project ? { configured: config.general.project } : {}), exclude: config.privacy.exclude_projects, filed: store.projects });
    for (const t of teams) {
      if (req.inject && !place.excluded && place.repo) {
        const project = t.projectOf(place.repo.key);
        const rows = project ? t.store.recent(project, 8).filter((r) => !t.hidden(r) && req.given?.has(r.id) !== true).slice(0, 2) : [];
        const room = 9_500 - Array.from(report.context).length;
        const team = formatTeamInjection(rows, t.team.name, project ?? '', { answerChars: config.inject.answer_chars, maxChars: room });
        if (team.count > 0) {
          report.context = report.context ? `${report.context}\n\n${team.text}` : team.text;
          report.given.push(...rows.slice(0, team.count).map((r) => r.id));
        }
      }
      // What will go, and when: told to the person (never to the agent), when it changed or once a day.
      const manifest = readTeamManifest(teamRepoOf(config.baseDir, t.team.name));
      if (!manifest) continue;
      const ob = outboxOf(rt, t.team, manifest, teamRepoOf(config.baseDir, t.team.name), store);
      if (ob.due.length > 0) report.teamDue = true;
      const going = ob.waiting.length + ob.due.length;
      if (going === 0 && ob.held.length === 0) continue;
      const next = ob.due.length > 0 ? 'now' : ob.waiting.map((w) => w.due ?? '').sort()[0]?.replace('T', ' ').slice(0, 16) ?? '';
      const cause = `team-outbox:${t.team.name}:${going}:${ob.held.length}`;
      if (!firstTodayFor(workDirFor(config.baseDir), cause, rt.now())) continue;
      const projects = [...new Set([...ob.waiting, ...ob.due, ...ob.held].map((x) => projectLabel(x.project)))].join(', ');
      report.notices.push(
        `memory: ${going} memor${going === 1 ? 'y' : 'ies'} of ${projects} will go to team ${t.team.name}${going > 0 ? ` (the first ${next === 'now' ? 'now' : `at ${next} UTC`})` : ''}${ob.held.length > 0 ? `; ${ob.held.length} held (redacted or flagged: never sent without your word)` : ''}. Review: \`memory team review\` — \`memory team withhold <id>\` keeps one back.`,
      );
    }
  } finally {
    closeTeams(teams);
  }
}
