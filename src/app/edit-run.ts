/**
 * Edits a person asks for, from any front end (the CLI, the MCP server, the viewer): forget
 * memories on every machine, remember a note. Each takes the export lock, appends to this
 * machine's month file, brings the cache up to date at once, commits and pushes.
 */
import { createHash } from 'node:crypto';
import { ownRepository } from '../project/place.js';
import { memoryId } from '../capture/turn.js';
import { projectLabel, projectName } from '../project/label.js';
import { UserError } from '../errors.js';
import { appendToCurrentMonth } from '../export/files.js';
import { resolveIds, tombstonesFor } from '../maintain/forget.js';
import { isExcludedPlace } from '../project/exclude.js';
import { cleanText } from '../privacy/redact.js';
import { compileFormats } from '../privacy/formats.js';
import { openCacheAsync } from '../store/cache.js';
import type { MemoryRow, Store } from '../store/store.js';
import type { MemoryRecord } from '../types.js';
import { captureLockFor } from './sync/locks.js';
import type { Runtime } from './runtime.js';
import { commitAndPush, type SyncReport } from './sync/sync-run.js';

export interface EditOutcome {
  sync?: SyncReport;
}

/** Ids (or unique prefixes of 6+ characters) → rows; any unknown or ambiguous id is an error and nothing is forgotten. */
export function rowsForIds(store: Store, ids: string[]): MemoryRow[] {
  const res = resolveIds(store, ids);
  if (res.ambiguous.length > 0) {
    throw new UserError(`ambiguous id prefix: ${res.ambiguous.map((a) => `"${a.given}" matches ${a.matches.join(', ')}`).join('; ')}`, 'give more characters; nothing was forgotten');
  }
  if (res.unknown.length > 0) {
    throw new UserError(`no memory with id ${res.unknown.map((u) => `"${u}"`).join(', ')}`, 'nothing was forgotten; ids are printed by `memory search`');
  }
  return res.rows;
}

/**
 * Forget what `select` picks from the cache (inside the lock, so the choice and the
 * tombstones see the same memories). Returns the forgotten rows.
 */
export async function forgetSelected(rt: Runtime, select: (store: Store) => MemoryRow[], push: boolean): Promise<EditOutcome & { rows: MemoryRow[] }> {
  const { lock, repo } = await captureLockFor(rt);
  return lock(async () => {
    // Waited for without blocking: the viewer and the MCP server forget from their event loop.
    let { store } = await openCacheAsync(rt.cacheOptions());
    let rows: MemoryRow[];
    try {
      rows = select(store);
    } finally {
      store.close();
    }
    if (rows.length === 0) return { rows };
    const now = rt.now();
    const machine = rt.config.general.machine_name;
    appendToCurrentMonth(rt.config.general.export_dir, machine, now, tombstonesFor(rows, machine, now));
    ({ store } = await openCacheAsync(rt.cacheOptions()));
    store.close();
    const sync = repo ? await commitAndPush(rt, repo, `memory: forget ${rows.length} memories (${machine})`, push) : undefined;
    return { rows, ...(sync ? { sync } : {}) };
  });
}

/** Notes are kept whole up to this many characters. */
export const MAX_NOTE_CHARS = 8000;

/**
 * A note the person asked to keep, stored as a memory (`source: "note"`): the text as the
 * question, redacted like every capture, searchable at once, synced like any other.
 */
export async function rememberNote(rt: Runtime, note: { text: string; project: string; cwd?: string }, push: boolean): Promise<EditOutcome & { record: MemoryRecord; redactions: number }> {
  const text = note.text.trim();
  if (text.length === 0) throw new UserError('the note is empty', 'give the text to remember');
  if (Array.from(text).length > MAX_NOTE_CHARS) throw new UserError(`the note is longer than ${MAX_NOTE_CHARS} characters`, 'keep the gist; long material belongs in the repository');
  const own = compileFormats(rt.config.privacy.secret_formats);
  const cleaned = cleanText(text, rt.config.privacy.redact, own);
  if (cleaned.text.length === 0) throw new UserError('the note held only <private> text: nothing to remember');
  const now = rt.now().toISOString();
  const machine = rt.config.general.machine_name;
  const record: MemoryRecord = {
    v: 1,
    id: memoryId('note', machine, createHash('sha256').update(`${now}\n${cleaned.text}`).digest('hex')),
    project: projectName(cleanText(note.project, rt.config.privacy.redact, own).text),
    machine,
    timestamp: now,
    updated_at: now,
    question: cleaned.text,
    answer: '',
    source: 'note',
    ...(note.cwd ? { cwd: cleanText(note.cwd, rt.config.privacy.redact, own).text } : {}),
  };
  // A note about the folder's own repository is filed under that repository on every machine.
  const noteRepo = note.cwd && record.project !== undefined ? ownRepository(note.cwd, record.project) : undefined;
  if (noteRepo) record.extra = { repo: noteRepo.key };
  // An excluded project takes no note, by any of its names (the CLI and the MCP server alike).
  // The folder counts only for a note filed under the folder's own repository.
  const ownRepo = noteRepo;
  if (isExcludedPlace(rt.config.privacy.exclude_projects, { name: record.project ?? '', ...(ownRepo ? { repo: ownRepo } : {}) }, ownRepo ? note.cwd : undefined)) {
    throw new UserError(`project "${projectLabel(record.project ?? '')}" is excluded by [privacy] exclude_projects: nothing is remembered there`, 'remember it under another project, or take the project out of exclude_projects');
  }
  const { lock, repo } = await captureLockFor(rt);
  return lock(async () => {
    appendToCurrentMonth(rt.config.general.export_dir, machine, new Date(now), [record]);
    (await openCacheAsync(rt.cacheOptions())).store.close();
    const sync = repo ? await commitAndPush(rt, repo, `memory: a note (${machine})`, push) : undefined;
    const redactions = Object.values(cleaned.counts).reduce((a, b) => a + b, 0);
    return { record, redactions, ...(sync ? { sync } : {}) };
  });
}
