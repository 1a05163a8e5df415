/**
 * `memory recall`, the UserPromptSubmit hook, on a light path: it runs before every answer,
 * so it loads the config, SQLite and the recall code, and nothing else (no command-line
 * framework, no git, no model). Whatever happens: exit 0, diagnostics on stderr, stdout
 * either the hook output or nothing. Measured in bench/RESULTS.md against node's own start-up.
 */
import { parseArgs } from 'node:util';
import { placeHere } from '../project/place.js';
import { changeNote, staleness, withChanges } from '../changes/staleness.js';
import { loadConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { modelIdOf } from '../embed/embedder.js';
import { errorMessage } from '../errors.js';
import { parseHookInput, readHookStdin, writeHookOutput, type HookInput } from '../app/input.js';
import { sessionGiven } from '../app/session/given.js';
import { hideExcluded } from '../project/exclude.js';
import { formatRecall, promptWidth, recall, type Recalled, type RecallOptions } from '../search/recall.js';
import type { MemoryRow, Store } from '../store/store.js';
import { openCacheAsIs } from '../store/cache.js';
import type { IO } from '../app/context.js';

/** The hook's stdout: exactly the fields Claude Code and Codex accept for UserPromptSubmit. */
export function recallOutput(additionalContext: string): string | undefined {
  if (!additionalContext) return undefined;
  return JSON.stringify({ hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext } });
}

export interface RecallRequest {
  input: HookInput;
  /** By hand: recall for this text (even when [recall] enabled = false). */
  prompt?: string;
  cwd?: string;
  json?: boolean;
}

/** The best teammate's memory for this prompt in this repository, across the person's teams, or undefined. */
async function teamRecall(config: Config, repoKey: string, opts: Omit<RecallOptions, 'project' | 'hide'>, hide: ((row: MemoryRow) => boolean) | undefined, personal: Store): Promise<Recalled | undefined> {
  const { teamsHere } = await import('../team/light.js');
  const teams = teamsHere(config, repoKey, personal);
  let best: Recalled | undefined;
  try {
    for (const t of teams) {
      const r = recall(t.store, { ...opts, project: t.project, hide: (row) => (hide?.(row) ?? false) || t.hidden(row) })[0];
      if (r && (!best || r.coverage > best.coverage)) best = { ...r, team: t.name };
    }
  } finally {
    for (const t of teams) t.store.close();
  }
  return best;
}

export async function runRecall(config: Config, io: Pick<IO, 'stdout' | 'stdoutFd' | 'cwd' | 'stderr'> & Partial<Pick<IO, 'now'>>, req: RecallRequest): Promise<void> {
  const cfg = config.recall;
  const prompt = req.prompt ?? req.input.prompt ?? '';
  const json = (value: unknown) => writeHookOutput(io, `${JSON.stringify(value)}\n`);
  if (!cfg.enabled && req.prompt === undefined) return;
  // Short prompts ("yes", "go on", はい) recall nothing; a Japanese character says about as much as two letters.
  if (promptWidth(prompt.trim()) < cfg.min_prompt_chars) {
    if (req.json) json({ recalled: [] });
    return;
  }
  const cwd = req.cwd ?? req.input.cwd ?? io.cwd;
  const excluded = config.privacy.exclude_projects;
  // Nothing from memory enters a session of an excluded project either.
  // The folder's repository, read once: its short name decides exclusion before the cache opens.
  const place = placeHere(cwd, { ...(config.general.project ? { configured: config.general.project } : {}), exclude: excluded });
  if (place.excluded) return;
  const store = openCacheAsIs({ dbPath: config.general.db_path, exportDir: config.general.export_dir, model: modelIdOf(config.embedding.model), dim: config.embedding.dim }, {}, (why) => io.stderr.write(`memory: recall: ${why}; nothing recalled this time\n`));
  if (!store) return; // no cache yet (session start builds it), or held by another process
  const hide = hideExcluded(excluded);
  try {
    // The repository's name as the cache files it (another repository may share the short name).
    const filed = placeHere(cwd, { ...(config.general.project ? { configured: config.general.project } : {}), exclude: excluded, filed: store.projects });
    if (filed.excluded) return;
    const project = filed.name;
    // What this session was given already (its start, earlier prompts, files): matched again, it would only repeat it.
    const session = sessionGiven(config.baseDir, req.input.session_id, req.input.transcript_path);
    const base = {
      prompt,
      ...(req.input.session_id ? { sessionId: req.input.session_id, given: session.given } : {}),
      maxItems: cfg.max_items,
      now: (io.now?.() ?? new Date()).getTime(),
      minCoverage: cfg.min_coverage,
      minRareWords: cfg.min_rare_words,
    };
    let hits = recall(store, { ...base, project, ...(hide ? { hide } : {}) });
    // Teammates' notes of this repository: at most one of the slots, after the person's own;
    // matched, never listed, and none beside a listing ("what did we do last time" asks what this person did).
    if (config.teams.length > 0 && filed.repo && cfg.max_items > 0 && !hits.some((h) => h.listed)) {
      const team = await teamRecall(config, filed.repo.key, { ...base, maxItems: 1, list: false }, hide, store);
      if (team) hits = [...hits.slice(0, cfg.max_items - 1), team];
    }
    // Hashes kept in the cache only when it takes the write at once: a prompt never waits on its write lock.
    const stale = staleness(store, { here: cwd, machine: config.general.machine_name, persist: 'if-free' });
    if (req.json) {
      json({
        recalled: hits.map((h) => ({
          id: h.row.id, ...(h.listed ? { listed: 'latest' in h.listed ? 'latest' : h.listed.period.label } : {}), coverage: Number(h.coverage.toFixed(3)), rare_words: Number(h.rareWords.toFixed(2)), matched: h.matched, ...(h.team ? { team: h.team, author: h.row.id.slice(0, h.row.id.indexOf('/')) } : {}),
          timestamp: h.row.timestamp, machine: h.row.machine, project: h.row.project, question: h.row.question,
          ...withChanges({}, stale, h.row),
        })),
      });
      return;
    }
    const shown: string[] = [];
    const out = recallOutput(formatRecall(hits, cfg.max_chars, (r) => changeNote(stale, r), shown));
    if (out) writeHookOutput(io, `${out}\n`);
    try {
      session.add(shown);
    } catch (err) {
      // A full disk: the memory may be given again this session, nothing else.
      io.stderr.write(`memory: recall: cannot note what this session was given: ${errorMessage(err).split('\n')[0]}\n`);
    }
  } finally {
    store.close();
  }
}

export async function recallHook(argv: string[], io: IO): Promise<number> {
  try {
    const { values } = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: false,
      options: {
        config: { type: 'string', short: 'c' },
        debug: { type: 'boolean' },
        prompt: { type: 'string' },
        cwd: { type: 'string' },
        json: { type: 'boolean' },
      },
    });
    const str = (k: string) => (typeof values[k] === 'string' ? (values[k] as string) : undefined);
    // By hand (--prompt) there is no hook input to wait for.
    const parsed = str('prompt') !== undefined ? { input: {} } : parseHookInput(await readHookStdin(io));
    if ('problem' in parsed && parsed.problem) io.stderr.write(`memory: ${parsed.problem}\n`);
    const configPath = str('config');
    const { config } = loadConfig({ ...(configPath ? { configPath } : {}), env: io.env, cwd: io.cwd });
    const prompt = str('prompt');
    const cwd = str('cwd');
    await runRecall(config, io, { input: parsed.input, ...(prompt !== undefined ? { prompt } : {}), ...(cwd ? { cwd } : {}), ...(values.json === true ? { json: true } : {}) });
  } catch (err) {
    io.stderr.write(`memory: recall: ${errorMessage(err).split('\n').join(' ')}\n`);
  }
  return 0;
}
