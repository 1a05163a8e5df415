/**
 * `memory file-recall`, the tool hook (Claude Code: PostToolUse on Read, Edit, Write, MultiEdit,
 * NotebookEdit and Bash; Codex: PostToolUse on apply_patch and on its shell, `Bash`: a command's
 * files are those it names that are there, command-files.ts), on a light path: config, SQLite and this
 * code. When the agent touches a file, the earlier sessions on it in this repository
 * (search/file-recall.ts), as additionalContext. Each memory once per session, whichever route gave
 * it (app/session/given.ts), the agent's own search of memory among them (the MCP tools memory_search
 * and memory_show, `memory search` in its shell: app/session/searched.ts); nothing for a file no memory recorded, for an
 * excluded project, or from the session in progress. Whatever happens: exit 0, diagnostics on
 * stderr. Measured in bench/RESULTS.md against node's own start-up.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { IO } from '../app/context.js';
import { sessionGiven } from '../app/session/given.js';
import { searchedIds } from '../app/session/searched.js';
import { parseHookInput, readHookStdin, writeHookOutput, type HookInput } from '../app/input.js';
import { patchFiles, patchMoves } from '../capture/patch-files.js';
import { changedFiles, describeChanges, staleness } from '../changes/staleness.js';
import { loadConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { modelIdOf } from '../embed/embedder.js';
import { errorMessage } from '../errors.js';
import { hideExcluded } from '../project/exclude.js';
import { placeHere } from '../project/place.js';
import { fileInRepository } from '../project/repository.js';
import { namesOf, recordMoves, renamesOf, type Rename } from '../changes/renames.js';
import { formatFileRecall, memoriesOfFile, type FileMemory } from '../search/file-recall.js';
import type { TeamHere } from '../team/light.js';
import { openCacheAsIs } from '../store/cache.js';
import type { MemoryRow } from '../store/store.js';
import { commandFiles, commandMoves, SHELL_TOOLS, type Move } from '../capture/command-files.js';

/**
 * The files a tool call touches, as absolute paths: Claude Code's file tools, Codex's patches,
 * and the files a shell command names that are there (command-files.ts).
 */
export function touchedFiles(input: HookInput, cwd: string): string[] {
  const t = input.tool_input ?? {};
  const out: string[] = [];
  for (const k of ['file_path', 'notebook_path', 'path']) {
    const v = t[k];
    if (typeof v === 'string' && v.length > 0) out.push(resolve(cwd, v));
  }
  // A Codex patch names its files on its own lines: `*** Update File: src/x.ts`, `*** Move to: src/y.ts`.
  let patch = false;
  for (const text of patchTexts(t)) {
    for (const f of patchFiles(text)) {
      out.push(resolve(cwd, f));
      patch = true;
    }
  }
  if (!patch && SHELL_TOOLS.test(input.tool_name ?? '')) out.push(...commandFiles(t.command ?? t.cmd, cwd));
  return [...new Set(out)];
}

/** The text of each field a patch may come in. */
function patchTexts(t: Record<string, unknown>): string[] {
  return ['patch', 'input', 'command'].map((k) => {
    const v = t[k];
    return typeof v === 'string' ? v : Array.isArray(v) ? v.filter((x) => typeof x === 'string').join('\n') : '';
  });
}

/**
 * What a tool call moved, as absolute paths: a Codex patch's `*** Move to:`, a shell command's
 * `git mv` or `mv` (Claude Code's Bash, Codex's shell). Read after the call ran: each source gone,
 * its destination there.
 */
export function movedFiles(input: HookInput, cwd: string): Move[] {
  const t = input.tool_input ?? {};
  const out: Move[] = [];
  for (const text of patchTexts(t)) {
    for (const [a, b] of patchMoves(text)) {
      const from = resolve(cwd, a);
      const to = resolve(cwd, b);
      if (!existsSync(from) && existsSync(to)) out.push({ from, to, folder: false });
    }
  }
  if (out.length === 0 && SHELL_TOOLS.test(input.tool_name ?? '')) out.push(...commandMoves(t.command ?? t.cmd, cwd));
  return out;
}

/** The hook's stdout: the fields both agents accept for a tool hook. */
export function fileRecallOutput(event: string, additionalContext: string): string | undefined {
  if (!additionalContext) return undefined;
  return JSON.stringify({ hookSpecificOutput: { hookEventName: event, additionalContext } });
}

export async function runFileRecall(
  config: Config,
  io: Pick<IO, 'stdout' | 'stdoutFd' | 'cwd' | 'now' | 'stderr'>,
  input: HookInput,
  files = touchedFiles(input, input.cwd ?? io.cwd),
  moves = movedFiles(input, input.cwd ?? io.cwd),
): Promise<void> {
  const cfg = config.recall;
  if (!cfg.files || cfg.file_max_items === 0) return;
  const cwd = input.cwd ?? io.cwd;
  if (files.length === 0 && moves.length === 0) return;
  const excluded = config.privacy.exclude_projects;
  // Where the agent works, only to know whether it is excluded (~1.4 ms: its repository found and read).
  if (excluded.length > 0 && placeHere(cwd, { ...(config.general.project ? { configured: config.general.project } : {}), exclude: excluded }).excluded) return;
  const nowMs = io.now().getTime();
  // What the agent moved is its files' earlier name from now on, before any commit holds it (changes/renames.ts).
  for (const m of moves) {
    const [from, to] = [fileInRepository(m.from), fileInRepository(m.to)];
    try {
      if (from && to && from.repo === to.repo && from.top === to.top) recordMoves(config.baseDir, to.repo, [{ from: m.folder ? `${from.path}/` : from.path, to: m.folder ? `${to.path}/` : to.path, atMs: nowMs, top: to.top }]);
    } catch (err) {
      // A full disk, a cache that cannot be written: the move is not followed; the files' own memories still come.
      io.stderr.write(`memory: file-recall: cannot note the move of ${m.from}: ${errorMessage(err).split('\n')[0]}\n`);
    }
  }
  if (files.length === 0) return;
  const store = openCacheAsIs({ dbPath: config.general.db_path, exportDir: config.general.export_dir, model: modelIdOf(config.embedding.model), dim: config.embedding.dim }, { vectors: false }, (why) => io.stderr.write(`memory: file-recall: ${why}; nothing recalled this time\n`));
  if (!store) return;
  try {
    const session = sessionGiven(config.baseDir, input.session_id, input.transcript_path);
    const hide = hideExcluded(excluded);
    const stale = staleness(store, { here: cwd, machine: config.general.machine_name, persist: 'if-free' });
    const found: Array<{ path: string; memories: FileMemory[] }> = [];
    const given: string[] = [];
    // The person's teams that read this repository, opened at the first file in it; its checkout's renames likewise.
    const teams = new Map<string, TeamHere[]>();
    const renames = new Map<string, Rename[]>();
    try {
      for (const file of files) {
        const inRepo = fileInRepository(file);
        if (!inRepo) continue;
        const { repo, path, top } = inRepo;
        // The moves made in this checkout (another worktree's, not committed, are not this one's).
        if (!renames.has(top)) renames.set(top, renamesOf(config.baseDir, repo, nowMs, top));
        const names = namesOf(renames.get(top), path);
        const ask = (maxItems: number, more?: (row: MemoryRow) => boolean) =>
          ({ repo, path, names, ...(input.session_id ? { sessionId: input.session_id } : {}), given: new Set([...session.given, ...given]), maxItems, hide: (row: MemoryRow) => (hide?.(row) ?? false) || (more?.(row) ?? false) });
        let memories = memoriesOfFile(store, ask(cfg.file_max_items));
        // A teammate's session on the file: at most one of the places, after the person's own (as per-prompt recall does).
        if (config.teams.length > 0) {
          if (!teams.has(repo)) teams.set(repo, (await import('../team/light.js')).teamsHere(config, repo, store));
          const theirs = (teams.get(repo) ?? []).flatMap((t) => memoriesOfFile(t.store, ask(1, t.hidden)));
          const newest = theirs.sort((x, y) => y.row.ts_ms - x.row.ts_ms)[0];
          if (newest) memories = [...memories.slice(0, cfg.file_max_items - 1), newest];
        }
        if (memories.length === 0) continue;
        found.push({ path, memories });
        given.push(...memories.map((m) => m.row.id));
      }
    } finally {
      for (const t of [...teams.values()].flat()) t.store.close();
    }
    // The characters shared by the files that brought memories (a command naming three files, one with memories, gives that one all).
    const parts: string[] = [];
    for (const { path, memories } of found) {
      const as = new Map(memories.map((m) => [m.row.id, m.as]));
      // This file only: whether it changed since (the memory's other files are not read); under an earlier name, that name.
      const note = (r: MemoryRow) => {
        const earlier = as.get(r.id);
        if (earlier !== undefined) return `recorded as ${earlier}, renamed to ${path} since`;
        const changes = changedFiles(stale, r, new Set([path]));
        if (changes === undefined) return undefined;
        return changes.length > 0 ? describeChanges(changes) : `${path} is unchanged since this memory`;
      };
      parts.push(formatFileRecall(path, memories.map((m) => m.row), Math.floor(cfg.file_max_chars / found.length), note));
    }
    if (parts.length === 0) return;
    const out = fileRecallOutput(input.hook_event_name ?? 'PostToolUse', parts.join('\n\n'));
    if (out) writeHookOutput(io, `${out}\n`);
    try {
      session.add(given);
    } catch (err) {
      // A full disk: what was found is given all the same, and may be given again this session.
      io.stderr.write(`memory: file-recall: cannot note what this session was given: ${errorMessage(err).split('\n')[0]}\n`);
    }
  } finally {
    store.close();
  }
}

/** Records the memories a search the agent ran gave it as given to its session (a full disk: said on stderr, nothing else). */
function noteSearched(config: Config, io: Pick<IO, 'stderr'>, input: HookInput, ids: string[]): void {
  try {
    sessionGiven(config.baseDir, input.session_id, input.transcript_path).add(ids);
  } catch (err) {
    io.stderr.write(`memory: file-recall: cannot note what this session's search gave it: ${errorMessage(err).split('\n')[0]}\n`);
  }
}

export async function fileRecallHook(argv: string[], io: IO): Promise<number> {
  try {
    const { values } = parseArgs({ args: argv, allowPositionals: true, strict: false, options: { config: { type: 'string', short: 'c' }, debug: { type: 'boolean' } } });
    const parsed = parseHookInput(await readHookStdin(io));
    if (parsed.problem) io.stderr.write(`memory: ${parsed.problem}\n`);
    // Most of Codex's shell commands name no file, move none and search no memory: done before the settings are read.
    const files = touchedFiles(parsed.input, parsed.input.cwd ?? io.cwd);
    const moves = movedFiles(parsed.input, parsed.input.cwd ?? io.cwd);
    const searched = searchedIds(parsed.input);
    if (files.length === 0 && moves.length === 0 && searched.length === 0) return 0;
    const configPath = typeof values.config === 'string' ? values.config : undefined;
    const { config } = loadConfig({ ...(configPath ? { configPath } : {}), env: io.env, cwd: io.cwd });
    // What the agent's own search gave it is in its context: given, before any file it names brings memories.
    if (searched.length > 0) noteSearched(config, io, parsed.input, searched);
    await runFileRecall(config, io, parsed.input, files, moves);
  } catch (err) {
    io.stderr.write(`memory: file-recall: ${errorMessage(err).split('\n').join(' ')}\n`);
  }
  return 0;
}
