/**
 * Transcripts → new or changed memory records → redacted → embedded (if the model loads)
 * → appended to this machine's month files. Already-exported turns are skipped, forgotten
 * ones are never captured again, a turn whose answer grew gets a new version.
 */
import { readFileSync, statSync } from 'node:fs';
import { join, sep } from 'node:path';
import { turnToRecord, type CaptureLimits, type Turn } from '../../capture/turn.js';
import { commandFiles } from '../../capture/command-files.js';
import { parseAnyTranscript } from '../../agents/transcripts.js';
import type { TranscriptShapes } from '../../capture/shapes.js';
import type { ProjectPlace } from '../../project/names.js';
import { projectName } from '../../project/label.js';
import { placeHere, type Place } from '../../project/place.js';
import { headCommit } from '../../project/repository.js';
import { pathInRepo } from '../../changes/git-files.js';
import { FileHasher, MAX_TRACKED_FILES, type FileBlob } from '../../changes/staleness.js';
import type { Config } from '../../config/schema.js';
import { documentText, type Embedder } from '../../embed/embedder.js';
import { errorMessage } from '../../errors.js';
import { appendByMonth } from '../../export/files.js';
import { monthOf, supersedingTime } from '../../export/jsonl.js';
import { redactionKinds, cleanRecordFields, cleanText } from '../../privacy/redact.js';
import { compileFormats } from '../../privacy/formats.js';
import { redactGivenValues } from '../../privacy/asked.js';
import type { Store } from '../../store/store.js';
import type { MemoryRecord } from '../../types.js';
import type { Logger } from '../log.js';

export interface TranscriptRef {
  path: string;
  /** From the hook input; the transcript's own sessionId is used otherwise. */
  sessionId?: string;
  cwd?: string;
}

export interface CaptureDeps {
  config: Config;
  store: Store;
  now: () => Date;
  /** Loads the model on first use; may throw ModelUnavailable. */
  loadEmbedder: () => Promise<Embedder>;
  log: Logger;
  progress?: (done: number, total: number) => void;
  embedProgress?: (done: number, total: number) => void;
  /** Told, per transcript, which shapes its parser did not know (undefined: none). */
  onShapes?: (transcript: string, shapes: TranscriptShapes | undefined) => void;
}

export interface CaptureOutcome {
  transcripts: number;
  turns: number;
  added: number;
  updated: number;
  unchanged: number;
  forgotten: number;
  excluded: number;
  badLines: number;
  embedded: number;
  pending: number;
  redactions: number;
  /** Redactions in the memories written by this run, by kind (`[REDACTED:kind]`). */
  redactionsByKind: Record<string, number>;
  /** Sessions (transcripts) of an excluded project, not captured. */
  excludedSessions: number;
  files: string[];
  problems: string[];
  /** Transcript shapes the parsers did not recognise, one entry per transcript that had any. */
  unknownShapes: TranscriptShapes[];
}

export function emptyOutcome(): CaptureOutcome {
  return {
    transcripts: 0, turns: 0, added: 0, updated: 0, unchanged: 0, forgotten: 0, excluded: 0, badLines: 0,
    embedded: 0, pending: 0, redactions: 0, redactionsByKind: {}, excludedSessions: 0, files: [], problems: [], unknownShapes: [],
  };
}

export function limitsOf(config: Config): CaptureLimits {
  return {
    minQuestion: config.capture.min_question_chars,
    maxQuestion: config.capture.max_question_chars,
    minAnswer: config.capture.min_answer_chars,
    maxAnswer: config.capture.max_answer_chars,
  };
}

export async function captureTranscripts(deps: CaptureDeps, refs: TranscriptRef[]): Promise<CaptureOutcome> {
  const { config, store } = deps;
  const out = emptyOutcome();
  const nowIso = deps.now().toISOString();
  const fresh = new Map<string, MemoryRecord>();
  /** Prompt uuid → memory id, for copies of one prompt in several transcripts of this run. */
  const freshByPrompt = new Map<string, string>();
  const places = new Map<string, Place>();
  const hasher = new FileHasher(store);
  let done = 0;
  const total = refs.reduce((s, r) => s + safeSize(r.path), 0);

  // The person's own secret formats, compiled once for every transcript of this run.
  const own = compileFormats(config.privacy.secret_formats);
  for (const ref of refs) {
    let text: string;
    try {
      text = readFileSync(ref.path, 'utf8');
    } catch (err) {
      out.problems.push(`cannot read transcript ${ref.path}: ${errorMessage(err)}`);
      continue;
    }
    out.transcripts++;
    // Privacy first, on the whole text: cutting comes after (a key at the limit leaves no prefix).
    // Texts a <private> span was removed from are noted: a memory holding one is never published
    // to a team without the person's word (team/outbox.ts), though nothing of the span remains.
    const privateTexts: string[] = [];
    let privateWhole = false;
    const parsed = parseAnyTranscript(text, limitsOf(config), (s) => {
      const c = cleanText(s, config.privacy.redact, own);
      if (c.counts.private) {
        if (c.text.length === 0) privateWhole = true;
        else privateTexts.push(c.text.slice(0, 64));
      }
      return c.text;
    });
    // A value the person typed because the agent asked for a secret: no rule tells it alone (privacy/asked.ts).
    if (config.privacy.redact) redactGivenValues(parsed.turns, parsed.givenWhenAsked ?? []);
    const shapes = parsed.unknownShapes ? { agent: parsed.source === 'codex' ? 'Codex' : 'Claude Code', ...(parsed.agentVersion ? { version: parsed.agentVersion } : {}), unknown: parsed.unknownShapes, at: nowIso } : undefined;
    if (shapes) out.unknownShapes.push(shapes);
    deps.onShapes?.(ref.path, shapes);
    out.badLines += parsed.badLines;
    if (parsed.oversizeLines > 0) deps.log.info(`${parsed.oversizeLines} transcript line(s) over 4 MB in ${ref.path} read with their long text cut (a pasted dump or a huge tool output)`);
    const cwd = ref.cwd ?? parsed.cwd;
    const key = cwd ?? '';
    let place = places.get(key);
    if (place === undefined) {
      place = placeHere(cwd, { ...(config.general.project ? { configured: config.general.project } : {}), exclude: config.privacy.exclude_projects, names: store.projects.repoNames() });
      places.set(key, place);
      if (place.repo) store.fileStates.noteCheckout(place.repo.key, place.repo.top, deps.now().getTime());
    }
    const project = place.name;
    if (place.excluded) {
      out.excluded += parsed.turns.length;
      if (parsed.turns.length > 0) out.excludedSessions++;
      continue;
    }
    const repoKey = place.repo && cleanText(place.repo.key, config.privacy.redact, own).text === place.repo.key ? place.repo.key : undefined;
    const head = place.repo && repoKey ? headCommit(place.repo) : undefined;
    for (const [turnIndex, turn] of parsed.turns.entries()) {
      out.turns++;
      if (ref.sessionId && turn.sessionId === 'unknown') turn.sessionId = ref.sessionId;
      // The project name comes from the repository or the folder: a token in it must not reach the record either.
      const storedProject = projectName(cleanText(project, config.privacy.redact, own).text);
      // Question and answer were cleaned whole by the parser; the other stored fields here.
      const r = cleanRecordFields(turnToRecord(turn, { machine: config.general.machine_name, project: storedProject, now: nowIso, source: parsed.source }), (s) => cleanText(s, config.privacy.redact, own).text);
      if (privateWhole || privateTexts.some((t) => r.question.includes(t) || r.answer.includes(t))) r.extra = { ...r.extra, private_removed: true };
      let existing = store.byId(r.id);
      if (!existing) {
        // `claude --resume` / `--continue` may copy earlier entries into a new transcript,
        // under the new session's id or the old one: either way the prompt's uuid is the
        // same, and so is the memory (whether copies keep their sessionId is not documented).
        const earlier = freshByPrompt.get(turn.promptUuid) ?? store.idByPromptUuid(turn.promptUuid);
        if (earlier && earlier !== r.id) {
          r.id = earlier;
          existing = store.byId(earlier);
          const first = fresh.get(earlier);
          if (first?.session_id) r.session_id = first.session_id;
          else if (existing?.session_id) r.session_id = existing.session_id;
        }
      }
      if (!existing && r.session_id && r.timestamp) {
        // The same turn of the same session, stored under an id an older version derived
        // (Codex rollouts without turn ids were keyed differently before): one memory, not two.
        const same = store.idBySessionTurn(r.session_id, r.timestamp, r.question);
        if (same && same !== r.id && !fresh.has(r.id)) {
          r.id = same;
          existing = store.byId(same);
        }
      }
      freshByPrompt.set(turn.promptUuid, r.id);
      if (existing?.deleted === 1) {
        out.forgotten++;
        continue;
      }
      if (existing && existing.question === r.question && existing.answer === r.answer) {
        out.unchanged++;
        continue;
      }
      if (r.question.length === 0 || r.answer.length === 0) continue; // all of it was <private>
      // The repository and its files, for the turns written only (an unchanged turn, most of a
      // transcript read again at each Stop, costs no file looked at).
      if (repoKey) {
        r.extra = { ...r.extra, repo: repoKey, ...(head ? { head_commit: head } : {}) };
        const blobs = fileStates(turn, parsed.turns[turnIndex + 1], r.files ?? [], place, cwd, hasher, deps.now(), (x) => cleanText(x, config.privacy.redact, own).text);
        if (blobs.length > 0) r.extra.file_blobs = blobs;
        // Where in the repository each file is, whatever is known of its state: what recall by file looks up.
        const inRepo = repoFiles(turn, place, cwd, (x) => cleanText(x, config.privacy.redact, own).text);
        if (inRepo.length > 0) r.extra.repo_files = inRepo;
      }
      const tags = redactionKinds(r);
      const before = existing ? redactionKinds(existing) : {};
      for (const [k, n] of Object.entries(tags)) {
        const added = Math.max(0, n - (before[k] ?? 0));
        if (added > 0) out.redactionsByKind[k] = (out.redactionsByKind[k] ?? 0) + added;
        out.redactions += added;
      }
      // A grown answer must win over the version it replaces even if this clock stepped back.
      if (existing) r.updated_at = supersedingTime(existing.version_ms, Date.parse(nowIso));
      const prev = fresh.get(r.id);
      if (!prev && existing) out.updated++;
      else if (!prev) out.added++;
      fresh.set(r.id, r);
    }
    done += safeSize(ref.path);
    deps.progress?.(done, total);
  }

  const records = [...fresh.values()];
  if (records.length === 0) return out;
  try {
    const embedder = await deps.loadEmbedder();
    const vectors = await embedder.embedDocuments(records.map((r) => documentText(r.question, r.answer)), deps.embedProgress);
    records.forEach((r, i) => {
      r.embedding = vectors[i];
      r.model = embedder.model;
      r.dim = embedder.dim;
    });
    out.embedded = records.length;
  } catch (err) {
    // A model that cannot load never costs a memory: written pending, embedded later.
    out.pending = records.length;
    out.problems.push(`${errorMessage(err)}; ${records.length} memories saved without embedding (found by keywords now, embedded once the model loads: \`memory status\` says how)`);
  }
  out.files = appendByMonth(config.general.export_dir, config.general.machine_name, records, (e) => monthOf((e as MemoryRecord).timestamp));
  return out;
}

/** Turns older than this when captured (an import, a resumed old session) record no file states: their files may have changed since. */
const FILE_STATE_MAX_AGE_MS = 24 * 3600_000;

/**
 * The files a turn touched inside its repository, as paths in it (forward slashes), each once, at
 * most MAX_TRACKED_FILES; none outside it: those its tools named, then those its shell commands
 * name that are files there now (capture/command-files.ts: `sed -n 1,80p src/x.ts`, `git mv`, a
 * test run on one file), read right after the turn — what Claude Code's Bash did, and what Codex's
 * own reading of a command leaves out.
 */
function repoFiles(turn: Turn, place: ProjectPlace, cwd: string | undefined, clean: (s: string) => string): string[] {
  const repo = place.repo;
  if (!repo) return [];
  const out = new Set<string>();
  const add = (f: string, from: string | undefined) => {
    const rel = pathInRepo(f, repo.top, from);
    if (rel && clean(rel) === rel) out.add(rel.split(sep).join('/'));
  };
  for (const f of turn.files.slice(0, MAX_TRACKED_FILES)) add(f, turn.cwd ?? cwd);
  for (const c of turn.commands ?? []) {
    const from = c.cwd ?? turn.cwd ?? cwd;
    if (out.size >= MAX_TRACKED_FILES) break;
    if (from === undefined) continue;
    for (const f of commandFiles(c.command, from)) if (out.size < MAX_TRACKED_FILES) add(f, from);
  }
  return [...out];
}

/**
 * The blob id of each file a turn recorded inside the session's repository, as it is now —
 * only when now is still the turn's state: the turn is recent, and the file was not modified
 * after the next turn began (a later turn or the person changed it; then nothing is claimed).
 * A file absent now was deleted in the turn only if no turn came after it.
 */
function fileStates(turn: Turn, next: Turn | undefined, storedFiles: string[], place: ProjectPlace, cwd: string | undefined, hasher: FileHasher, now: Date, clean: (s: string) => string): FileBlob[] {
  const repo = place.repo;
  if (!repo || turn.files.length === 0) return [];
  const started = Date.parse(turn.timestamp);
  if (!Number.isFinite(started) || now.getTime() - started > FILE_STATE_MAX_AGE_MS) return [];
  const nextStart = next ? Date.parse(next.timestamp) : Number.NaN;
  const bound = Number.isFinite(nextStart) ? nextStart : now.getTime();
  const out: FileBlob[] = [];
  turn.files.slice(0, MAX_TRACKED_FILES).forEach((f, i) => {
    const rel = pathInRepo(f, repo.top, turn.cwd ?? cwd);
    const stored = storedFiles[i];
    if (!rel || stored === undefined || clean(rel) !== rel) return;
    const abs = join(repo.top, rel);
    let mtimeMs: number | undefined;
    try {
      mtimeMs = statSync(abs).mtimeMs;
    } catch {
      mtimeMs = undefined;
    }
    if (mtimeMs === undefined) {
      if (!next) out.push({ file: stored, path: rel, blob: null });
      return;
    }
    // A second of slack: file systems round mtimes, transcripts round timestamps.
    if (mtimeMs > bound + 1000) return;
    const blob = hasher.blobOf(abs);
    if (typeof blob === 'string') out.push({ file: stored, path: rel, blob });
  });
  return out;
}

function safeSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}
